/* SPDX-License-Identifier: MIT */
/*
 * The recording benchmark's events (bench/record_bench.c), in the kernel's
 * dialect: the same two shapes bench/lttng/lt_bench_tp.h gives LTTng-UST,
 * so that the two sides of `make bench` record the same payloads.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM bench

#if !defined(_TRACE_BENCH_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_BENCH_H

#include <slimtrace/tracepoint.h>

TRACE_EVENT(bench_2int,
	TP_PROTO(int a, long b),
	TP_ARGS(a, b),
	TP_STRUCT__entry(
		__field(int, a)
		__field(long, b)
	),
	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
	),
	TP_printk("a=%d b=%ld", __entry->a, __entry->b)
);

TRACE_EVENT(bench_str,
	TP_PROTO(const char *s),
	TP_ARGS(s),
	TP_STRUCT__entry(
		__string(s, s)
	),
	TP_fast_assign(
		__assign_str(s);
	),
	TP_printk("s=%s", __get_str(s))
);

#endif /* _TRACE_BENCH_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE record_events
#include <slimtrace/define_trace.h>
