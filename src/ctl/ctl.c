// SPDX-License-Identifier: MIT
/*
 * "tracefs, in your process": the control files by path.
 *
 * Each file is a read handler and a write handler; a path names a file
 * at the top (trace, set_event...), of the event tree (events/enable),
 * of a system (events/<sys>/enable|filter) or of an event
 * (events/<sys>/<event>/enable|filter|format|id).  Every call holds
 * slim_event_mutex, the kernel's event_mutex.  A refused write changes
 * nothing and says why in error_log.
 *
 * The environment configures a program at start-up: SLIMTRACE_EVENTS
 * (set_event words) and SLIMTRACE_FILTER (sys:event:expression entries)
 * apply to every event as it loads, including those of shared objects
 * opened later; SLIMTRACE_OUTPUT records to a trace.dat; docs/ctl.md
 * lists the others.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slimtrace/ctl.h>
#include <slimtrace/output.h>
#include "buffers/buffer.h"
#include "core/clock.h"
#include "ctl/error_log.h"
#include "filter/event_filter.h"
#include "record/record.h"
#include "events/set_event.h"
#include "text/trace_file.h"

/* What a path names. */
struct ctl_target {
	const char *system;		/* events/<sys>/... */
	struct slim_event *ev;		/* events/<sys>/<ev>/... */
	const char *file;		/* the last component */
	const char *path;		/* as given, for error_log */
};

struct ctl_file {
	const char *name;
	int (*read)(struct ctl_target *t, struct slim_seq *s);
	int (*write)(struct ctl_target *t, const char *text, int append);
};

/* ---- helpers ----------------------------------------------------------- */

/* Text without the blanks and newline that echo leaves around it. */
static char *stripped(const char *text)
{
	size_t n;

	while (isspace((unsigned char)*text))
		text++;
	n = strlen(text);
	while (n && isspace((unsigned char)text[n - 1]))
		n--;
	return strndup(text, n);
}

static int refuse(struct ctl_target *t, int err, const char *msg,
		  const char *cmd, int pos)
{
	slim_error_log(t->path, msg, cmd, pos);
	return err;
}

/* "0" or "1": 0 or 1; anything else -1. */
static int parse_bool(const char *text)
{
	char *v = stripped(text);
	int ret = -1;

	if (v && strcmp(v, "0") == 0)
		ret = 0;
	else if (v && strcmp(v, "1") == 0)
		ret = 1;
	free(v);
	return ret;
}

static int in_system(const struct slim_event *ev, const char *system)
{
	return !system || strcmp(slim_event_system(ev), system) == 0;
}

/* ---- events: enable ---------------------------------------------------- */

struct enable_state {
	const char *system;
	int on, off;
};

static int count_enabled(struct slim_event *ev, void *arg)
{
	struct enable_state *st = arg;

	if (!in_system(ev, st->system))
		return 0;
	if (SLIM_READ_ONCE(ev->flags) & SLIM_EVENT_FL_ENABLED)
		st->on++;
	else
		st->off++;
	return 0;
}

static int read_enable(struct ctl_target *t, struct slim_seq *s)
{
	struct enable_state st = { .system = t->system };

	if (t->ev)
		return slim_seq_printf(s, "%d\n",
			!!(SLIM_READ_ONCE(t->ev->flags) & SLIM_EVENT_FL_ENABLED));
	slim_event_for_each(count_enabled, &st);
	if (st.on && st.off)
		return slim_seq_puts(s, "X\n");
	return slim_seq_printf(s, "%d\n", st.on ? 1 : 0);
}

struct set_state {
	const char *system;
	int enable, err;
};

static int set_enabled(struct slim_event *ev, void *arg)
{
	struct set_state *st = arg;
	int ret;

	if (!in_system(ev, st->system))
		return 0;
	ret = slim_event_enable_locked(ev, st->enable);
	if (ret && !st->err)
		st->err = ret;
	return 0;
}

static int write_enable(struct ctl_target *t, const char *text, int append)
{
	struct set_state st = { .system = t->system };

	(void)append;
	st.enable = parse_bool(text);
	if (st.enable < 0)
		return refuse(t, -EINVAL, "Invalid value: expected 0 or 1", text, 0);
	if (t->ev)
		return slim_event_enable_locked(t->ev, st.enable);
	slim_event_for_each(set_enabled, &st);
	return st.err;
}

