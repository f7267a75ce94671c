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
 *   SLIMTRACE_EVENTS_CHECK  0: say nothing of SLIMTRACE_EVENTS words that
 *                       matched no event (slimtrace record checks its -e
 *                       itself, from the file)
 *   SLIMTRACE_ERROR_FILE  append the refused filters (and the words that
 *                       matched nothing) to this file, one line each,
 *                       instead of saying them on stderr
 *
 * Event settings reach events through a registry observer, which also
 * hears of the events loaded before it; recording starts here, outside
 * the registry's lock.  Start-up runs once, before the first object's
 * events are registered: slim_object_register() is what every
 * object's generated constructor calls, so it is the one entry that is
 * always linked, statically too.
 *
 * No setting fails in silence.  A word of SLIMTRACE_EVENTS may match an
 * event of a library opened later, so whether it matched anything is
 * known only at exit: an atexit hook names the words that never did.
 * An event whose SLIMTRACE_FILTER entry is refused is not enabled at
 * all (it would record everything, unfiltered); the reason is said at
 * once, once per expression and reason, and the events refused after
 * the first are counted and summed up at exit.  The hook is the
 * process's own: a fork child that exits says nothing (its parent
 * will), and it reads only what is published with atomics, taking no
 * lock, so that it runs in any order with the recorder's own atexit
 * (src/record/record.c) and whatever another thread is loading.
 *
 * SLIMTRACE_ERROR_FILE lines are tab-separated, written with one
 * write(2) to a file opened O_APPEND, so that several processes can
 * share it (tabs and newlines in the text become blanks):
 *
 *   filter <TAB> SYS:EVENT <TAB> POS <TAB> REASON <TAB> EXPR
 *   events <TAB> WORD
 *
 * POS is the caret's column in EXPR (-1 for none); an "events" line is
 * a word that matched no event.
 */
#include <ctype.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <slimtrace/ctl.h>
#include <slimtrace/record.h>
#include "buffers/buffer.h"
#include "core/clock.h"
#include "ctl/error_log.h"
#include "ctl/parse.h"
#include "events/set_event.h"
#include "session/instance.h"

/* A word of SLIMTRACE_EVENTS, split once at start-up. */
struct env_word {
	char *text;		/* without its '!' */
	int exclude;
	int matched;		/* atomic: some event matched it */
};

/* A refused (expression, reason) of SLIMTRACE_FILTER: said once, then counted. */
struct refusal {
	char *expr, *reason;
	unsigned long events;		/* atomic: how many refused it */
	unsigned long last_load;	/* the load that counted it last */
	struct refusal *next;
};

static struct env_word *env_words;
static size_t nr_env_words;
static char *env_filters;
static char error_file[4096];		/* SLIMTRACE_ERROR_FILE, "": none */
static int check_words;			/* SLIMTRACE_EVENTS_CHECK is not 0 */
static pid_t owner;			/* whose environment this is */
/* Published with release stores; written under slim_event_mutex. */
static struct refusal *refusals;
static unsigned long loads;		/* events loaded: under slim_event_mutex */

static int split_words(const char *v)
{
	const char *spec;
	size_t n, nr = 0;
	int exclude;

	for (spec = v; *spec; spec += n) {
		spec += strspn(spec, ", \t\n");
		n = strcspn(spec, ", \t\n");
		nr += n != 0;
	}
	env_words = calloc(nr ? nr : 1, sizeof(*env_words));
	if (!env_words)
		return -ENOMEM;
	/* Counted as they are made: the observer reads only whole ones. */
	for (spec = v; *spec; spec += n) {
		spec += strspn(spec, ", \t\n");
		n = strcspn(spec, ", \t\n");
		if (!n)
			continue;
		exclude = spec[0] == '!';
		env_words[nr_env_words].exclude = exclude;
		env_words[nr_env_words].text = strndup(spec + exclude, n - exclude);
		if (!env_words[nr_env_words].text)
			return -ENOMEM;
		nr_env_words++;
	}
	return 0;
}

/* TEXT with the tabs and newlines that would split a line of the error file blanked. */
static void blank_controls(char *text)
{
	for (; *text; text++)
		if (*text == '\t' || *text == '\n' || *text == '\r')
			*text = ' ';
}

