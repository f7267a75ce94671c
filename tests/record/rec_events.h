/* Events for tests/test_record.c: two integers, and a string. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rectest

#if !defined(_TRACE_REC_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_REC_EVENTS_H

#include <slimtrace/tracepoint.h>

TRACE_EVENT(rec_pair,
	TP_PROTO(int a, int b),
	TP_ARGS(a, b),
	TP_STRUCT__entry(
		__field(int, a)
		__field(int, b)
	),
	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
	),
	TP_printk("a=%d b=%d", __entry->a, __entry->b)
);

TRACE_EVENT(rec_text,
	TP_PROTO(int n, const char *s),
	TP_ARGS(n, s),
	TP_STRUCT__entry(
		__field(int, n)
		__string(s, s)
	),
	TP_fast_assign(
		__entry->n = n;
		__assign_str(s, s);
	),
	TP_printk("n=%d s=%s", __entry->n, __get_str(s))
);

#endif /* _TRACE_REC_EVENTS_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE rec_events
#include <slimtrace/define_trace.h>
