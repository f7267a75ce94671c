// SPDX-License-Identifier: MIT
/*
 * The event registry: events are found, not registered.  Each loaded
 * object announces its "slim_events" and "slim_tracepoints" sections
 * (the constructor CREATE_TRACE_POINTS generates); its events get ids
 * then and lose them when the object is unloaded, as kernel modules'
 * events do.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slimtrace/output.h>
#include "core/fork.h"
#include "core/internal.h"
#include "events/eval_map.h"

pthread_mutex_t slim_event_mutex = PTHREAD_MUTEX_INITIALIZER;

static void fork_lock(void)
{
	pthread_mutex_lock(&slim_event_mutex);
}

static void fork_unlock(void)
{
	pthread_mutex_unlock(&slim_event_mutex);
}

static struct slim_fork_hook fork_hook = {
	SLIM_FORK_EVENTS, fork_lock, fork_unlock, fork_unlock, NULL
};

__attribute__((constructor(101))) static void registry_init(void)
{
	slim_fork_hook_add(&fork_hook);
}

/* One loaded object's sections. */
struct object {
	struct slim_object_sections s;
	int refs;
	struct object *next;
};

static struct object *objects;
/* Indexed by id; allocated once, never moved, so readers need no lock. */
static struct slim_event_entry *entries;
static int max_id;
static struct slim_event_observer *observers;

/* Observers hear of every event, those loaded before they came included. */
void slim_event_observer_add(struct slim_event_observer *o)
{
	int id;

	pthread_mutex_lock(&slim_event_mutex);
	o->next = observers;
	observers = o;
	for (id = 1; id <= max_id && o->loaded; id++) {
		if (entries[id].ev && !entries[id].internal)
			o->loaded(entries[id].ev, o->arg);
	}
	pthread_mutex_unlock(&slim_event_mutex);
}

static void notify(struct slim_event *ev, int loaded)
{
	struct slim_event_observer *o;

	for (o = observers; o; o = o->next) {
		if (loaded && o->loaded)
			o->loaded(ev, o->arg);
		else if (!loaded && o->unloading)
			o->unloading(ev, o->arg);
	}
}

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
	/* An unloaded event's id stays taken while its records may be read. */
	for (id = 1; id <= SLIM_MAX_EVENT_ID; id++) {
		if (!entries[id].ev && !entries[id].ghost)
			return id;
	}
	return -ENOSPC;
}

/* ---- kept entries of unloaded events ------------------------------------ */

/* Bytes of a field table's strings blob that its fields use. */
static size_t strings_len(const struct slim_field_table *t)
{
	size_t n = strlen(t->strings) + 1;	/* the system name opens it */
	unsigned int i;

	for (i = 0; i < t->nr_fields; i++) {
		const struct slim_field *f = &t->fields[i];
		size_t end = f->type + strlen(t->strings + f->type) + 1;

		if (end > n)
			n = end;
		end = f->name + strlen(t->strings + f->name) + 1;
		if (end > n)
			n = end;
	}
	return n;
}

static const struct slim_field_table *entry_fields(const struct slim_event_entry *e)
{
	return e->class->get_fields ? e->class->get_fields(e->ev) : &e->class->fields;
}

/* The `format` text of entry e as if its id were id. */
static char *format_text(const struct slim_event_entry *e, int id)
{
	const char *pf = e->print_fmt ? e->print_fmt :
			 e->print ? e->print->print_fmt :
			 e->class->fields.strings + e->class->print_fmt;
	struct slim_seq s;

	slim_seq_init_dynamic(&s);
	slim_format_print(&s, e->name, id, entry_fields(e), pf);
	if (s.overflow) {
		slim_seq_free(&s);
		return NULL;
	}
	return s.buf;
}

static void ghost_free(struct slim_event_ghost *g)
{
	if (!g)
		return;
	free(g->system);
	free(g->name);
	free(g->format);
	free((char *)g->fields.strings);
	free((struct slim_field *)g->fields.fields);
	free(g);
}

static struct slim_event_ghost *ghost_make(const struct slim_event_entry *e, int id)
{
	const struct slim_field_table *t = entry_fields(e);
	struct slim_event_ghost *g = calloc(1, sizeof(*g));
	size_t n = t ? strings_len(t) : 0;
	char *strings = malloc(n ? n : 1);
	struct slim_field *fields = calloc(t && t->nr_fields ? t->nr_fields : 1, sizeof(*fields));

	if (!g || !strings || !fields || !t) {
		free(strings);
		free(fields);
		free(g);
		return NULL;
	}
	memcpy(strings, t->strings, n);
	memcpy(fields, t->fields, t->nr_fields * sizeof(*fields));
	g->fields = *t;
	g->fields.strings = strings;
	g->fields.fields = fields;
	g->system = strdup(e->class->fields.strings);
	g->name = strdup(e->name);
	g->format = format_text(e, id);
	if (!g->system || !g->name || !g->format) {
		ghost_free(g);
		return NULL;
	}
	return g;
}