/* ---- events: id, format, filter ---------------------------------------- */

static int read_id(struct ctl_target *t, struct slim_seq *s)
{
	return slim_seq_printf(s, "%d\n", t->ev->event.type);
}

static int read_format(struct ctl_target *t, struct slim_seq *s)
{
	return slim_format_print(s, slim_event_name(t->ev), t->ev->event.type,
				 slim_event_fields(t->ev),
				 slim_event_print_fmt(t->ev));
}

static int read_filter(struct ctl_target *t, struct slim_seq *s)
{
	if (t->ev)
		return slim_event_filter_print(t->ev, s);
	return slim_system_filter_print(t->system, s);
}

static int write_filter(struct ctl_target *t, const char *text, int append)
{
	(void)append;
	if (t->ev)
		return slim_event_filter_write(t->ev, text);
	return slim_system_filter_write(t->system, text);
}

/* ---- available_events, set_event --------------------------------------- */

static int print_name(struct slim_event *ev, void *arg)
{
	slim_seq_printf(arg, "%s:%s\n", slim_event_system(ev), slim_event_name(ev));
	return 0;
}

static int print_enabled(struct slim_event *ev, void *arg)
{
	if (SLIM_READ_ONCE(ev->flags) & SLIM_EVENT_FL_ENABLED)
		print_name(ev, arg);
	return 0;
}

static int read_available(struct ctl_target *t, struct slim_seq *s)
{
	(void)t;
	return slim_event_for_each(print_name, s);
}

static int read_set_event(struct ctl_target *t, struct slim_seq *s)
{
	(void)t;
	return slim_event_for_each(print_enabled, s);
}

struct match_state {
	const char *word;
	int matched;
};

static int match_word(struct slim_event *ev, void *arg)
{
	struct match_state *m = arg;

	if (slim_set_event_matches(ev, m->word))
		m->matched = 1;
	return m->matched;
}

/* Every word must name something before anything changes. */
static int check_set_event(struct ctl_target *t, const char *text)
{
	const char *w = text;
	char word[256];
	size_t n;

	for (;;) {
		struct match_state m = { .word = word };

		w += strspn(w, " \t\n");
		n = strcspn(w, " \t\n");
		if (!n)
			return 0;
		if (n >= sizeof(word))
			return refuse(t, -EINVAL, "Event name too long", text, w - text);
		memcpy(word, w, n);
		word[n] = '\0';
		if (word[0] == '!')
			m.word = word + 1;
		slim_event_for_each(match_word, &m);
		if (!m.matched)
			return refuse(t, -EINVAL, "No such event or system", text, w - text);
		w += n;
	}
}

static int write_set_event(struct ctl_target *t, const char *text, int append)
{
	struct set_state all_off = { .enable = 0 };
	const char *w = text;
	char word[256];
	size_t n;
	int ret = check_set_event(t, text), err = 0;

	if (ret)
		return ret;
	if (!append)
		slim_event_for_each(set_enabled, &all_off);
	for (;;) {
		w += strspn(w, " \t\n");
		n = strcspn(w, " \t\n");
		if (!n)
			break;
		memcpy(word, w, n);
		word[n] = '\0';
		ret = slim_set_event_apply(word);
		if (ret && !err)
			err = ret;
		w += n;
	}
	return err;
}

/* ---- trace, trace_pipe, tracing_on ------------------------------------- */

static int read_trace(struct ctl_target *t, struct slim_seq *s)
{
	(void)t;
	return slim_trace_print_all(s);
}

static int write_trace(struct ctl_target *t, const char *text, int append)
{
	(void)t;
	(void)text;
	/* Like open(O_TRUNC) on the kernel's file: any write clears. */
	if (!append)
		slim_buffers_reset();
	return 0;
}

static int read_trace_pipe(struct ctl_target *t, struct slim_seq *s)
{
	(void)t;
	return slim_trace_consume_all(s);
}

static int read_tracing_on(struct ctl_target *t, struct slim_seq *s)
{
	(void)t;
	return slim_seq_printf(s, "%d\n", SLIM_READ_ONCE(slim_tracing_on));
}