/* One line to SLIMTRACE_ERROR_FILE in one write(2); 0 or -errno. */
static int error_file_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int error_file_line(const char *fmt, ...)
{
	va_list ap;
	char *line;
	ssize_t w;
	int fd, n, ret = 0;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	fd = open(error_file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
	} else {
		w = write(fd, line, (size_t)n);
		if (w != n)
			ret = w < 0 ? -errno : -EIO;
		close(fd);
	}
	free(line);
	return ret;
}

/* The file cannot be had: say so once, and say the rest on stderr. */
static void error_file_failed(int err)
{
	fprintf(stderr, "slimtrace: SLIMTRACE_ERROR_FILE: cannot append to '%s': %s; "
		"saying it here instead\n", error_file, strerror(-err));
	error_file[0] = '\0';
}

/* The caret under EXPR, in error_log's layout, or nothing without a position. */
static void print_command(const char *expr, int pos)
{
	int len = (int)strlen(expr);

	fprintf(stderr, "  Command: %s\n", expr);
	if (pos >= 0)
		fprintf(stderr, "%*s^\n", 11 + (pos < len ? pos : len), "");
}

/* EXPR refused for EV (why, pos as error_log has them); slim_event_mutex held. */
static void filter_refused(struct slim_event *ev, const char *expr, const char *why, int pos)
{
	struct refusal *r;
	char *e, *w;
	int ret;

	for (r = refusals; r; r = r->next)
		if (!strcmp(r->expr, expr) && !strcmp(r->reason, why))
			break;
	/* A bare word names an event twice (sys:* and *:ev): count it once. */
	if (r && r->last_load == loads)
		return;
	if (error_file[0]) {
		e = strdup(expr);
		w = strdup(why);
		ret = e && w ? 0 : -ENOMEM;
		if (!ret) {
			blank_controls(e);
			blank_controls(w);
			ret = error_file_line("filter\t%s:%s\t%d\t%s\t%s\n", slim_event_system(ev),
					      slim_event_name(ev), pos, w, e);
		}
		free(e);
		free(w);
		if (!ret)
			goto count;
		error_file_failed(ret);
	}
	if (!r || !r->events) {
		fprintf(stderr, "slimtrace: SLIMTRACE_FILTER: filter '%s' refused for %s:%s, "
			"which is not enabled: %s\n", expr, slim_event_system(ev),
			slim_event_name(ev), why);
		print_command(expr, pos);
	}
count:
	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r)
			return;
		r->expr = strdup(expr);
		r->reason = strdup(why);
		if (!r->expr || !r->reason) {
			free(r->expr);
			free(r->reason);
			free(r);
			return;
		}
		r->next = refusals;
		__atomic_store_n(&refusals, r, __ATOMIC_RELEASE);
	}
	r->last_load = loads;
	__atomic_fetch_add(&r->events, 1, __ATOMIC_RELAXED);
}

/*
 * SLIMTRACE_FILTER: "sys:event:EXPR" entries separated by ';'.  How many
 * of those that name EV were refused.
 */
static int apply_env_filters(struct slim_event *ev)
{
	const struct slim_error_log *log = &slim_instance_top.log;
	const struct slim_error_entry *last;
	const char *e, *colon1, *colon2, *why;
	unsigned int logged;
	size_t n, len;
	char spec[256], *expr;
	int ret, pos, refused = 0;

	for (e = env_filters; e && *e; e += n + (e[n] == ';')) {
		n = strcspn(e, ";");
		colon1 = memchr(e, ':', n);
		colon2 = colon1 ? memchr(colon1 + 1, ':', n - (colon1 + 1 - e)) : NULL;
		if (!colon2 || (size_t)(colon2 - e) >= sizeof(spec)) {
			/* Said once, at the first event, not at every one. */
			if (loads == 1)
				fprintf(stderr, "slimtrace: SLIMTRACE_FILTER: expected sys:event:filter "
					"in '%.*s'\n", (int)n, e);
			continue;
		}
		len = colon2 - e;
		memcpy(spec, e, len);
		spec[len] = '\0';
		if (!slim_set_event_matches(ev, spec))
			continue;
		expr = strndup(colon2 + 1, n - len - 1);
		if (!expr) {
			refused++;
			continue;
		}
		logged = log->nr;
		ret = slim_event_filter_write(&slim_instance_top, ev, expr);
		if (ret) {
			/* The reason and caret error_log took; -ENOMEM logs nothing. */
			why = strerror(-ret);
			pos = -1;
			if (log->nr != logged) {
				last = &log->e[(log->nr - 1) % SLIM_ERROR_LOG_ENTRIES];
				if (last->msg)
					why = last->msg;
				pos = last->pos;
			}
			filter_refused(ev, expr, why, pos);
			refused++;
		}
		free(expr);
	}
	return refused;
}

