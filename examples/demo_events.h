/* SPDX-License-Identifier: MIT */
/* The demo's events: a toy request server, in the kernel's dialect. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM demo

#if !defined(_TRACE_DEMO_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_DEMO_H

#include <slimtrace/tracepoint.h>

#define DEMO_GET	0x1
#define DEMO_PUT	0x2
#define DEMO_CACHED	0x4

TRACE_EVENT(demo_request,
	TP_PROTO(int id, const char *path, unsigned long flags),
	TP_ARGS(id, path, flags),
	TP_STRUCT__entry(
		__field(int, id)
		__string(path, path)
		__field(unsigned long, flags)
	),
	TP_fast_assign(
		__entry->id = id;
		__assign_str(path);
		__entry->flags = flags;
	),
	TP_printk("id=%d path=%s flags=%s", __entry->id, __get_str(path),
		  __print_flags(__entry->flags, "|", { DEMO_GET, "GET" },
				{ DEMO_PUT, "PUT" }, { DEMO_CACHED, "CACHED" }))
);

DECLARE_EVENT_CLASS(demo_stage,
	TP_PROTO(int id, long usecs),
	TP_ARGS(id, usecs),
	TP_STRUCT__entry(
		__field(int, id)
		__field(long, usecs)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->usecs = usecs;
	),
	TP_printk("id=%d usecs=%ld", __entry->id, __entry->usecs)
);

DEFINE_EVENT(demo_stage, demo_parse, TP_PROTO(int id, long usecs), TP_ARGS(id, usecs));
DEFINE_EVENT(demo_stage, demo_reply, TP_PROTO(int id, long usecs), TP_ARGS(id, usecs));

#endif /* _TRACE_DEMO_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE demo_events
#include <slimtrace/define_trace.h>
