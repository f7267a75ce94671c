/* SPDX-License-Identifier: MIT */
#ifndef SLIM_TRACE_OUTPUT_H
#define SLIM_TRACE_OUTPUT_H

#include <stdint.h>

/* Internal: reached directly, not through the GOT, from the library. */
#pragma GCC visibility push(hidden)

struct slim_seq;

/* trace_options that change the output */
enum {
	SLIM_TRACE_OPT_RAW = 1 << 0,
	SLIM_TRACE_OPT_HEX = 1 << 1,
	SLIM_TRACE_OPT_BIN = 1 << 2,
};

extern unsigned int slim_trace_options;

int slim_trace_print_header(struct slim_seq *s);
/* One record as one line of the trace file. */
int slim_trace_print_record(struct slim_seq *s, int cpu, const void *rec,
			    unsigned int len, uint64_t ts);
int slim_trace_print_all(struct slim_seq *s);
int slim_trace_consume_all(struct slim_seq *s);

#pragma GCC visibility pop

#endif
