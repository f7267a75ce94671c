/* SPDX-License-Identifier: MIT */
/*
 * Written the way the kernel's include/trace/events/ headers are, with
 * fields equal to the kernel's sched events.  Compiles unchanged against
 * slimtrace with -I include/slimtrace/compat.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sched

#if !defined(_TRACE_SCHED_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SCHED_H

#include <linux/types.h>
#include <linux/tracepoint.h>

#define TASK_COMM_LEN 16

TRACE_EVENT(sched_switch,

	TP_PROTO(const char *prev_comm, pid_t prev_pid, int prev_prio,
		 long prev_state, const char *next_comm, pid_t next_pid,
		 int next_prio),

	TP_ARGS(prev_comm, prev_pid, prev_prio, prev_state, next_comm,
		next_pid, next_prio),

	TP_STRUCT__entry(
		__array(	char,	prev_comm,	TASK_COMM_LEN	)
		__field(	pid_t,	prev_pid			)
		__field(	int,	prev_prio			)
		__field(	long,	prev_state			)
		__array(	char,	next_comm,	TASK_COMM_LEN	)
		__field(	pid_t,	next_pid			)
		__field(	int,	next_prio			)
	),

	TP_fast_assign(
		strncpy(__entry->prev_comm, prev_comm, TASK_COMM_LEN);
		__entry->prev_comm[TASK_COMM_LEN - 1] = 0;
		__entry->prev_pid	= prev_pid;
		__entry->prev_prio	= prev_prio;
		__entry->prev_state	= prev_state;
		strncpy(__entry->next_comm, next_comm, TASK_COMM_LEN);
		__entry->next_comm[TASK_COMM_LEN - 1] = 0;
		__entry->next_pid	= next_pid;
		__entry->next_prio	= next_prio;
	),

	TP_printk("prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s next_pid=%d next_prio=%d",
		__entry->prev_comm, __entry->prev_pid, __entry->prev_prio,
		__entry->prev_state ?
		  __print_flags(__entry->prev_state, "|",
				{ 0x01, "S" }, { 0x02, "D" }, { 0x04, "T" },
				{ 0x08, "t" }, { 0x10, "X" }, { 0x20, "Z" },
				{ 0x40, "P" }, { 0x80, "I" }) : "R",
		__entry->next_comm, __entry->next_pid, __entry->next_prio)
);

DECLARE_EVENT_CLASS(sched_wakeup_template,

	TP_PROTO(const char *comm, pid_t pid, int prio, int target_cpu),

	TP_ARGS(comm, pid, prio, target_cpu),

	TP_STRUCT__entry(
		__array(	char,	comm,	TASK_COMM_LEN	)
		__field(	pid_t,	pid			)
		__field(	int,	prio			)
		__field(	int,	target_cpu		)
	),

	TP_fast_assign(
		strncpy(__entry->comm, comm, TASK_COMM_LEN);
		__entry->comm[TASK_COMM_LEN - 1] = 0;
		__entry->pid		= pid;
		__entry->prio		= prio;
		__entry->target_cpu	= target_cpu;
	),

	TP_printk("comm=%s pid=%d prio=%d target_cpu=%03d",
		  __entry->comm, __entry->pid, __entry->prio,
		  __entry->target_cpu)
);

DEFINE_EVENT(sched_wakeup_template, sched_wakeup,
	     TP_PROTO(const char *comm, pid_t pid, int prio, int target_cpu),
	     TP_ARGS(comm, pid, prio, target_cpu));

DEFINE_EVENT(sched_wakeup_template, sched_wakeup_new,
	     TP_PROTO(const char *comm, pid_t pid, int prio, int target_cpu),
	     TP_ARGS(comm, pid, prio, target_cpu));

TRACE_EVENT(sched_process_fork,

	TP_PROTO(const char *parent_comm, pid_t parent_pid,
		 const char *child_comm, pid_t child_pid),

	TP_ARGS(parent_comm, parent_pid, child_comm, child_pid),

	TP_STRUCT__entry(
		__string(	parent_comm,	parent_comm	)
		__field(	pid_t,		parent_pid	)
		__string(	child_comm,	child_comm	)
		__field(	pid_t,		child_pid	)
	),

	TP_fast_assign(
		__assign_str(parent_comm);
		__entry->parent_pid	= parent_pid;
		__assign_str(child_comm, child_comm);
		__entry->child_pid	= child_pid;
	),

	TP_printk("comm=%s pid=%d child_comm=%s child_pid=%d",
		__get_str(parent_comm), __entry->parent_pid,
		__get_str(child_comm), __entry->child_pid)
);

#endif /* _TRACE_SCHED_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
