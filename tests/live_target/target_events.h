/* SPDX-License-Identifier: MIT */
/* The events of the live-control test target. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM live

#if !defined(_TRACE_LIVE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_LIVE_H

#include <slimtrace/tracepoint.h>

#ifdef LIVE_TARGET_EXTRA
/* Defined first, so that the events after it get other ids than live_target's. */
TRACE_EVENT(live_extra,
	TP_PROTO(int x),
	TP_ARGS(x),
	TP_STRUCT__entry(__field(int, x)),
	TP_fast_assign(__entry->x = x;),
	TP_printk("x=%d", __entry->x));
#endif

TRACE_EVENT(live_tick,
	TP_PROTO(int a, int b),
	TP_ARGS(a, b),
	TP_STRUCT__entry(__field(int, a) __field(int, b)),
	TP_fast_assign(__entry->a = a; __entry->b = b;),
	TP_printk("a=%d b=%d", __entry->a, __entry->b));

DECLARE_EVENT_CLASS(live_stage,
	TP_PROTO(int id, long usecs),
	TP_ARGS(id, usecs),
	TP_STRUCT__entry(__field(int, id) __field(long, usecs)),
	TP_fast_assign(__entry->id = id; __entry->usecs = usecs;),
	TP_printk("id=%d usecs=%ld", __entry->id, __entry->usecs));

DEFINE_EVENT(live_stage, live_parse, TP_PROTO(int id, long usecs), TP_ARGS(id, usecs));
DEFINE_EVENT(live_stage, live_reply, TP_PROTO(int id, long usecs), TP_ARGS(id, usecs));

TRACE_EVENT(live_msg,
	TP_PROTO(const char *text),
	TP_ARGS(text),
	TP_STRUCT__entry(__string(text, text)),
	TP_fast_assign(__assign_str(text);),
	TP_printk("%s", __get_str(text)));

#endif /* _TRACE_LIVE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE target_events
#include <slimtrace/define_trace.h>