static int write_tracing_on(struct ctl_target *t, const char *text, int append)
{
	int on = parse_bool(text);

	(void)append;
	if (on < 0)
		return refuse(t, -EINVAL, "Invalid value: expected 0 or 1", text, 0);
	SLIM_WRITE_ONCE(slim_tracing_on, on);
	return 0;
}

/* ---- buffer_size_kb, trace_clock, trace_options ------------------------ */

static int read_buffer_size(struct ctl_target *t, struct slim_seq *s)
{
	(void)t;
	return slim_seq_printf(s, "%u\n", SLIM_READ_ONCE(slim_buffer_pages) * 4);
}

static int write_buffer_size(struct ctl_target *t, const char *text, int append)
{
	char *v = stripped(text), *end;
	unsigned long kb;
	int ret;

	(void)append;
	errno = 0;
	kb = v ? strtoul(v, &end, 10) : 0;
	if (!v || !*v || *end || errno || !isdigit((unsigned char)*v)) {
		ret = refuse(t, -EINVAL, "Invalid value: expected a size in KiB", text, 0);
	} else if (kb < 4 || kb > 4u << 20) {
		ret = refuse(t, -EINVAL, "Size out of range (4 KiB to 4 GiB)", text, 0);
	} else {
		ret = slim_buffers_resize((unsigned int)((kb + 3) / 4));
	}
	free(v);
	return ret;
}

static int read_trace_clock(struct ctl_target *t, struct slim_seq *s)
{
	char buf[256];

	(void)t;
	slim_clock_list(buf, sizeof(buf));
	return slim_seq_printf(s, "%s\n", buf);
}

static int write_trace_clock(struct ctl_target *t, const char *text, int append)
{
	char *v = stripped(text);
	const char *old = slim_clock_name();
	int ret;

	(void)append;
	ret = v ? slim_clock_set(v) : -ENOMEM;
	if (ret == -EINVAL)
		refuse(t, ret, "No such clock", text, 0);
	/* As the kernel: stamps of two clocks do not mix in one buffer. */
	else if (!ret && strcmp(old, slim_clock_name()) != 0)
		slim_buffers_reset();
	free(v);
	return ret;
}

static const struct {
	const char *name;
	unsigned int bit;
} trace_opts[] = {
	{ "raw", SLIM_TRACE_OPT_RAW },
	{ "hex", SLIM_TRACE_OPT_HEX },
	{ "bin", SLIM_TRACE_OPT_BIN },
};

static int read_trace_options(struct ctl_target *t, struct slim_seq *s)
{
	unsigned int i;

	(void)t;
	for (i = 0; i < sizeof(trace_opts) / sizeof(trace_opts[0]); i++)
		slim_seq_printf(s, "%s%s\n",
				slim_trace_options & trace_opts[i].bit ? "" : "no",
				trace_opts[i].name);
	return slim_seq_printf(s, "%soverwrite\n", slim_buffer_overwrite ? "" : "no");
}

static int write_trace_options(struct ctl_target *t, const char *text, int append)
{
	char *v = stripped(text);
	const char *name = v;
	int on = 1, ret = 0;
	unsigned int i;

	(void)append;
	if (!v)
		return -ENOMEM;
	if (strncmp(name, "no", 2) == 0) {
		on = 0;
		name += 2;
	}
	for (i = 0; i < sizeof(trace_opts) / sizeof(trace_opts[0]); i++) {
		if (strcmp(name, trace_opts[i].name) == 0)
			break;
	}
	if (i < sizeof(trace_opts) / sizeof(trace_opts[0])) {
		if (on)
			slim_trace_options |= trace_opts[i].bit;
		else
			slim_trace_options &= ~trace_opts[i].bit;
	} else if (strcmp(name, "overwrite") == 0) {
		ret = slim_buffers_set_overwrite(on);
	} else {
		ret = refuse(t, -EINVAL, "No such option", text, 0);
	}
	free(v);
	return ret;
}

/* ---- record: draining the buffers to a trace.dat ----------------------- */

static int read_record(struct ctl_target *t, struct slim_seq *s)
{
	(void)t;
	return slim_record_ctl_read(s);
}

