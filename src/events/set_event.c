// SPDX-License-Identifier: MIT
/*
 * set_event matching, with the kernel's rules: "sys:event", "sys:*",
 * "*:event", "*:*", a bare word that names an event or a system, "*",
 * and a leading '!' to disable.  Names compare exactly.
 */
#include <errno.h>
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

struct apply_arg {
	const char *spec;
	int enable;
	int matched;
	int err;
};

static int apply_one(struct slim_event *ev, void *arg)
{
	struct apply_arg *a = arg;
	int ret;

	if (!slim_set_event_matches(ev, a->spec))
		return 0;
	a->matched++;
	ret = slim_event_enable_locked(ev, a->enable);
	if (ret && !a->err)
		a->err = ret;
	return 0;
}

/* One token, slim_event_mutex held: 0, or -EINVAL when nothing matched. */
int slim_set_event_apply(const char *token)
{
	struct apply_arg a = { .spec = token, .enable = 1 };

	token += strspn(token, " \t");
	if (*token == '!') {
		a.enable = 0;
		token++;
	}
	a.spec = token;
	if (!*token)
		return 0;
	slim_event_for_each(apply_one, &a);
	if (!a.matched)
		return -EINVAL;
	return a.err;
}
