/* SPDX-License-Identifier: MIT */
/* The `trace` and `trace_pipe` files of an instance (src/text/trace_file.c). */
#ifndef SLIM_TRACE_FILE_H
#define SLIM_TRACE_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Internal: reached directly, not through the GOT, from the library. */
#pragma GCC visibility push(hidden)

struct slim_seq;
struct slim_instance;

int slim_trace_print_header(struct slim_instance *inst, struct slim_seq *s);
/* One record as one line of the trace file. */
int slim_trace_print_record(struct slim_instance *inst, struct slim_seq *s, int cpu,
			    const void *rec, unsigned int len, uint64_t ts);
/* `trace`: every record, merged by time. */
int slim_trace_print_all(struct slim_instance *inst, struct slim_seq *s);
/* `snapshot`: the snapshot as `trace`, or the kernel's help when it is empty. */
int slim_trace_print_snapshot(struct slim_instance *inst, struct slim_seq *s);
/*
 * `trace_pipe`: consume records, oldest first across buffers, until none
 * is left or the text has reached max bytes (0: no bound).  Returns the
 * number of records consumed.
 */
long slim_trace_consume(struct slim_instance *inst, struct slim_seq *s, size_t max);

#pragma GCC visibility pop

#endif
