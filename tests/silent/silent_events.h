/* Events for tests/test_silent.c: two with a field x, one without. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM silent

#if !defined(_TRACE_SILENT_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SILENT_EVENTS_H

#include <slimtrace/tracepoint.h>

TRACE_EVENT(with_x,
	TP_PROTO(int x),
	TP_ARGS(x),
	TP_STRUCT__entry(
		__field(int, x)
	),
	TP_fast_assign(
		__entry->x = x;
	),
	TP_printk("x=%d", __entry->x)
);

TRACE_EVENT(also_x,
	TP_PROTO(int x, int z),
	TP_ARGS(x, z),
	TP_STRUCT__entry(
		__field(int, x)
		__field(int, z)
	),
	TP_fast_assign(
		__entry->x = x;
		__entry->z = z;
	),
	TP_printk("x=%d z=%d", __entry->x, __entry->z)
);

TRACE_EVENT(no_x,
	TP_PROTO(int y),
	TP_ARGS(y),
	TP_STRUCT__entry(
		__field(int, y)
	),
	TP_fast_assign(
		__entry->y = y;
	),
	TP_printk("y=%d", __entry->y)
);

#endif /* _TRACE_SILENT_EVENTS_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE silent_events
#include <slimtrace/define_trace.h>
