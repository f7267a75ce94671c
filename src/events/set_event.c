// SPDX-License-Identifier: MIT
/*
 * set_event matching, with the kernel's rules: "sys:event", "sys:*",
 * "*:event", "*:*", a bare word that names an event or a system, "*",
 * and a leading '!' to disable.  Names compare exactly.
 */
#include <string.h>
#include "events/set_event.h"

static int part_matches(const char *pat, size_t n, const char *name)
{
	if (n == 1 && pat[0] == '*')
		return 1;
	return strlen(name) == n && strncmp(pat, name, n) == 0;
}

int slim_set_event_matches(const struct slim_event *ev, const char *spec)
{
	const char *name = slim_event_name(ev);
	const char *system = slim_event_system(ev);
	const char *colon;
	size_t n;

	if (!name || !system)
		return 0;
	spec += strspn(spec, " \t");
	n = strcspn(spec, " \t\n");
	colon = memchr(spec, ':', n);
	if (!colon)
		return part_matches(spec, n, name) || part_matches(spec, n, system);
	return part_matches(spec, colon - spec, system) &&
	       part_matches(colon + 1, n - (colon + 1 - spec), name);
}
