/* SPDX-License-Identifier: MIT */
/* The filter files of events and systems (src/event_filter.c). */
#ifndef SLIM_EVENT_FILTER_H
#define SLIM_EVENT_FILTER_H

#include "core/internal.h"

/* Internal: reached directly, not through the GOT, from the library. */
#pragma GCC visibility push(hidden)

struct slim_seq;

/* events/<sys>/<ev>/filter; slim_event_mutex held. */
int slim_event_filter_write(struct slim_event *ev, const char *text);
int slim_event_filter_print(struct slim_event *ev, struct slim_seq *s);
/* events/<sys>/filter */
int slim_system_filter_write(const char *system, const char *text);
int slim_system_filter_print(const char *system, struct slim_seq *s);

#pragma GCC visibility pop

#endif
