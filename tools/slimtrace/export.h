/* SPDX-License-Identifier: MIT */
/*
 * Writing a trace.dat out in other viewers' formats (docs/formats.md).
 * The exporters read records through the reader (tdat.h) and fields
 * through this module's description of them, built once per event from
 * libtraceevent's parse of the format.
 */
#ifndef SLIMTRACE_CLI_EXPORT_H
#define SLIMTRACE_CLI_EXPORT_H

#include <stdint.h>
#include "tdat.h"

/* How a field's bytes are to be read. */
enum xf_kind {
	XF_INT,				/* COUNT integers of SIZE bytes (1: a scalar) */
	XF_TEXT,			/* characters: a string up to the first NUL */
	XF_BYTES,			/* a size no integer has: raw bytes */
};

struct xfield {
	const char *name;
	enum xf_kind kind;
	int offset;			/* of the field, or of its locator when dynamic */
	int size;			/* of one element */
	int count;			/* elements of a fixed array (1 for a scalar) */
	int array;			/* declared as an array (even of one) */
	int dynamic, relative;		/* __data_loc / __rel_loc: length in the record */
	int is_signed, is_pointer;
};

struct xevent {
	struct tdat_event *ev;
	int nr_fields;
	struct xfield *fields;
};

/* Every event of T described, in t->events' order; NULL with t->err set. */
struct xevent *xevents_build(struct tdat *t);
void xevents_free(struct xevent *xe, int nr);

/*
 * Where a field's data is in record R: *p and the number of elements
 * (for XF_TEXT the characters before the NUL, for XF_BYTES bytes).
 */
int xfield_span(const struct tdat *t, const struct xfield *f, const struct tdat_record *r,
		const uint8_t **p);
/* Element I of an XF_INT field at P, sign-extended when signed. */
uint64_t xfield_int(const struct tdat *t, const struct xfield *f, const uint8_t *p, int i);

/* The thread of a record: its common_pid, and the name cmdlines give it. */
int xrecord_tid(const struct tdat *t, const struct tdat_record *r);
const char *xthread_name(const struct tdat *t, int tid);

struct export_opts {
	const char *slice_start;	/* perfetto: START,END[,KEY] pairs to slices */
	const char *slice_end;
	const char *slice_key;
};

/* 0, or an exit code with the reason printed. */
int export_ctf(struct tdat *t, const char *dir, const struct export_opts *o);
int export_perfetto(struct tdat *t, const char *path, const struct export_opts *o);

#endif
