// SPDX-License-Identifier: MIT
/*
 * Enabling: which targets an event feeds, and the class's reg() calls
 * that follow from it.
 *
 * An event's targets are an array replaced as a whole (never edited in
 * place) and published with RCU, as probe arrays are.  The class's reg()
 * is refcounted by kind: REGISTER when the first buffer target arrives,
 * UNREGISTER when the last leaves, PERF_REGISTER/PERF_UNREGISTER for
 * callbacks.  The event's flags word says which paths are registered.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "buffers/buffer.h"
#include "core/internal.h"
#include "events/target.h"
#include "filter/filter.h"

static int call_reg(struct slim_event *ev, enum slim_reg type)
{
	const struct slim_event_class *class = slim_event_class(ev);

	if (!class)
		return -ENOENT;
	return class->reg ? class->reg(ev, type) : slim_event_reg(ev, type);
}

/*
 * The default reg().  A class without a perf_probe records for its
 * consumers from its one probe: that probe stays attached while either
 * path is registered.
 */
SLIM_EXPORT int slim_event_reg(struct slim_event *ev, enum slim_reg type)
{
	const struct slim_event_class *class = slim_event_class(ev);
	unsigned int flags;
	slim_probe_func fn;
	int other;

	if (!class)
		return -ENOENT;
	flags = SLIM_READ_ONCE(ev->flags);
	switch (type) {
	case SLIM_REG_REGISTER:
	case SLIM_REG_UNREGISTER:
		fn = class->probe;
		other = !class->perf_probe && (flags & SLIM_EVENT_FL_CONSUMER);
		break;
	case SLIM_REG_PERF_REGISTER:
	case SLIM_REG_PERF_UNREGISTER:
		fn = class->perf_probe ? class->perf_probe : class->probe;
		other = !class->perf_probe && (flags & SLIM_EVENT_FL_ENABLED);
		break;
	default:
		return -EINVAL;
	}
	if (!fn)
		return -EOPNOTSUPP;
	/* The shared probe is already there, or must stay for the other path. */
	if (other)
		return 0;
	if (type == SLIM_REG_REGISTER || type == SLIM_REG_PERF_REGISTER)
		return slim_tracepoint_probe_register(&ev->tp, fn, ev, SLIM_PROBE_DATA);
	return slim_tracepoint_probe_unregister(&ev->tp, fn, ev, SLIM_PROBE_DATA);
}

/* targets->fast when there is no fast target: its flags send it slow. */
static struct slim_target slim_target_slow = { .flags = SLIM_ABI_TARGET_SLOW };
/* Its fast word: gen 0 with the off bit, which no slot holds. */
static const uint32_t slim_fast_word_none = SLIM_ABI_FAST_OFF;

static struct slim_targets *targets_alloc(unsigned int nr)
{
	return calloc(1, sizeof(struct slim_targets) + nr * sizeof(struct slim_target *));
}

static unsigned int count_buffers(const struct slim_targets *ts)
{
	return ts ? ts->nr_buffers : 0;
}

static unsigned int count_callbacks(const struct slim_targets *ts)
{
	return ts ? ts->nr - ts->nr_buffers : 0;
}

/* Publish ts as ev's targets; the old array goes after a grace period. */
static void publish(struct slim_event *ev, struct slim_targets *ts)
{
	const struct slim_event_class *class = slim_event_class(ev);
	struct slim_targets *old = (struct slim_targets *)ev->targets;

	if (ts) {
		ts->nr_buffers = 0;
		while (ts->nr_buffers < ts->nr &&
		       ts->t[ts->nr_buffers]->kind == SLIM_TARGET_BUFFERS)
			ts->nr_buffers++;
		ts->probe_end = class && class->perf_probe ? ts->nr_buffers : ts->nr;
		ts->fast = ts->probe_end == 1 && ts->nr_buffers == 1 ?
			   ts->t[0] : &slim_target_slow;
		ts->fast_word = &slim_fast_word_none;
		ts->fast_slot = 0;
		if (ts->fast != &slim_target_slow)
			slim_bufset_fast_key(ts->fast->bufs, &ts->fast_word, &ts->fast_slot);
		if (!ts->nr) {
			free(ts);
			ts = NULL;
		}
	}
	slim_rcu_assign_pointer(ev->targets, ts);
	slim_rcu_free(old, free);
}

int slim_event_has_target(const struct slim_event *ev, const struct slim_target *t)
{
	const struct slim_targets *ts = ev->targets;
	unsigned int i;

	for (i = 0; ts && i < ts->nr; i++) {
		if (ts->t[i] == t)
			return 1;
	}
	return 0;
}

static void set_flag(struct slim_event *ev, unsigned int flag, int on)
{
	if (on)
		__atomic_fetch_or(&ev->flags, flag, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&ev->flags, ~flag, __ATOMIC_RELAXED);
}

