// SPDX-License-Identifier: MIT
/*
 * The event registry: events are found, not registered.  Each loaded
 * object announces its "slim_events" and "slim_tracepoints" sections
 * (the constructor CREATE_TRACE_POINTS generates); its events get ids
 * then and lose them when the object is unloaded, as kernel modules'
 * events do.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "filter/filter.h"

pthread_mutex_t slim_event_mutex = PTHREAD_MUTEX_INITIALIZER;

/* One loaded object's sections. */
struct object {
	const struct slim_event_desc *ev_start, *ev_stop;
	const struct slim_tracepoint_desc *tp_start, *tp_stop;
	int refs;
	struct object *next;
};

static struct object *objects;
/* Indexed by id; allocated once, never moved, so readers need no lock. */
static struct slim_event_entry *entries;
static int max_id;

static int call_reg(struct slim_event *ev, enum slim_reg type);

static slim_class_getter desc_getter(const struct slim_event_desc *d)
{
	return (slim_class_getter)(uintptr_t)slim_rel(&d->class);
}

static int alloc_id(void)
{
	int id;

	if (!entries) {
		entries = calloc(SLIM_MAX_EVENT_ID + 1, sizeof(*entries));
		if (!entries)
			return -ENOMEM;
	}
	for (id = 1; id <= SLIM_MAX_EVENT_ID; id++) {
		if (!entries[id].ev)
			return id;
	}
	return -ENOSPC;
}

static void add_event(const struct slim_event_desc *d)
{
	struct slim_event *ev = (struct slim_event *)slim_rel(&d->event);
	const char *name = slim_rel(&d->name);
	struct slim_event_entry *e;
	int id = alloc_id();

	if (id < 0) {
		fprintf(stderr, "slimtrace: no id left for event %s\n", name);
		return;
	}
	e = &entries[id];
	*e = (struct slim_event_entry){
		.ev = ev, .desc = d, .name = name,
		.class = desc_getter(d)(),
		.print = slim_rel(&d->print),
	};
	e->funcs = e->class->funcs;
	if (e->print)
		e->funcs.trace = e->print->trace;
	ev->event.type = id;
	if (e->class->raw_init && e->class->raw_init(ev) < 0) {
		fprintf(stderr, "slimtrace: could not initialize event %s:%s\n",
			e->class->fields.strings, name);
		ev->event.type = 0;
		memset(e, 0, sizeof(*e));
		return;
	}
	if (id > max_id)
		max_id = id;
	slim_ctl_event_loaded(ev);
}

static void remove_event(const struct slim_event_desc *d, int *reset)
{
	struct slim_event *ev = (struct slim_event *)slim_rel(&d->event);
	struct slim_event_entry *e;
	int id = ev->event.type;

	if (id <= 0)
		return;
	e = &entries[id];
	slim_event_enable_locked(ev, 0);
	if (e->consumers > 0)
		call_reg(ev, SLIM_REG_PERF_UNREGISTER);
	if (e->was_enabled)
		*reset = 1;
	slim_filter_set(ev, NULL);
	slim_tracepoint_release(&ev->tp);
	memset(e, 0, sizeof(*e));
	ev->event.type = 0;
	while (max_id > 0 && !entries[max_id].ev)
		max_id--;
}

static struct object *find_object(const struct slim_event_desc *ev_start,
				  const struct slim_tracepoint_desc *tp_start)
{
	struct object *o;

	for (o = objects; o; o = o->next) {
		if (o->ev_start == ev_start && o->tp_start == tp_start)
			return o;
	}
	return NULL;
}

SLIM_EXPORT void slim_sections_register(const struct slim_event_desc *ev_start,
					const struct slim_event_desc *ev_stop,
					const struct slim_tracepoint_desc *tp_start,
					const struct slim_tracepoint_desc *tp_stop)
{
	const struct slim_event_desc *d;
	struct object *o;

	pthread_mutex_lock(&slim_event_mutex);
	o = find_object(ev_start, tp_start);
	if (o) {
		o->refs++;
		goto out;
	}
	o = calloc(1, sizeof(*o));
	if (!o) {
		fprintf(stderr, "slimtrace: out of memory loading events\n");
		goto out;
	}
	*o = (struct object){ ev_start, ev_stop, tp_start, tp_stop, 1, objects };
	objects = o;
	for (d = ev_start; d && d < ev_stop; d++)
		add_event(d);
out:
	pthread_mutex_unlock(&slim_event_mutex);
}

SLIM_EXPORT void slim_sections_unregister(const struct slim_event_desc *ev_start,
					  const struct slim_tracepoint_desc *tp_start)
{
	const struct slim_tracepoint_desc *t;
	const struct slim_event_desc *d;
	struct object *o, **p;
	int reset = 0;

	pthread_mutex_lock(&slim_event_mutex);
	o = find_object(ev_start, tp_start);
	if (!o || --o->refs > 0)
		goto out;
	for (p = &objects; *p != o; p = &(*p)->next)
		;
	*p = o->next;
	for (d = o->ev_start; d && d < o->ev_stop; d++)
		remove_event(d, &reset);
	for (t = o->tp_start; t && t < o->tp_stop; t++)
		slim_tracepoint_release(slim_tracepoint_desc_tp(t));
	free(o);
	/* Like the kernel on module unload: records of gone events go too. */
	if (reset)
		slim_buffers_reset();
out:
	pthread_mutex_unlock(&slim_event_mutex);
}