const struct slim_event_ghost *slim_event_ghost(int id)
{
	if (id <= 0 || id > SLIM_MAX_EVENT_ID || !entries)
		return NULL;
	return entries[id].ghost;
}

int slim_event_ghost_for_each(int (*fn)(int id, const struct slim_event_ghost *g, void *arg),
			      void *arg)
{
	int id, ret = 0;

	for (id = 1; id <= max_id && !ret; id++) {
		if (entries[id].ghost)
			ret = fn(id, entries[id].ghost, arg);
	}
	return ret;
}

/* The kept entry of this same event (name, system, format), if any. */
static int ghost_id(const struct slim_event_entry *e)
{
	char *fmt;
	int id;

	for (id = 1; id <= max_id; id++) {
		struct slim_event_ghost *g = entries[id].ghost;
		int same;

		if (!g || strcmp(g->name, e->name) != 0 ||
		    strcmp(g->system, e->class->fields.strings) != 0)
			continue;
		/* The format names the id: compare with this one's under it. */
		fmt = format_text(e, id);
		same = fmt && strcmp(fmt, g->format) == 0;
		free(fmt);
		if (same)
			return id;
	}
	return 0;
}

/* TRACE_EVENT_FN's functions of ev, if it has them. */
static const struct slim_event_fns *find_fns(const struct object *o, const struct slim_event *ev)
{
	const struct slim_event_fns *f;

	for (f = o->s.fns_start; f && f < o->s.fns_stop; f++) {
		if (f->event == ev)
			return f;
	}
	return NULL;
}

/* The print fmt as the format file shows it: enum values in place of names. */
static void eval_print_fmt(const struct object *o, struct slim_event_entry *e)
{
	const char *fmt = e->print ? e->print->print_fmt :
			  e->class->fields.strings + e->class->print_fmt;

	e->print_fmt = slim_eval_print_fmt(fmt, e->class->fields.strings,
					   o->s.maps_start, o->s.maps_stop);
}

/* Gives e (filled in but for its id) an id and announces it; 0 or -errno. */
static int add_entry(struct slim_event_entry *tmpl, const struct slim_event_fns *fns)
{
	struct slim_event *ev = tmpl->ev;
	struct slim_event_entry *e;
	int id = alloc_id(), reuse;

	if (id < 0) {
		fprintf(stderr, "slimtrace: no id left for event %s\n", tmpl->name);
		free(tmpl->print_fmt);
		return id;
	}
	e = &entries[id];
	*e = *tmpl;
	e->funcs = e->class->funcs;
	if (e->print)
		e->funcs.trace = e->print->trace;
	ev->event.type = id;
	reuse = ghost_id(e);
	if (reuse) {
		/* The same event again: its old records decode as its new ones. */
		ghost_free(entries[reuse].ghost);
		entries[reuse] = *e;
		memset(e, 0, sizeof(*e));
		e = &entries[reuse];
		e->ghost = NULL;
		e->was_enabled = 1;
		id = reuse;
	}
	ev->event.type = id;
	if (e->class->raw_init && e->class->raw_init(ev) < 0) {
		fprintf(stderr, "slimtrace: could not initialize event %s:%s\n",
			e->class->fields.strings, e->name);
		ev->event.type = 0;
		free(e->print_fmt);
		memset(e, 0, sizeof(*e));
		return -EINVAL;
	}
	slim_tracepoint_set_fns(&ev->tp, fns);
	if (id > max_id)
		max_id = id;
	/* No instance, consumer or eprobe may take an internal event. */
	if (!e->internal)
		notify(ev, 1);
	return 0;
}

static void add_event(const struct object *o, const struct slim_event_desc *d)
{
	struct slim_event *ev = (struct slim_event *)slim_rel_mut(&d->event);
	struct slim_event_entry e = {
		.ev = ev, .desc = d, .name = slim_rel(&d->name),
		.class = desc_getter(d)(),
		.print = slim_rel(&d->print),
	};

	eval_print_fmt(o, &e);
	add_entry(&e, find_fns(o, ev));
}

/* A dynamic event (src/dynevent/): no object, no section entry. */
int slim_registry_add_event(struct slim_event *ev, const char *name,
			    const struct slim_event_class *class)
{
	struct slim_event_entry e = { .ev = ev, .name = name, .class = class };

	return add_entry(&e, NULL);
}

int slim_registry_add_internal(struct slim_event *ev, const char *name,
			       const struct slim_event_class *class)
{
	struct slim_event_entry e = { .ev = ev, .name = name, .class = class, .internal = 1 };

	return add_entry(&e, NULL);
}

int slim_event_is_internal(const struct slim_event *ev)
{
	const struct slim_event_entry *e = slim_event_entry(ev);

	return e && e->internal;
}

