/* SPDX-License-Identifier: MIT */
/*
 * Kernel-style header: signal_generate's and signal_deliver's fields,
 * among them one named errno (which <errno.h> would have made a macro).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM signal

#if !defined(_TRACE_SIGNAL_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SIGNAL_H

#include <linux/tracepoint.h>

TRACE_EVENT(signal_generate,

	TP_PROTO(int sig, int err, int code, const char *comm, pid_t pid,
		 int group, int result),

	TP_ARGS(sig, err, code, comm, pid, group, result),

	TP_STRUCT__entry(
		__field(	int,		sig	)
		__field(	int,		errno	)
		__field(	int,		code	)
		__array(	char,		comm,	16	)
		__field(	pid_t,		pid	)
		__field(	int,		group	)
		__field(	int,		result	)
	),

	TP_fast_assign(
		__entry->sig	= sig;
		__entry->errno	= err;
		__entry->code	= code;
		memset(__entry->comm, 0, 16);
		memcpy(__entry->comm, comm, strnlen(comm, 15));
		__entry->pid	= pid;
		__entry->group	= group;
		__entry->result	= result;
	),

	TP_printk("sig=%d errno=%d code=%d comm=%s pid=%d grp=%d res=%d",
		  __entry->sig, __entry->errno, __entry->code,
		  __entry->comm, __entry->pid, __entry->group,
		  __entry->result)
);

TRACE_EVENT(signal_deliver,

	TP_PROTO(int sig, int err, int code, unsigned long handler,
		 unsigned long flags),

	TP_ARGS(sig, err, code, handler, flags),

	TP_STRUCT__entry(
		__field(	int,		sig		)
		__field(	int,		errno		)
		__field(	int,		code		)
		__field(	unsigned long,	sa_handler	)
		__field(	unsigned long,	sa_flags	)
	),

	TP_fast_assign(
		__entry->sig		= sig;
		__entry->errno		= err;
		__entry->code		= code;
		__entry->sa_handler	= handler;
		__entry->sa_flags	= flags;
	),

	TP_printk("sig=%d errno=%d code=%d sa_handler=%lx sa_flags=%lx",
		  __entry->sig, __entry->errno, __entry->code,
		  __entry->sa_handler, __entry->sa_flags)
);

#endif /* _TRACE_SIGNAL_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
