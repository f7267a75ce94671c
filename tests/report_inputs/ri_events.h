/* Events for tests/test_report_inputs.c: which file, which turn. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ritest

#if !defined(_TRACE_RI_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_RI_EVENTS_H

#include <slimtrace/tracepoint.h>

TRACE_EVENT(ri_tick,
	TP_PROTO(int file, int turn),
	TP_ARGS(file, turn),
	TP_STRUCT__entry(
		__field(int, file)
		__field(int, turn)
	),
	TP_fast_assign(
		__entry->file = file;
		__entry->turn = turn;
	),
	TP_printk("file=%d turn=%d", __entry->file, __entry->turn)
);

#endif /* _TRACE_RI_EVENTS_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE ri_events
#include <slimtrace/define_trace.h>