const struct slim_event_entry *slim_event_entry(const struct slim_event *ev)
{
	int id = ev ? ev->event.type : 0;

	if (id <= 0 || id > SLIM_MAX_EVENT_ID || !entries || entries[id].ev != ev)
		return NULL;
	return &entries[id];
}

int slim_max_event_id(void)
{
	return max_id;
}

SLIM_EXPORT struct slim_event *slim_event_by_id(int id)
{
	if (id <= 0 || id > SLIM_MAX_EVENT_ID || !entries)
		return NULL;
	return entries[id].ev;
}

SLIM_EXPORT const char *slim_event_name(const struct slim_event *ev)
{
	const struct slim_event_entry *e = slim_event_entry(ev);

	return e ? e->name : NULL;
}

SLIM_EXPORT const struct slim_event_class *slim_event_class(const struct slim_event *ev)
{
	const struct slim_event_entry *e = slim_event_entry(ev);

	return e ? e->class : NULL;
}

SLIM_EXPORT const char *slim_event_system(const struct slim_event *ev)
{
	const struct slim_event_entry *e = slim_event_entry(ev);

	/* The system name opens the class's strings. */
	return e ? e->class->fields.strings : NULL;
}

SLIM_EXPORT const char *slim_event_print_fmt(const struct slim_event *ev)
{
	const struct slim_event_entry *e = slim_event_entry(ev);

	if (!e)
		return NULL;
	if (e->print)
		return e->print->print_fmt;
	return e->class->fields.strings + e->class->print_fmt;
}

SLIM_EXPORT const struct slim_field_table *slim_event_fields(const struct slim_event *ev)
{
	const struct slim_event_entry *e = slim_event_entry(ev);

	if (!e)
		return NULL;
	if (e->class->get_fields)
		return e->class->get_fields(ev);
	return &e->class->fields;
}

struct slim_event *slim_event_find_locked(const char *system, const char *name)
{
	int id;

	for (id = 1; name && id <= max_id; id++) {
		struct slim_event_entry *e = &entries[id];

		if (e->ev && strcmp(e->name, name) == 0 &&
		    (!system || strcmp(e->class->fields.strings, system) == 0))
			return e->ev;
	}
	return NULL;
}

SLIM_EXPORT struct slim_event *slim_event_find(const char *system, const char *name)
{
	struct slim_event *found;

	pthread_mutex_lock(&slim_event_mutex);
	found = slim_event_find_locked(system, name);
	pthread_mutex_unlock(&slim_event_mutex);
	return found;
}

SLIM_EXPORT int slim_event_for_each(int (*fn)(struct slim_event *ev, void *arg), void *arg)
{
	int id, ret = 0;

	for (id = 1; id <= max_id && !ret; id++) {
		if (entries[id].ev)
			ret = fn(entries[id].ev, arg);
	}
	return ret;
}

SLIM_EXPORT struct slim_tracepoint *slim_tracepoint_find(const char *name)
{
	const struct slim_tracepoint_desc *t;
	struct slim_tracepoint *tp = NULL;
	struct object *o;
	int id;

	if (!name)
		return NULL;
	pthread_mutex_lock(&slim_event_mutex);
	for (o = objects; o && !tp; o = o->next) {
		for (t = o->tp_start; t && t < o->tp_stop; t++) {
			if (strcmp(slim_tracepoint_desc_name(t), name) == 0) {
				tp = slim_tracepoint_desc_tp(t);
				break;
			}
		}
	}
	for (id = 1; id <= max_id && !tp; id++) {
		if (entries[id].ev && strcmp(entries[id].name, name) == 0)
			tp = &entries[id].ev->tp;
	}
	pthread_mutex_unlock(&slim_event_mutex);
	return tp;
}

/* By name, like the kernel's tracepoint_probe_register(name, probe, data). */
SLIM_EXPORT int slim_tracepoint_probe_register_name(const char *name,
						    slim_probe_func func,
						    void *data)
{
	struct slim_tracepoint *tp = slim_tracepoint_find(name);

	if (!tp)
		return name ? -ENOENT : -EINVAL;
	return slim_tracepoint_probe_register(tp, func, data, SLIM_PROBE_DATA);
}

SLIM_EXPORT int slim_tracepoint_probe_unregister_name(const char *name,
						      slim_probe_func func,
						      void *data)
{
	struct slim_tracepoint *tp = slim_tracepoint_find(name);

	if (!tp)
		return name ? -ENOENT : -EINVAL;
	return slim_tracepoint_probe_unregister(tp, func, data, SLIM_PROBE_DATA);
}

