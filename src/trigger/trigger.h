/* SPDX-License-Identifier: MIT */
/*
 * Event triggers: events/<sys>/<ev>/trigger (src/trigger/trigger.c).
 *
 * An event file's triggers are a callback target of the event, so an
 * event with triggers runs them whether or not it is recorded anywhere,
 * and an event without triggers pays nothing new on its record path.
 * Callers hold slim_event_mutex.
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

#pragma GCC visibility pop

#endif
