/* SPDX-License-Identifier: MIT */
/*
 * Event triggers: events/<sys>/<ev>/trigger (src/trigger/trigger.c).
 *
 * An event file's triggers run on the file's own target, flagged
 * SLIM_TARGET_FL_TRIGGER, by the record path (src/events/emit.c): an
 * event file without triggers pays nothing new.  Callers of the control
 * functions hold slim_event_mutex; the record side runs in the
 * tracepoint's read-side section.
 */
#ifndef SLIM_TRIGGER_TRIGGER_H
#define SLIM_TRIGGER_TRIGGER_H

#include "session/instance.h"

#pragma GCC visibility push(hidden)

/* One command ("traceoff:3 if a == 1", "!traceon"); append 0: clear first. */
int slim_trigger_write(struct slim_instance *inst, struct slim_event *ev,
		       const char *text, int append);
int slim_trigger_print(struct slim_instance *inst, struct slim_event *ev,
		       struct slim_seq *s);

/*
 * The record side, for a target flagged SLIM_TARGET_FL_TRIGGER.  Before
 * anything is reserved: run the triggers without a filter (but the post
 * one); 1 if some trigger must see the record.
 */
int slim_triggers_pre(struct slim_target *t);
/*
 * The record filled, before its commit: run those with a filter that
 * matches (comm: the thread's, for COMM; NULL: its buffer's in the
 * file's instance, looked up if needed); the post trigger to run after
 * the commit (slim_triggers_post), or NULL.
 */
void *slim_triggers_cond(struct slim_target *t, const void *rec, unsigned int len,
			 const char *comm);
void slim_triggers_post(void *post);

#pragma GCC visibility pop

#endif