SLIM_EXPORT int slim_event_reg(struct slim_event *ev, enum slim_reg type)
{
	const struct slim_event_class *class = slim_event_class(ev);

	if (!class)
		return -ENOENT;
	switch (type) {
	case SLIM_REG_REGISTER:
		return slim_tracepoint_probe_register(&ev->tp, class->probe, ev,
						      SLIM_PROBE_DATA);
	case SLIM_REG_UNREGISTER:
		return slim_tracepoint_probe_unregister(&ev->tp, class->probe, ev,
							SLIM_PROBE_DATA);
	case SLIM_REG_PERF_REGISTER:
		if (!class->perf_probe)
			return -EOPNOTSUPP;
		return slim_tracepoint_probe_register(&ev->tp, class->perf_probe,
						      ev, SLIM_PROBE_DATA);
	case SLIM_REG_PERF_UNREGISTER:
		if (!class->perf_probe)
			return -EOPNOTSUPP;
		return slim_tracepoint_probe_unregister(&ev->tp, class->perf_probe,
							ev, SLIM_PROBE_DATA);
	}
	return -EINVAL;
}

static int call_reg(struct slim_event *ev, enum slim_reg type)
{
	const struct slim_event_class *class = slim_event_class(ev);

	if (!class)
		return -ENOENT;
	return class->reg ? class->reg(ev, type) : slim_event_reg(ev, type);
}

int slim_event_enable_locked(struct slim_event *ev, int enable)
{
	struct slim_event_entry *e = (struct slim_event_entry *)slim_event_entry(ev);
	unsigned int flags;
	int ret;

	if (!e)
		return -ENOENT;
	flags = SLIM_READ_ONCE(ev->flags);
	if (enable && !(flags & SLIM_EVENT_FL_ENABLED)) {
		ret = call_reg(ev, SLIM_REG_REGISTER);
		if (ret)
			return ret;
		__atomic_fetch_or(&ev->flags, SLIM_EVENT_FL_ENABLED, __ATOMIC_RELAXED);
		e->was_enabled = 1;
	} else if (!enable && (flags & SLIM_EVENT_FL_ENABLED)) {
		ret = call_reg(ev, SLIM_REG_UNREGISTER);
		if (ret)
			return ret;
		__atomic_fetch_and(&ev->flags, ~SLIM_EVENT_FL_ENABLED, __ATOMIC_RELAXED);
	}
	return 0;
}

SLIM_EXPORT int slim_event_enable(struct slim_event *ev, int enable)
{
	int ret;

	pthread_mutex_lock(&slim_event_mutex);
	ret = slim_event_enable_locked(ev, enable);
	pthread_mutex_unlock(&slim_event_mutex);
	return ret;
}

SLIM_EXPORT int slim_event_consumer(struct slim_event *ev, int attach)
{
	struct slim_event_entry *e;
	int ret = 0;

	pthread_mutex_lock(&slim_event_mutex);
	e = (struct slim_event_entry *)slim_event_entry(ev);
	if (!e) {
		ret = -ENOENT;
	} else if (attach) {
		if (e->consumers == 0)
			ret = call_reg(ev, SLIM_REG_PERF_REGISTER);
		if (!ret && e->consumers++ == 0)
			__atomic_fetch_or(&ev->flags, SLIM_EVENT_FL_CONSUMER,
					  __ATOMIC_RELAXED);
	} else if (e->consumers == 0) {
		ret = -ENOENT;
	} else if (e->consumers == 1) {
		ret = call_reg(ev, SLIM_REG_PERF_UNREGISTER);
		if (!ret) {
			e->consumers = 0;
			__atomic_fetch_and(&ev->flags, ~SLIM_EVENT_FL_CONSUMER,
					   __ATOMIC_RELAXED);
		}
	} else {
		e->consumers--;
	}
	pthread_mutex_unlock(&slim_event_mutex);
	return ret;
}

SLIM_EXPORT const struct slim_event_funcs *slim_event_funcs(const struct slim_event *ev)
{
	const struct slim_event_entry *e = slim_event_entry(ev);

	return e ? &e->funcs : NULL;
}

/* Publish a new filter (or none) for ev; the old one goes after a grace period. */
void slim_filter_set(struct slim_event *ev, struct slim_filter *filter)
{
	struct slim_filter *old = ev->filter;

	if (filter) {
		slim_rcu_assign_pointer(ev->filter, filter);
		__atomic_fetch_or(&ev->flags, SLIM_EVENT_FL_FILTERED, __ATOMIC_RELEASE);
	} else {
		__atomic_fetch_and(&ev->flags, ~SLIM_EVENT_FL_FILTERED, __ATOMIC_RELEASE);
		slim_rcu_assign_pointer(ev->filter, NULL);
	}
	slim_rcu_free(old, slim_filter_free_void);
}

void slim_filter_free_void(void *filter)
{
	slim_filter_free(filter);
}