int slim_event_target_add(struct slim_event *ev, struct slim_target *t)
{
	const struct slim_targets *old = ev->targets;
	unsigned int nr = old ? old->nr : 0, at, i;
	int first, ret;
	struct slim_targets *ts;

	if (!slim_event_class(ev))
		return -ENOENT;
	if (slim_event_has_target(ev, t))
		return -EEXIST;
	ts = targets_alloc(nr + 1);
	if (!ts)
		return -ENOMEM;
	/* Buffer targets first: a class with its own perf_probe walks only them. */
	at = t->kind == SLIM_TARGET_BUFFERS ? count_buffers(old) : nr;
	for (i = 0; i < at; i++)
		ts->t[i] = old->t[i];
	ts->t[at] = t;
	for (i = at; i < nr; i++)
		ts->t[i + 1] = old->t[i];
	ts->nr = nr + 1;
	first = t->kind == SLIM_TARGET_BUFFERS ? !count_buffers(old) : !count_callbacks(old);
	publish(ev, ts);
	if (!first)
		return 0;
	if (t->kind == SLIM_TARGET_BUFFERS) {
		ret = call_reg(ev, SLIM_REG_REGISTER);
		if (!ret) {
			set_flag(ev, SLIM_EVENT_FL_ENABLED, 1);
			slim_event_note_recorded(ev);
		}
	} else {
		ret = call_reg(ev, SLIM_REG_PERF_REGISTER);
		if (!ret)
			set_flag(ev, SLIM_EVENT_FL_CONSUMER, 1);
	}
	if (ret)
		slim_event_target_del(ev, t);
	return ret;
}

int slim_event_target_del(struct slim_event *ev, struct slim_target *t)
{
	const struct slim_targets *old = ev->targets;
	struct slim_targets *ts;
	unsigned int i, j;
	int last, ret = 0;

	if (!slim_event_has_target(ev, t))
		return -ENOENT;
	ts = targets_alloc(old->nr);
	if (!ts)
		return -ENOMEM;
	for (i = j = 0; i < old->nr; i++) {
		if (old->t[i] != t)
			ts->t[j++] = old->t[i];
	}
	ts->nr = j;
	last = t->kind == SLIM_TARGET_BUFFERS ? count_buffers(old) == 1 :
						count_callbacks(old) == 1;
	publish(ev, ts);
	if (!last)
		return 0;
	/* Registered only if the first one's reg() succeeded. */
	if (t->kind == SLIM_TARGET_BUFFERS && (ev->flags & SLIM_EVENT_FL_ENABLED)) {
		ret = call_reg(ev, SLIM_REG_UNREGISTER);
		set_flag(ev, SLIM_EVENT_FL_ENABLED, 0);
	} else if (t->kind == SLIM_TARGET_CALLBACK && (ev->flags & SLIM_EVENT_FL_CONSUMER)) {
		ret = call_reg(ev, SLIM_REG_PERF_UNREGISTER);
		set_flag(ev, SLIM_EVENT_FL_CONSUMER, 0);
	}
	return ret;
}

/* The filter the fast path's commit may run without asking for triggers. */
static void update_commit_filter(struct slim_target *t)
{
	slim_rcu_assign_pointer(t->commit_filter, t->cond_triggers ? NULL : t->filter);
}

/* Publish a new filter (or none); the old one goes after a grace period. */
void slim_target_set_filter(struct slim_target *t, struct slim_filter *filter)
{
	struct slim_filter *old = t->filter;

	if (filter) {
		slim_rcu_assign_pointer(t->filter, filter);
		update_commit_filter(t);
		__atomic_fetch_or(&t->flags, SLIM_TARGET_FL_FILTERED, __ATOMIC_RELEASE);
	} else {
		/* The commit still has triggers to run. */
		if (!t->cond_triggers)
			__atomic_fetch_and(&t->flags, ~SLIM_TARGET_FL_FILTERED, __ATOMIC_RELEASE);
		slim_rcu_assign_pointer(t->filter, NULL);
		update_commit_filter(t);
	}
	slim_rcu_free(old, slim_filter_free_void);
}

/*
 * FILTERED sends the commit to the library, the fast path's too, which
 * then runs the triggers before the filter: with only triggers that
 * have a filter, an event keeps its fast path.
 */
void slim_target_set_cond_triggers(struct slim_target *t, int on)
{
	__atomic_store_n(&t->cond_triggers, on, __ATOMIC_RELEASE);
	update_commit_filter(t);
	if (on)
		__atomic_fetch_or(&t->flags, SLIM_TARGET_FL_FILTERED, __ATOMIC_RELEASE);
	else if (!t->filter)
		__atomic_fetch_and(&t->flags, ~SLIM_TARGET_FL_FILTERED, __ATOMIC_RELEASE);
}

void slim_filter_free_void(void *filter)
{
	slim_filter_free(filter);
}
