// SPDX-License-Identifier: MIT
/*
 * "tracefs, in your process": start-up configuration from the
 * environment.  SLIMTRACE_EVENTS holds set_event words separated by
 * commas or blanks; they apply to every event as it loads, including the
 * events of shared objects opened later.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "set_event.h"

static char *env_events;
static int env_read;

static const char *startup_events(void)
{
	const char *v;

	if (!env_read) {
		env_read = 1;
		v = getenv("SLIMTRACE_EVENTS");
		if (v && *v)
			env_events = strdup(v);
	}
	return env_events;
}

/* mutex held */
void slim_ctl_event_loaded(struct slim_event *ev)
{
	const char *spec = startup_events();
	char word[256];
	size_t n;

	while (spec && *spec) {
		spec += strspn(spec, ", \t\n");
		n = strcspn(spec, ", \t\n");
		if (!n)
			break;
		if (n < sizeof(word)) {
			memcpy(word, spec, n);
			word[n] = '\0';
			if (word[0] == '!') {
				if (slim_set_event_matches(ev, word + 1))
					slim_event_enable_locked(ev, 0);
			} else if (slim_set_event_matches(ev, word)) {
				slim_event_enable_locked(ev, 1);
			}
		}
		spec += n;
	}
}