int slim_event_internal_for_each(int (*fn)(struct slim_event *ev, void *arg), void *arg)
{
	int id, ret = 0;

	for (id = 1; id <= max_id && !ret; id++) {
		if (entries[id].ev && entries[id].internal)
			ret = fn(entries[id].ev, arg);
	}
	return ret;
}

static void remove_entry(struct slim_event *ev)
{
	struct slim_event_ghost *ghost;
	struct slim_event_entry *e;
	int id = ev->event.type;

	if (id <= 0)
		return;
	e = &entries[id];
	/* Instances and consumers let go of it first. */
	notify(ev, 0);
	slim_tracepoint_release(&ev->tp);
	/*
	 * Unlike the kernel on module unload, records stay: the id stays
	 * taken and what they need to be read is kept (or, out of memory,
	 * they read as of an unknown event).
	 */
	ghost = e->was_enabled ? ghost_make(e, id) : NULL;
	slim_tracepoint_set_fns(&ev->tp, NULL);
	free(e->print_fmt);
	memset(e, 0, sizeof(*e));
	e->ghost = ghost;
	ev->event.type = 0;
	while (max_id > 0 && !entries[max_id].ev && !entries[max_id].ghost)
		max_id--;
}

static void remove_event(const struct slim_event_desc *d)
{
	remove_entry((struct slim_event *)slim_rel_mut(&d->event));
}

void slim_registry_remove_event(struct slim_event *ev)
{
	remove_entry(ev);
}

static struct object *find_object(const struct slim_event_desc *ev_start,
				  const struct slim_tracepoint_desc *tp_start)
{
	struct object *o;

	for (o = objects; o; o = o->next) {
		if (o->s.ev_start == ev_start && o->s.tp_start == tp_start)
			return o;
	}
	return NULL;
}

void slim_registry_add(const struct slim_object_sections *s)
{
	const struct slim_event_desc *d;
	struct object *o;

	pthread_mutex_lock(&slim_event_mutex);
	o = find_object(s->ev_start, s->tp_start);
	if (o) {
		o->refs++;
		goto out;
	}
	o = calloc(1, sizeof(*o));
	if (!o) {
		fprintf(stderr, "slimtrace: out of memory loading events\n");
		goto out;
	}
	/* An object built with fewer members leaves the rest empty. */
	memcpy(&o->s, s, s->size < sizeof(o->s) ? s->size : sizeof(o->s));
	o->refs = 1;
	o->next = objects;
	objects = o;
	for (d = o->s.ev_start; d && d < o->s.ev_stop; d++)
		add_event(o, d);
out:
	pthread_mutex_unlock(&slim_event_mutex);
}

void slim_registry_remove(const struct slim_event_desc *ev_start,
			  const struct slim_tracepoint_desc *tp_start)
{
	const struct slim_tracepoint_desc *t;
	const struct slim_event_desc *d;
	struct object *o, **p;

	pthread_mutex_lock(&slim_event_mutex);
	o = find_object(ev_start, tp_start);
	if (!o || --o->refs > 0)
		goto out;
	for (p = &objects; *p != o; p = &(*p)->next)
		;
	*p = o->next;
	for (d = o->s.ev_start; d && d < o->s.ev_stop; d++)
		remove_event(d);
	for (t = o->s.tp_start; t && t < o->s.tp_stop; t++)
		slim_tracepoint_release(slim_tracepoint_desc_tp(t));
	free(o);
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
	if (e->print_fmt)
		return e->print_fmt;
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

static struct slim_event *find_locked(const char *system, const char *name, int internal)
{
	int id;

	for (id = 1; name && id <= max_id; id++) {
		struct slim_event_entry *e = &entries[id];

		if (e->ev && (internal || !e->internal) && strcmp(e->name, name) == 0 &&
		    (!system || strcmp(e->class->fields.strings, system) == 0))
			return e->ev;
	}
	return NULL;
}

struct slim_event *slim_event_find_locked(const char *system, const char *name)
{
	return find_locked(system, name, 0);
}

int slim_event_name_taken_locked(const char *system, const char *name)
{
	return find_locked(system, name, 1) != NULL;
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
		if (entries[id].ev && !entries[id].internal)
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
		for (t = o->s.tp_start; t && t < o->s.tp_stop; t++) {
			if (strcmp(slim_tracepoint_desc_name(t), name) == 0) {
				tp = slim_tracepoint_desc_tp(t);
				break;
			}
		}
	}
	for (id = 1; id <= max_id && !tp; id++) {
		if (entries[id].ev && !entries[id].internal &&
		    strcmp(entries[id].name, name) == 0)
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

SLIM_EXPORT const struct slim_event_funcs *slim_event_funcs(const struct slim_event *ev)
{
	const struct slim_event_entry *e = slim_event_entry(ev);

	return e ? &e->funcs : NULL;
}

void slim_event_note_recorded(const struct slim_event *ev)
{
	struct slim_event_entry *e = (struct slim_event_entry *)slim_event_entry(ev);

	if (e)
		e->was_enabled = 1;
}
