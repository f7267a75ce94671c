/* SPDX-License-Identifier: MIT */
/*
 * Field tables: what a record of one event class looks like.
 *
 * A class describes its fields with a constant table, not with code: the
 * names and C types live in one string blob per class and the table holds
 * 16-bit offsets into it, so a table needs no relocation in a PIE or a
 * shared object (see docs/dialect.md).
 *
 * Records use the kernel's layout: an 8-byte common header, then the fields
 * at their struct offsets; a dynamic field (__string, __dynamic_array) is a
 * 32-bit __data_loc word, (length << 16) | offset-from-record-start, and its
 * bytes follow the fixed part.
 */
#ifndef SLIMTRACE_FIELD_H
#define SLIMTRACE_FIELD_H

#include <stdint.h>
#include <string.h>
#include <slimtrace/compiler.h>

SLIM_BEGIN_DECLS

/* How the filter treats a field; the kernel's FILTER_* types. */
enum slim_filter_type {
	SLIM_FILTER_AUTO = 0,		/* derive from the type text, as the kernel does */
	SLIM_FILTER_OTHER,		/* a number */
	SLIM_FILTER_STATIC_STRING,	/* char name[N] */
	SLIM_FILTER_DYN_STRING,		/* __data_loc char[] */
	SLIM_FILTER_PTR_STRING,		/* char * (not dereferenced in user space) */
	SLIM_FILTER_COMM,		/* the COMM pseudo-field */
	SLIM_FILTER_CPU,		/* the CPU pseudo-field */
	SLIM_FILTER_RDYN_STRING,	/* __rel_loc char[] */
	SLIM_FILTER_CPUMASK,		/* __data_loc cpumask_t */
};

struct slim_field {
	uint16_t type;		/* offset of the C type text in the table's strings */
	uint16_t name;		/* offset of the field name in the table's strings */
	uint16_t offset;	/* byte offset in the record, common header included */
	uint16_t size;		/* bytes in the fixed part: 4 for a __data_loc word */
	uint8_t is_signed;
	uint8_t filter_type;	/* enum slim_filter_type */
};

struct slim_field_table {
	const char *strings;
	const struct slim_field *fields;
	uint16_t nr_fields;
	uint16_t size;		/* bytes of the fixed part of a record */
};

/* The common header every record starts with (the kernel's trace_entry). */
struct slim_trace_entry {
	uint16_t type;		/* common_type: the event's id */
	uint8_t flags;		/* common_flags */
	uint8_t preempt_count;	/* common_preempt_count */
	int32_t pid;		/* common_pid: the thread id */
};

#define SLIM_COMMON_FIELDS	4

/* The common fields, as a table of the same shape as a class's. */
extern SLIM_EXPORT const struct slim_field_table slim_common_fields;

static inline const char *slim_field_name(const struct slim_field_table *t,
					  const struct slim_field *f)
{
	return t->strings + f->name;
}

static inline const char *slim_field_type(const struct slim_field_table *t,
					  const struct slim_field *f)
{
	return t->strings + f->type;
}

/* The filter type of a field, SLIM_FILTER_AUTO resolved from its type text. */
SLIM_EXPORT enum slim_filter_type slim_field_filter_type(const struct slim_field_table *t,
					     const struct slim_field *f);

/* Find a field by name in a table; NULL if it has none. */
SLIM_EXPORT const struct slim_field *slim_field_find(const struct slim_field_table *t,
					 const char *name);

/*
 * A field of 1, 2, 4 or 8 bytes in host order, zero-extended (any other
 * size reads 8).  memcpy: fields in a record need not be aligned.
 */
static inline uint64_t slim_load_uint(const void *src, unsigned int size)
{
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (size) {
	case 1:
		memcpy(&v8, src, 1);
		return v8;
	case 2:
		memcpy(&v16, src, 2);
		return v16;
	case 4:
		memcpy(&v32, src, 4);
		return v32;
	default:
		memcpy(&v64, src, 8);
		return v64;
	}
}

/*
 * Bit i of a bitmask as the kernel records one (__bitmask, __cpumask): an
 * array of longs in host order, bytes long; bits past the end are 0.
 */
static inline int slim_bitmask_test(const void *mask, unsigned int bytes, unsigned int i)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	unsigned int bits = 8 * sizeof(long);
	unsigned int byte = i / bits * sizeof(long) + sizeof(long) - 1 - i % bits / 8;
#else
	unsigned int byte = i / 8;
#endif
	return byte < bytes ? (((const unsigned char *)mask)[byte] >> (i % 8)) & 1 : 0;
}

/* Decode a __data_loc word. */
static inline uint32_t slim_data_loc_offset(uint32_t loc)
{
	return loc & 0xffff;
}

static inline uint32_t slim_data_loc_len(uint32_t loc)
{
	return loc >> 16;
}

SLIM_END_DECLS

#endif /* SLIMTRACE_FIELD_H */
