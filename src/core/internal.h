/* SPDX-License-Identifier: MIT */
/* Declarations shared by the library's source files; not installed. */
#ifndef SLIM_INTERNAL_H
#define SLIM_INTERNAL_H

#include <pthread.h>
#include <slimtrace/tracepoint.h>
#include <slimtrace/event.h>

/* Internal: reached directly, not through the GOT, from the library. */
#pragma GCC visibility push(hidden)

/* The kernel's event_mutex: control paths that walk or change events. */
extern pthread_mutex_t slim_event_mutex;

/*
 * An unloaded event whose records may still be in buffers: its id stays
 * taken, and what readers need to name and decode its records is copied
 * out of the object that is gone.  The same event loading again (same
 * system, name and format) takes its id back.
 */
struct slim_event_ghost {
	char *system, *name;
	char *format;			/* the `format` file's text */
	struct slim_field_table fields;	/* a copy: strings and fields */
};

/* What the registry knows of a loaded event (by id). */
struct slim_event_entry {
	struct slim_event *ev;
	const struct slim_event_desc *desc;
	const struct slim_event_class *class;
	const char *name;
	const struct slim_event_print *print;
	char *print_fmt;	/* with TRACE_DEFINE_ENUM values, or NULL */
	struct slim_event_funcs funcs;	/* the class's, with any override */
	int was_enabled;	/* records of it may be in the buffers */
	int internal;		/* the library's own (ftrace:user_stack): hidden */
	struct slim_event_ghost *ghost;	/* ev == NULL: unloaded, records kept */
};

#define SLIM_MAX_EVENT_ID	0xffff

/* With slim_event_mutex held. */
const struct slim_event_entry *slim_event_entry(const struct slim_event *ev);
int slim_max_event_id(void);
struct slim_event *slim_event_find_locked(const char *system, const char *name);
/* Records of ev may now be in some buffers. */
void slim_event_note_recorded(const struct slim_event *ev);
/* The unloaded event whose records carry id, or NULL. */
const struct slim_event_ghost *slim_event_ghost(int id);
/* Every unloaded event with records, in id order, until fn returns nonzero. */
int slim_event_ghost_for_each(int (*fn)(int id, const struct slim_event_ghost *g, void *arg),
			      void *arg);

/*
 * Observers of the registry: told of every event loaded (those loaded
 * before the observer came included) and of every event about to be
 * unloaded, with slim_event_mutex held.  An observer must not load or
 * unload objects, nor start threads that take the mutex and wait.
 */
struct slim_event_observer {
	void (*loaded)(struct slim_event *ev, void *arg);
	void (*unloading)(struct slim_event *ev, void *arg);
	void *arg;
	struct slim_event_observer *next;
};
void slim_event_observer_add(struct slim_event_observer *o);

/* One loaded object's sections (slim_object_register() after start-up). */
void slim_registry_add(const struct slim_object_sections *s);
void slim_registry_remove(const struct slim_event_desc *ev_start,
			  const struct slim_tracepoint_desc *tp_start);

/*
 * One event made at run time (src/dynevent/), with slim_event_mutex
 * held: an id, observers told, as a loaded object's event; name and
 * class must live until slim_registry_remove_event().  0 or -errno.
 */
int slim_registry_add_event(struct slim_event *ev, const char *name,
			    const struct slim_event_class *class);
void slim_registry_remove_event(struct slim_event *ev);

/*
 * An event the library writes itself, as the kernel's ftrace internal
 * events (events/ftrace/user_stack...): it has an id, and its format
 * goes into trace.dat's ftrace section, so that readers can decode its
 * records; but no one can enable it, filter it or attach to it.  So
 * observers are not told of it, and slim_event_for_each(),
 * slim_event_find() and slim_tracepoint_find() do not see it (nor
 * available_events, set_event, the enable files or the events/ tree,
 * which are built on them).  It is never removed.  Held mutex; 0 or -errno.
 */
int slim_registry_add_internal(struct slim_event *ev, const char *name,
			       const struct slim_event_class *class);
int slim_event_is_internal(const struct slim_event *ev);
/* A name a new event may not take: a user's event's or an internal one's. */
int slim_event_name_taken_locked(const char *system, const char *name);
/* Every internal event, in id order, until fn returns nonzero. */
int slim_event_internal_for_each(int (*fn)(struct slim_event *ev, void *arg), void *arg);

void slim_filter_free_void(void *filter);

void slim_tracepoint_release(struct slim_tracepoint *tp);
/*
 * TRACE_EVENT_FN: reg() before tp's first probe, unreg() after its last
 * (NULL fns: forget them).  Called by the registry as events come and go.
 */
void slim_tracepoint_set_fns(struct slim_tracepoint *tp, const struct slim_event_fns *fns);

#pragma GCC visibility pop

#endif
