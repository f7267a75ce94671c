// SPDX-License-Identifier: MIT
/*
 * Start-up: the library's entry point at every object's load, and the
 * top-level instance configured from the environment before main(),
 * with no code change in the program.
 *
 *   SLIMTRACE_EVENTS    set_event words, applied to every event as it
 *                       loads (shared objects opened later included)
 *   SLIMTRACE_FILTER    sys:event:EXPR entries separated by ';', likewise
 *   SLIMTRACE_BUFFER_KB buffer_size_kb
 *   SLIMTRACE_CLOCK     trace_clock
 *   SLIMTRACE_OVERWRITE the overwrite option (0 or 1)
 *   SLIMTRACE_OUTPUT    record to this trace.dat
 *   SLIMTRACE_OUTPUT_PER_PROCESS  ...to OUTPUT.PID, for every process (record.c)
 *
 * Event settings reach events through a registry observer, which also
 * hears of the events loaded before it; recording starts here, outside
 * the registry's lock.  Start-up runs once, before the first object's
 * events are registered: slim_object_register() is what every
 * object's generated constructor calls, so it is the one entry that is
 * always linked, statically too.
 */
#include <ctype.h>
#include <pthread.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slimtrace/ctl.h>
#include <slimtrace/record.h>
#include "buffers/buffer.h"
#include "core/clock.h"
#include "ctl/parse.h"
#include "events/set_event.h"
#include "session/instance.h"

static char *env_events;
static char *env_filters;

/* SLIMTRACE_FILTER: "sys:event:EXPR" entries separated by ';'. */
static void apply_env_filters(struct slim_event *ev)
{
	const char *e, *colon1, *colon2;
	size_t n, len;
	char spec[256], *expr;

	for (e = env_filters; e && *e; e += n + (e[n] == ';')) {
		n = strcspn(e, ";");
		colon1 = memchr(e, ':', n);
		colon2 = colon1 ? memchr(colon1 + 1, ':', n - (colon1 + 1 - e)) : NULL;
		if (!colon2 || (size_t)(colon2 - e) >= sizeof(spec)) {
			fprintf(stderr, "slimtrace: SLIMTRACE_FILTER: expected sys:event:filter in '%.*s'\n",
				(int)n, e);
			continue;
		}
		len = colon2 - e;
		memcpy(spec, e, len);
		spec[len] = '\0';
		if (!slim_set_event_matches(ev, spec))
			continue;
		expr = strndup(colon2 + 1, n - len - 1);
		if (expr && slim_event_filter_write(&slim_instance_top, ev, expr) != 0)
			fprintf(stderr, "slimtrace: SLIMTRACE_FILTER: filter '%s' refused for %s:%s (see error_log)\n",
				expr, slim_event_system(ev), slim_event_name(ev));
		free(expr);
	}
}

/* Each event as it loads; slim_event_mutex held. */
static void event_loaded(struct slim_event *ev, void *arg)
{
	const char *spec;
	char word[256];
	size_t n;

	(void)arg;
	apply_env_filters(ev);
	for (spec = env_events; spec && *spec; spec += n) {
		spec += strspn(spec, ", \t\n");
		n = strcspn(spec, ", \t\n");
		if (!n || n >= sizeof(word))
			continue;
		memcpy(word, spec, n);
		word[n] = '\0';
		if (word[0] == '!') {
			if (slim_set_event_matches(ev, word + 1))
				slim_instance_enable(&slim_instance_top, ev, 0);
		} else if (slim_set_event_matches(ev, word)) {
			slim_instance_enable(&slim_instance_top, ev, 1);
		}
	}
}

static struct slim_event_observer observer = {
	.loaded = event_loaded,
};

static void read_buffers(void)
{
	const char *v = getenv("SLIMTRACE_BUFFER_KB");
	unsigned int pages;
	const char *why;
	int ret;

	/* The limits and messages of the buffer_size_kb file. */
	if (v && *v) {
		ret = slim_parse_buffer_kb(v, &pages, &why);
		if (!ret && (ret = slim_bufset_resize(&slim_bufset_top, pages)))
			why = strerror(-ret);
		if (ret)
			fprintf(stderr, "slimtrace: SLIMTRACE_BUFFER_KB='%s': %s; keeping %u KiB\n",
				v, why, slim_bufset_top.pages * 4);
	}
	v = getenv("SLIMTRACE_OVERWRITE");
	if (v && *v)
		slim_bufset_set_overwrite(&slim_bufset_top, strcmp(v, "0") != 0);
}

static void read_clock(void)
{
	const char *v = getenv("SLIMTRACE_CLOCK");
	int id;

	if (!v || !*v)
		return;
	id = slim_clock_lookup(v);
	if (id < 0)
		fprintf(stderr, "slimtrace: SLIMTRACE_CLOCK: no clock '%s'\n", v);
	else
		slim_bufset_top.clock = id;
}

static void env_init(void)
{
	const char *v;
	char *out;
	int ret;

	slim_clock_init();
	v = getenv("SLIMTRACE_EVENTS");
	if (v && *v)
		env_events = strdup(v);
	v = getenv("SLIMTRACE_FILTER");
	if (v && *v)
		env_filters = strdup(v);
	read_buffers();
	read_clock();
	if (env_events || env_filters)
		slim_event_observer_add(&observer);
	v = getenv("SLIMTRACE_OUTPUT");
	out = v ? strdup(v) : NULL;
	ret = slim_record_env_start();
	if (ret < 0)
		fprintf(stderr, "slimtrace: SLIMTRACE_OUTPUT: cannot record to '%s': %s\n",
			out ? out : "", strerror(-ret));
	free(out);
}

static pthread_once_t startup_once = PTHREAD_ONCE_INIT;

/*
 * The control endpoint (src/live/endpoint.c) starts itself and nothing
 * calls it: this reference keeps it in a static link that has events.
 */
extern const char slim_endpoint_linked;
static const char *const keep_endpoint __attribute__((used)) = &slim_endpoint_linked;

/*
 * Referenced by modules whose API is an entry of its own (dynamic
 * events, defined without any compiled event): in a static link they
 * pull this file in, so the environment is read and the endpoint runs.
 */
const char slim_startup_linked = 1;

/* Before the program's own constructors where the linker allows. */
__attribute__((constructor(101))) static void startup(void)
{
	pthread_once(&startup_once, env_init);
}

SLIM_EXPORT void slim_object_register(const struct slim_object_sections *s)
{
	startup();
	slim_registry_add(s);
}

/* Objects built before the fns and eval map sections call this one. */
SLIM_EXPORT void slim_sections_register(const struct slim_event_desc *ev_start,
					const struct slim_event_desc *ev_stop,
					const struct slim_tracepoint_desc *tp_start,
					const struct slim_tracepoint_desc *tp_stop)
{
	const struct slim_object_sections s = {
		offsetof(struct slim_object_sections, fns_start),
		ev_start, ev_stop, tp_start, tp_stop, NULL, NULL, NULL, NULL,
	};

	slim_object_register(&s);
}

SLIM_EXPORT void slim_sections_unregister(const struct slim_event_desc *ev_start,
					  const struct slim_tracepoint_desc *tp_start)
{
	slim_registry_remove(ev_start, tp_start);
}
