/* SPDX-License-Identifier: MIT */
/* Consumers from inside the library (src/session/consumer.c). */
#ifndef SLIM_SESSION_CONSUMER_H
#define SLIM_SESSION_CONSUMER_H

#include <slimtrace/consumer.h>

#pragma GCC visibility push(hidden)

/*
 * slim_consumer_attach()/detach() for a caller that holds
 * slim_event_mutex: a class's reg() (an eprobe attaching to its source).
 */
int slim_consumer_attach_locked(struct slim_event *ev, slim_consumer_fn fn, void *data);
int slim_consumer_detach_locked(struct slim_event *ev, slim_consumer_fn fn, void *data);

#pragma GCC visibility pop

#endif
