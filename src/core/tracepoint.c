// SPDX-License-Identifier: MIT
/*
 * Probe arrays: attach and detach probes while other threads fire.
 *
 * A tracepoint's array is never edited in place.  Each change builds a
 * new NULL-terminated array, publishes it with a release store and frees
 * the old one after an RCU grace period.  tp_mutex orders the writers.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/fork.h"
#include "core/internal.h"

static pthread_mutex_t tp_mutex = PTHREAD_MUTEX_INITIALIZER;

static void fork_lock(void)
{
	pthread_mutex_lock(&tp_mutex);
}

static void fork_unlock(void)
{
	pthread_mutex_unlock(&tp_mutex);
}

static struct slim_fork_hook fork_hook = {
	SLIM_FORK_TRACEPOINTS, fork_lock, fork_unlock, fork_unlock, NULL
};

__attribute__((constructor(101))) static void tracepoint_init(void)
{
	slim_fork_hook_add(&fork_hook);
}

/*
 * The tracepoints of TRACE_EVENT_FN events and their functions, few
 * enough for a list; under tp_mutex, like the kernel's regfunc calls
 * under tracepoints_mutex (so reg() and unreg() must not register
 * probes themselves).
 */
struct tp_fns {
	struct slim_tracepoint *tp;
	const struct slim_event_fns *fns;
	struct tp_fns *next;
};

static struct tp_fns *tp_fns;

static const struct slim_event_fns *fns_of(const struct slim_tracepoint *tp)
{
	const struct tp_fns *f;

	for (f = tp_fns; f; f = f->next) {
		if (f->tp == tp)
			return f->fns;
	}
	return NULL;
}

void slim_tracepoint_set_fns(struct slim_tracepoint *tp, const struct slim_event_fns *fns)
{
	struct tp_fns **p, *f;

	pthread_mutex_lock(&tp_mutex);
	for (p = &tp_fns; *p && (*p)->tp != tp; p = &(*p)->next)
		;
	if (*p && !fns) {
		f = *p;
		*p = f->next;
		free(f);
	} else if (*p) {
		(*p)->fns = fns;
	} else if (fns && (fns->reg || fns->unreg)) {
		f = malloc(sizeof(*f));
		if (f) {
			*f = (struct tp_fns){ tp, fns, tp_fns };
			tp_fns = f;
		} else {
			fprintf(stderr, "slimtrace: out of memory: the reg()/unreg() "
				"functions of an event will not be called\n");
		}
	}
	pthread_mutex_unlock(&tp_mutex);
}

/* The last probe is gone: unreg(), if the event has one. */
static void last_probe_gone(const struct slim_tracepoint *tp)
{
	const struct slim_event_fns *fns = fns_of(tp);

	if (fns && fns->unreg)
		fns->unreg();
}

static int nr_probes(const struct slim_probe *p)
{
	int n = 0;

	while (p && p[n].func)
		n++;
	return n;
}

static int probe_index(const struct slim_probe *p, slim_probe_func func,
		       void *data, int kind)
{
	int i;

	for (i = 0; p && p[i].func; i++) {
		if (p[i].func == func && p[i].data == data && p[i].kind == kind)
			return i;
	}
	return -1;
}

/* Before an array is published: whether its one probe is a data probe. */
static void mark_only(struct slim_probe *p, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i].only = 0;
	if (n == 1 && p[0].kind == SLIM_PROBE_DATA)
		p[0].only = 1;
}

static void publish(struct slim_tracepoint *tp, struct slim_probe *new)
{
	struct slim_probe *old = tp->probes;

	slim_rcu_assign_pointer(tp->probes, new);
	slim_rcu_free(old, free);
}

SLIM_EXPORT int slim_tracepoint_probe_register(struct slim_tracepoint *tp,
					       slim_probe_func func,
					       void *data, int kind)
{
	struct slim_probe *old, *new;
	int n;

	if (!tp || !func || (kind != SLIM_PROBE_DATA && kind != SLIM_PROBE_NODATA))
		return -EINVAL;
	pthread_mutex_lock(&tp_mutex);
	old = tp->probes;
	if (probe_index(old, func, data, kind) >= 0) {
		pthread_mutex_unlock(&tp_mutex);
		return -EEXIST;
	}
	n = nr_probes(old);
	new = calloc(n + 2, sizeof(*new));
	if (!new) {
		pthread_mutex_unlock(&tp_mutex);
		return -ENOMEM;
	}
	/* The first probe: the event's reg() first, which may refuse it. */
	if (!n) {
		const struct slim_event_fns *fns = fns_of(tp);
		int ret = fns && fns->reg ? fns->reg() : 0;

		if (ret) {
			pthread_mutex_unlock(&tp_mutex);
			free(new);
			return ret < 0 ? ret : -EINVAL;
		}
	}
	if (n)
		memcpy(new, old, n * sizeof(*new));
	new[n] = (struct slim_probe){ .func = func, .data = data, .kind = kind };
	mark_only(new, n + 1);
	slim_rcu_assign_pointer(tp->probes, new);
	pthread_mutex_unlock(&tp_mutex);
	slim_rcu_free(old, free);
	return 0;
}

SLIM_EXPORT int slim_tracepoint_probe_unregister(struct slim_tracepoint *tp,
						 slim_probe_func func,
						 void *data, int kind)
{
	struct slim_probe *old, *new = NULL;
	int i, n;

	if (!tp || !func)
		return -EINVAL;
	pthread_mutex_lock(&tp_mutex);
	old = tp->probes;
	i = probe_index(old, func, data, kind);
	if (i < 0) {
		pthread_mutex_unlock(&tp_mutex);
		return -ENOENT;
	}
	n = nr_probes(old);
	if (n > 1) {
		new = calloc(n, sizeof(*new));
		if (!new) {
			pthread_mutex_unlock(&tp_mutex);
			return -ENOMEM;
		}
		memcpy(new, old, i * sizeof(*new));
		memcpy(new + i, old + i + 1, (n - i - 1) * sizeof(*new));
		mark_only(new, n - 1);
	}
	slim_rcu_assign_pointer(tp->probes, new);
	if (!new)
		last_probe_gone(tp);
	pthread_mutex_unlock(&tp_mutex);
	slim_rcu_free(old, free);
	return 0;
}

/* Detach everything: the tracepoint's object is being unloaded. */
void slim_tracepoint_release(struct slim_tracepoint *tp)
{
	pthread_mutex_lock(&tp_mutex);
	if (tp->probes) {
		publish(tp, NULL);
		last_probe_gone(tp);
	}
	pthread_mutex_unlock(&tp_mutex);
}
