/* SPDX-License-Identifier: MIT */
#ifndef SLIM_SET_EVENT_H
#define SLIM_SET_EVENT_H

#include "core/internal.h"

/* Internal: reached directly, not through the GOT, from the library. */
#pragma GCC visibility push(hidden)

/* Does ev match a set_event word (without its '!')? */
int slim_set_event_matches(const struct slim_event *ev, const char *spec);

#pragma GCC visibility pop

#endif