/* Each event as it loads; slim_event_mutex held. */
static void event_loaded(struct slim_event *ev, void *arg)
{
	struct env_word *w;
	int refused;

	(void)arg;
	loads++;
	refused = apply_env_filters(ev);
	for (w = env_words; w && w < env_words + nr_env_words; w++) {
		if (!slim_set_event_matches(ev, w->text))
			continue;
		if (w->exclude) {
			slim_instance_enable(&slim_instance_top, ev, 0);
			continue;
		}
		__atomic_store_n(&w->matched, 1, __ATOMIC_RELAXED);
		/* Unfiltered, it would record what the filter was to keep out. */
		if (!refused)
			slim_instance_enable(&slim_instance_top, ev, 1);
	}
}

/*
 * At exit: the words that never matched, and how many events each
 * refused filter kept from recording.  Reads only atomics and what they
 * publish: another thread may still be loading events.
 */
static void env_at_exit(void)
{
	struct refusal *r;
	unsigned long n;
	size_t i, j;
	int ret;

	if (getpid() != owner)
		return;
	for (i = 0; check_words && i < nr_env_words; i++) {
		if (env_words[i].exclude || __atomic_load_n(&env_words[i].matched, __ATOMIC_RELAXED))
			continue;
		/* A word given twice is named once. */
		for (j = 0; j < i && (env_words[j].exclude ||
				      strcmp(env_words[j].text, env_words[i].text)); j++)
			;
		if (j < i)
			continue;
		if (error_file[0]) {
			ret = error_file_line("events\t%s\n", env_words[i].text);
			if (!ret)
				continue;
			error_file_failed(ret);
		}
		fprintf(stderr, "slimtrace: SLIMTRACE_EVENTS: '%s' matched no event of this program "
			"(nor of the libraries it loaded)\n", env_words[i].text);
	}
	if (error_file[0])
		return;
	for (r = __atomic_load_n(&refusals, __ATOMIC_ACQUIRE); r; r = r->next) {
		n = __atomic_load_n(&r->events, __ATOMIC_RELAXED);
		if (n > 1)
			fprintf(stderr, "slimtrace: SLIMTRACE_FILTER: filter '%s' was refused by %lu "
				"events (%s): none of them was enabled\n", r->expr, n, r->reason);
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
	else {
		slim_bufset_top.clock = id;
		slim_bufset_clock_sync(&slim_bufset_top);
	}
}

static void env_init(void)
{
	const char *v;
	char *out;
	int ret;

	slim_clock_init();
	owner = getpid();
	v = getenv("SLIMTRACE_EVENTS");
	if (v && *v && split_words(v))
		fprintf(stderr, "slimtrace: SLIMTRACE_EVENTS: %s\n", strerror(ENOMEM));
	v = getenv("SLIMTRACE_FILTER");
	if (v && *v)
		env_filters = strdup(v);
	v = getenv("SLIMTRACE_ERROR_FILE");
	if (v && strlen(v) < sizeof(error_file))
		strcpy(error_file, v);
	else if (v)
		fprintf(stderr, "slimtrace: SLIMTRACE_ERROR_FILE: the path is too long\n");
	v = getenv("SLIMTRACE_EVENTS_CHECK");
	check_words = !v || strcmp(v, "0");
	read_buffers();
	read_clock();
	if (nr_env_words || env_filters) {
		slim_event_observer_add(&observer);
		/* Before recording starts: the file is finished before this speaks. */
		atexit(env_at_exit);
	}
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
