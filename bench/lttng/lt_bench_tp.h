/*
 * LTTng-UST 2.13 provider for the recording benchmark: the same two
 * payloads slimtrace's own benchmark records, so the numbers compare.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER slimbench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "lt_bench_tp.h"

#if !defined(LT_BENCH_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define LT_BENCH_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(slimbench, two_int,
	LTTNG_UST_TP_ARGS(int, a, long, b),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int, a, a)
		lttng_ust_field_integer(long, b, b)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(slimbench, str16,
	LTTNG_UST_TP_ARGS(const char *, s),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(s, s)
	)
)

#endif /* LT_BENCH_TP_H */

#include <lttng/tracepoint-event.h>
