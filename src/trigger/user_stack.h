/* SPDX-License-Identifier: MIT */
/*
 * ftrace:user_stack, the record the stacktrace trigger writes: the
 * kernel's user stack entry (events/ftrace/user_stack/format), so that
 * trace-cmd and libtraceevent read it as they read the kernel's.  The
 * trigger fills the record itself, in the triggering event's buffer;
 * the tracepoint is never called.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ftrace

#if !defined(SLIM_TRIGGER_USER_STACK_H) || defined(TRACE_HEADER_MULTI_READ)
#define SLIM_TRIGGER_USER_STACK_H

#include <slimtrace/tracepoint.h>

#define SLIM_USER_STACK_ENTRIES	8

TRACE_EVENT(user_stack,
	TP_PROTO(unsigned int tgid, const unsigned long *caller),
	TP_ARGS(tgid, caller),
	TP_STRUCT__entry(
		__field(unsigned int, tgid)
		__array(unsigned long, caller, SLIM_USER_STACK_ENTRIES)
	),
	TP_fast_assign(
		__entry->tgid = tgid;
		memcpy(__entry->caller, caller, sizeof(__entry->caller));
	),
	TP_printk("\t=> %ps\n\t=> %ps\n\t=> %ps\n" "\t=> %ps\n\t=> %ps\n\t=> %ps\n"
		  "\t=> %ps\n\t=> %ps\n",
		  (void *)__entry->caller[0], (void *)__entry->caller[1],
		  (void *)__entry->caller[2], (void *)__entry->caller[3],
		  (void *)__entry->caller[4], (void *)__entry->caller[5],
		  (void *)__entry->caller[6], (void *)__entry->caller[7])
);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH trigger
#define TRACE_INCLUDE_FILE user_stack
#include <slimtrace/define_trace.h>
