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

/* What the registry knows of a loaded event (by id). */
struct slim_event_entry {
	struct slim_event *ev;
	const struct slim_event_desc *desc;
	const struct slim_event_class *class;
	const char *name;
	const struct slim_event_print *print;
	struct slim_event_funcs funcs;	/* the class's, with any override */
	int consumers;		/* slim_event_consumer() references */
	int was_enabled;	/* records of it may be in the buffers */
};

#define SLIM_MAX_EVENT_ID	0xffff

/* With slim_event_mutex held. */
const struct slim_event_entry *slim_event_entry(const struct slim_event *ev);
int slim_event_enable_locked(struct slim_event *ev, int enable);
int slim_max_event_id(void);
struct slim_event *slim_event_find_locked(const char *system, const char *name);

/* Replace ev's filter (NULL: none); mutex held. */
void slim_filter_set(struct slim_event *ev, struct slim_filter *filter);
void slim_filter_free_void(void *filter);

void slim_tracepoint_release(struct slim_tracepoint *tp);

/* Called by events.c for every newly loaded event, mutex held. */
void slim_ctl_event_loaded(struct slim_event *ev);
/* Called when events that may have records are unloaded. */
void slim_buffers_reset(void);

#pragma GCC visibility pop

#endif