static int write_record(struct ctl_target *t, const char *text, int append)
{
	int ret;

	(void)append;
	ret = slim_record_ctl_write(text);
	if (ret)
		refuse(t, ret, "Cannot record to this file", text, 0);
	return ret;
}

/* ---- error_log, header_page/header_event ------------------------------- */

static int read_error_log(struct ctl_target *t, struct slim_seq *s)
{
	(void)t;
	return slim_error_log_print(s);
}

static int write_error_log(struct ctl_target *t, const char *text, int append)
{
	(void)t;
	(void)text;
	if (!append)
		slim_error_log_clear();
	return 0;
}

static int read_header_page(struct ctl_target *t, struct slim_seq *s)
{
	(void)t;
	return slim_seq_printf(s,
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:%u;\tsigned:0;\n",
		SLIM_RB_DATA_SIZE);
}

static int read_header_event(struct ctl_target *t, struct slim_seq *s)
{
	(void)t;
	return slim_seq_puts(s,
		"# compressed entry header\n"
		"\ttype_len    :    5 bits\n"
		"\ttime_delta  :   27 bits\n"
		"\tarray       :   32 bits\n"
		"\n"
		"\tpadding     : type == 29\n"
		"\ttime_extend : type == 30\n"
		"\ttime_stamp : type == 31\n"
		"\tdata max type_len  == 28\n");
}

/* ---- the namespace ----------------------------------------------------- */

static const struct ctl_file top_files[] = {
	{ "available_events",	read_available,		NULL },
	{ "set_event",		read_set_event,		write_set_event },
	{ "trace",		read_trace,		write_trace },
	{ "trace_pipe",		read_trace_pipe,	NULL },
	{ "tracing_on",		read_tracing_on,	write_tracing_on },
	{ "buffer_size_kb",	read_buffer_size,	write_buffer_size },
	{ "trace_clock",	read_trace_clock,	write_trace_clock },
	{ "trace_options",	read_trace_options,	write_trace_options },
	{ "error_log",		read_error_log,		write_error_log },
	{ "record",		read_record,		write_record },
};

static const struct ctl_file tree_files[] = {	/* events/ */
	{ "enable",		read_enable,		write_enable },
	{ "header_page",	read_header_page,	NULL },
	{ "header_event",	read_header_event,	NULL },
};

static const struct ctl_file system_files[] = {	/* events/<sys>/ */
	{ "enable",		read_enable,		write_enable },
	{ "filter",		read_filter,		write_filter },
};

static const struct ctl_file event_files[] = {	/* events/<sys>/<ev>/ */
	{ "enable",		read_enable,		write_enable },
	{ "filter",		read_filter,		write_filter },
	{ "format",		read_format,		NULL },
	{ "id",			read_id,		NULL },
};

static const struct ctl_file *find_file(const struct ctl_file *files, size_t n,
					const char *name)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(files[i].name, name) == 0)
			return &files[i];
	}
	return NULL;
}

#define FIND(files, name) find_file(files, sizeof(files) / sizeof(files[0]), name)

struct sys_lookup {
	const char *name;
	int found;
};

static int system_exists(struct slim_event *ev, void *arg)
{
	struct sys_lookup *l = arg;

	l->found = strcmp(slim_event_system(ev), l->name) == 0;
	return l->found;
}

