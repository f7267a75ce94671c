// SPDX-License-Identifier: MIT
/*
 * Consumers (<slimtrace/consumer.h>): callbacks that are targets of an
 * event, found again by (event, fn, data) as probes are.  A consumer's
 * filter is compiled against the event's fields once, at attach; a
 * refused one is reported in the top level's error_log, as the kernel
 * reports a perf filter in its tracing error log.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <slimtrace/consumer.h>
#include "core/internal.h"
#include "events/target.h"
#include "filter/filter.h"
#include "session/consumer.h"
#include "session/instance.h"

#define FILTER_LOC	"consumer filter parse error"

static struct slim_target *find(const struct slim_event *ev, slim_consumer_fn fn, void *data)
{
	const struct slim_targets *ts = ev->targets;
	unsigned int i;

	for (i = 0; ts && i < ts->nr; i++) {
		struct slim_target *t = ts->t[i];

		if (t->kind == SLIM_TARGET_CALLBACK && t->fn == (slim_target_fn)fn &&
		    t->data == data)
			return t;
	}
	return NULL;
}

static int compile(struct slim_event *ev, const char *filter, struct slim_filter **f)
{
	struct slim_filter_error err;
	int ret;

	*f = NULL;
	if (!filter || !filter[strspn(filter, " \t\n")])
		return 0;
	memset(&err, 0, sizeof(err));
	ret = slim_filter_compile(slim_event_fields(ev), filter, f, &err);
	if (ret == -EINVAL)
		slim_error_log(&slim_instance_top.log, FILTER_LOC,
			       err.msg[0] ? err.msg : "Error", filter,
			       err.msg[0] ? err.pos : -1);
	return ret;
}

static int attach_locked(struct slim_event *ev, slim_consumer_fn fn, void *data,
			 const char *filter)
{
	struct slim_target *t;
	struct slim_filter *f;
	int ret;

	if (!fn)
		return -EINVAL;
	if (!slim_event_entry(ev))
		return -ENOENT;
	if (find(ev, fn, data))
		return -EEXIST;
	ret = compile(ev, filter, &f);
	if (ret)
		return ret;
	t = calloc(1, sizeof(*t));
	if (!t) {
		slim_filter_free(f);
		return -ENOMEM;
	}
	t->kind = SLIM_TARGET_CALLBACK;
	t->flags = SLIM_TARGET_FL_CALLBACK;
	t->fn = (slim_target_fn)fn;
	t->data = data;
	if (f) {
		t->filter = f;
		t->flags |= SLIM_TARGET_FL_FILTERED;
	}
	ret = slim_event_target_add(ev, t);
	if (ret) {
		/* Never published, or unpublished with a grace period behind it. */
		slim_filter_free(f);
		free(t);
	}
	return ret;
}

static void target_free(void *p)
{
	struct slim_target *t = p;

	slim_filter_free(t->filter);
	free(t);
}

static int detach_locked(struct slim_event *ev, slim_consumer_fn fn, void *data)
{
	struct slim_target *t;

	if (!slim_event_entry(ev))
		return -ENOENT;
	t = find(ev, fn, data);
	if (!t)
		return -ENOENT;
	slim_event_target_del(ev, t);
	/* Waits for every probe that may still be calling it. */
	slim_rcu_free(t, target_free);
	return 0;
}

/* "sys:event", or a bare event name. */
static struct slim_event *by_name(const char *name)
{
	const char *colon;
	char sys[256];
	size_t n;

	if (!name)
		return NULL;
	colon = strchr(name, ':');
	if (!colon)
		return slim_event_find_locked(NULL, name);
	n = (size_t)(colon - name);
	if (n >= sizeof(sys))
		return NULL;
	memcpy(sys, name, n);
	sys[n] = '\0';
	return slim_event_find_locked(sys, colon + 1);
}

SLIM_EXPORT int slim_consumer_attach(struct slim_event *ev, slim_consumer_fn fn,
				     void *data, const char *filter)
{
	int ret;

	pthread_mutex_lock(&slim_event_mutex);
	ret = attach_locked(ev, fn, data, filter);
	pthread_mutex_unlock(&slim_event_mutex);
	return ret;
}

SLIM_EXPORT int slim_consumer_attach_name(const char *name, slim_consumer_fn fn,
					  void *data, const char *filter)
{
	struct slim_event *ev;
	int ret;

	pthread_mutex_lock(&slim_event_mutex);
	ev = by_name(name);
	ret = ev ? attach_locked(ev, fn, data, filter) : -ENOENT;
	pthread_mutex_unlock(&slim_event_mutex);
	return ret;
}

SLIM_EXPORT int slim_consumer_detach(struct slim_event *ev, slim_consumer_fn fn,
				     void *data)
{
	int ret;

	pthread_mutex_lock(&slim_event_mutex);
	ret = detach_locked(ev, fn, data);
	pthread_mutex_unlock(&slim_event_mutex);
	return ret;
}

SLIM_EXPORT int slim_consumer_detach_name(const char *name, slim_consumer_fn fn,
					  void *data)
{
	struct slim_event *ev;
	int ret;

	pthread_mutex_lock(&slim_event_mutex);
	ev = by_name(name);
	ret = ev ? detach_locked(ev, fn, data) : -ENOENT;
	pthread_mutex_unlock(&slim_event_mutex);
	return ret;
}

SLIM_EXPORT int slim_consumer_stats(struct slim_event *ev, slim_consumer_fn fn,
				    void *data, struct slim_consumer_stats *st)
{
	struct slim_target *t;

	pthread_mutex_lock(&slim_event_mutex);
	t = slim_event_entry(ev) ? find(ev, fn, data) : NULL;
	if (t) {
		/* Passed before hits: a count taken while threads fire stays below. */
		st->passed = __atomic_load_n(&t->passed, __ATOMIC_ACQUIRE);
		st->lost = __atomic_load_n(&t->lost, __ATOMIC_ACQUIRE);
		st->hits = __atomic_load_n(&t->hits, __ATOMIC_ACQUIRE);
	}
	pthread_mutex_unlock(&slim_event_mutex);
	return t ? 0 : -ENOENT;
}

/* An event's object is unloaded: its consumers go with it. */
static void event_unloading(struct slim_event *ev, void *arg)
{
	const struct slim_targets *ts;

	(void)arg;
	while ((ts = ev->targets) && ts->nr > ts->nr_buffers) {
		struct slim_target *t = ts->t[ts->nr - 1];

		slim_event_target_del(ev, t);
		slim_rcu_free(t, target_free);
	}
}

static struct slim_event_observer observer = {
	.unloading = event_unloading,
};

__attribute__((constructor(101))) static void consumers_init(void)
{
	slim_event_observer_add(&observer);
}

/* For classes whose reg() attaches a consumer (eprobes): mutex held. */
int slim_consumer_attach_locked(struct slim_event *ev, slim_consumer_fn fn, void *data)
{
	return attach_locked(ev, fn, data, NULL);
}

int slim_consumer_detach_locked(struct slim_event *ev, slim_consumer_fn fn, void *data)
{
	return detach_locked(ev, fn, data);
}
