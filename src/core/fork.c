// SPDX-License-Identifier: MIT
/*
 * One pthread_atfork() for the whole library, calling every module's
 * hooks in lock order (prepare) and in reverse (parent, child), so that
 * fork() never happens while another thread holds a lock of ours, and
 * the locks are never taken in two orders by two modules' handlers.
 */
#include <pthread.h>
#include "core/fork.h"

static pthread_mutex_t hooks_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct slim_fork_hook *hooks;	/* by order */

/* The reverse walk of a list kept short: a handful of modules. */
static void run_reverse(struct slim_fork_hook *h, int child)
{
	if (!h)
		return;
	run_reverse(h->next, child);
	if (child && h->child)
		h->child();
	else if (!child && h->parent)
		h->parent();
}

static void prepare(void)
{
	struct slim_fork_hook *h;

	pthread_mutex_lock(&hooks_lock);
	for (h = hooks; h; h = h->next) {
		if (h->prepare)
			h->prepare();
	}
}

static void parent(void)
{
	run_reverse(hooks, 0);
	pthread_mutex_unlock(&hooks_lock);
}

static void child(void)
{
	run_reverse(hooks, 1);
	pthread_mutex_unlock(&hooks_lock);
}

static void install(void)
{
	pthread_atfork(prepare, parent, child);
}

void slim_fork_hook_add(struct slim_fork_hook *h)
{
	struct slim_fork_hook **p;

	pthread_once(&once, install);
	pthread_mutex_lock(&hooks_lock);
	for (p = &hooks; *p && (*p)->order <= h->order; p = &(*p)->next)
		;
	h->next = *p;
	*p = h;
	pthread_mutex_unlock(&hooks_lock);
}