/* Split the path into its parts; NULL if no such file. */
static const struct ctl_file *resolve(char *path, struct ctl_target *t)
{
	char *part[4] = { NULL }, *save = NULL, *p;
	struct sys_lookup l;
	int n = 0;

	for (p = strtok_r(path, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		if (n == 4)
			return NULL;
		part[n++] = p;
	}
	if (n == 1)
		return FIND(top_files, part[0]);
	if (n < 2 || strcmp(part[0], "events") != 0)
		return NULL;
	if (n == 2)
		return FIND(tree_files, part[1]);
	l = (struct sys_lookup){ .name = part[1] };
	slim_event_for_each(system_exists, &l);
	if (!l.found)
		return NULL;
	t->system = part[1];
	if (n == 3)
		return FIND(system_files, part[2]);
	t->ev = slim_event_find_locked(part[1], part[2]);
	return t->ev ? FIND(event_files, part[3]) : NULL;
}

static int ctl_write(const char *path, const char *text, int append)
{
	struct ctl_target t = { .path = path };
	const struct ctl_file *f;
	char *copy;
	int ret;

	if (!path || !text)
		return -EINVAL;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	pthread_mutex_lock(&slim_event_mutex);
	f = resolve(copy, &t);
	if (!f)
		ret = refuse(&t, -ENOENT, "No such file", path, 0);
	else if (!f->write)
		ret = refuse(&t, -EACCES, "File is read-only", path, 0);
	else
		ret = f->write(&t, text, append);
	pthread_mutex_unlock(&slim_event_mutex);
	free(copy);
	return ret;
}

SLIM_EXPORT int slim_ctl_write(const char *path, const char *text)
{
	return ctl_write(path, text, 0);
}

SLIM_EXPORT int slim_ctl_append(const char *path, const char *text)
{
	return ctl_write(path, text, 1);
}

SLIM_EXPORT char *slim_ctl_read_len(const char *path, size_t *len)
{
	struct ctl_target t = { .path = path };
	const struct ctl_file *f;
	struct slim_seq s;
	char *copy;
	int err = 0;

	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	copy = strdup(path);
	if (!copy) {
		errno = ENOMEM;
		return NULL;
	}
	slim_seq_init_dynamic(&s);
	pthread_mutex_lock(&slim_event_mutex);
	f = resolve(copy, &t);
	if (!f || !f->read) {
		err = f ? EACCES : ENOENT;
		refuse(&t, -err, f ? "File is write-only" : "No such file", path, 0);
	} else {
		f->read(&t, &s);
	}
	pthread_mutex_unlock(&slim_event_mutex);
	free(copy);
	if (!err && s.overflow)
		err = ENOMEM;
	if (err) {
		slim_seq_free(&s);
		errno = err;
		return NULL;
	}
	if (len)
		*len = s.len;
	if (!s.buf || !s.size)
		return strdup("");
	return s.buf;
}

SLIM_EXPORT char *slim_ctl_read(const char *path)
{
	return slim_ctl_read_len(path, NULL);
}

/* ---- start-up from the environment ------------------------------------- */

static char *env_events;
static char *env_filters;
static int env_read;

static void read_environment(void)
{
	const char *v;

	env_read = 1;
	/* Constructors run in no set order: the clock must be ready first. */
	slim_clock_init();
	v = getenv("SLIMTRACE_EVENTS");
	if (v && *v)
		env_events = strdup(v);
	v = getenv("SLIMTRACE_FILTER");
	if (v && *v)
		env_filters = strdup(v);
	v = getenv("SLIMTRACE_BUFFER_KB");
	if (v && *v && (!isdigit((unsigned char)*v) ||
			slim_buffers_resize((unsigned int)((strtoul(v, NULL, 10) + 3) / 4))))
		fprintf(stderr, "slimtrace: SLIMTRACE_BUFFER_KB: not a size: '%s'\n", v);
	v = getenv("SLIMTRACE_CLOCK");
	if (v && *v && slim_clock_set(v) != 0)
		fprintf(stderr, "slimtrace: SLIMTRACE_CLOCK: no clock '%s'\n", v);
	v = getenv("SLIMTRACE_OVERWRITE");
	if (v && *v)
		slim_buffers_set_overwrite(strcmp(v, "0") != 0);
	if (slim_record_env_start() < 0)
		fprintf(stderr, "slimtrace: SLIMTRACE_OUTPUT: cannot record to '%s'\n",
			getenv("SLIMTRACE_OUTPUT"));
}

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
		if (expr && slim_event_filter_write(ev, expr) != 0)
			fprintf(stderr, "slimtrace: SLIMTRACE_FILTER: filter '%s' refused for %s:%s (see error_log)\n",
				expr, slim_event_system(ev), slim_event_name(ev));
		free(expr);
	}
}

/* Called for each event as it loads; mutex held. */
void slim_ctl_event_loaded(struct slim_event *ev)
{
	const char *spec;
	char word[256];
	size_t n;

	if (!env_read)
		read_environment();
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
				slim_event_enable_locked(ev, 0);
		} else if (slim_set_event_matches(ev, word)) {
			slim_event_enable_locked(ev, 1);
		}
	}
}
