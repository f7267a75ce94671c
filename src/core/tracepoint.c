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
	if (n)
		memcpy(new, old, n * sizeof(*new));
	new[n] = (struct slim_probe){ .func = func, .data = data, .kind = kind };
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
	}
	slim_rcu_assign_pointer(tp->probes, new);
	pthread_mutex_unlock(&tp_mutex);
	slim_rcu_free(old, free);
	return 0;
}

/* Detach everything: the tracepoint's object is being unloaded. */
void slim_tracepoint_release(struct slim_tracepoint *tp)
{
	pthread_mutex_lock(&tp_mutex);
	publish(tp, NULL);
	pthread_mutex_unlock(&tp_mutex);
}
