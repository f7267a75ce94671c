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
#include <slimtrace/compiler.h>

/* How the filter treats a field; the kernel's FILTER_* types. */
enum slim_filter_type {
	SLIM_FILTER_AUTO = 0,		/* derive from the type text, as the kernel does */
	SLIM_FILTER_OTHER,		/* a number */
	SLIM_FILTER_STATIC_STRING,	/* char name[N] */
	SLIM_FILTER_DYN_STRING,		/* __data_loc char[] */
	SLIM_FILTER_PTR_STRING,		/* char * (not dereferenced in user space) */
	SLIM_FILTER_COMM,		/* the COMM pseudo-field */
	SLIM_FILTER_CPU,		/* the CPU pseudo-field */
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

/* Decode a __data_loc word. */
static inline uint32_t slim_data_loc_offset(uint32_t loc)
{
	return loc & 0xffff;
}

static inline uint32_t slim_data_loc_len(uint32_t loc)
{
	return loc >> 16;
}

#endif /* SLIMTRACE_FIELD_H */
