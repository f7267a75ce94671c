/* SPDX-License-Identifier: MIT */
/*
 * The fork plan (src/core/fork.c): every lock of the library, taken in
 * one order before fork() and let go after it, in the parent and in the
 * child.  A child then starts with no lock held by a thread it does not
 * have, whatever the other threads were doing; each module also says what
 * its state means in a child (the other threads are gone).
 */
#ifndef SLIM_CORE_FORK_H
#define SLIM_CORE_FORK_H

#pragma GCC visibility push(hidden)

/* The order locks are taken in: the order the library nests them. */
enum slim_fork_order {
	SLIM_FORK_ENDPOINT	= 5,	/* the control endpoint: a request runs under it */
	SLIM_FORK_RECORD	= 10,	/* the recorder's api lock */
	SLIM_FORK_EVENTS	= 20,	/* slim_event_mutex */
	SLIM_FORK_TRACEPOINTS	= 30,	/* probe arrays */
	SLIM_FORK_RCU		= 40,	/* the reader registry, deferred frees */
	SLIM_FORK_BUFFERS	= 50,	/* buffer sets, then each buffer's read lock */
	SLIM_FORK_CMDLINES	= 60,
	SLIM_FORK_CLOCK		= 70,	/* calibration */
	SLIM_FORK_SYMBOLS	= 80,	/* the files' symbol tables (core/symbols.c) */
};

struct slim_fork_hook {
	int order;
	void (*prepare)(void);		/* take the locks */
	void (*parent)(void);		/* let go */
	void (*child)(void);		/* let go, and forget the threads left behind */
	struct slim_fork_hook *next;
};

/* Add a module's hooks (once, at its start-up). */
void slim_fork_hook_add(struct slim_fork_hook *h);

#pragma GCC visibility pop

#endif
