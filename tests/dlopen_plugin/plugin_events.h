/* Events of a shared object that is opened and closed at run time. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM plugin

#if !defined(_TRACE_PLUGIN_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_PLUGIN_H

#include <slimtrace/tracepoint.h>

TRACE_EVENT(plugin_ev,
	TP_PROTO(int v, const char *who),
	TP_ARGS(v, who),
	TP_STRUCT__entry(
		__field(int, v)
		__string(who, who)
	),
	TP_fast_assign(
		__entry->v = v;
		__assign_str(who);
	),
	TP_printk("v=%d who=%s", __entry->v, __get_str(who))
);

DECLARE_TRACE(plugin_tp, TP_PROTO(int v), TP_ARGS(v));

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE plugin_events
#include <slimtrace/define_trace.h>
