// SPDX-License-Identifier: MIT
/*
 * "tracefs, in your process": the control files by path.
 *
 * Each file is a read handler and a write handler.  A path names a file
 * of an instance root (trace, set_event...), of its event tree
 * (events/enable), of a system (events/<sys>/enable|filter) or of an
 * event (events/<sys>/<event>/enable|filter|format|id); the top level
 * is the instance root without a prefix, "instances/NAME/" the root of
 * a named one.  Every call holds slim_event_mutex, the kernel's
 * event_mutex.  A refused write changes nothing and says why in the
 * instance's error_log.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <slimtrace/ctl.h>
#include <slimtrace/output.h>
#include "buffers/buffer.h"
#include "core/clock.h"
#include "ctl/parse.h"
#include "dynevent/dynevent.h"
#include "ring/page.h"
#include "events/set_event.h"
#include "record/record.h"
#include "session/instance.h"
#include "text/trace_file.h"
#include "trigger/trigger.h"
#include "trigger/user_stack.h"

/* One read of trace_pipe stops after this much text (the kernel stops by pages). */
#define PIPE_READ_MAX	(1u << 20)

/* What a path names. */
struct ctl_target {
	struct slim_instance *inst;
	const char *system;		/* events/<sys>/... */
	struct slim_event *ev;		/* events/<sys>/<ev>/... */
	const char *path;		/* as given, for error_log */
};

/*
 * CTL_UNLOCKED: the handler runs without slim_event_mutex (its instance
 * kept busy meanwhile), for the recorder, whose lock nests outside it
 * (src/core/fork.h: SLIM_FORK_RECORD before SLIM_FORK_EVENTS).
 */
enum { CTL_TOP_ONLY = 1, CTL_UNLOCKED = 2 };

struct ctl_file {
	const char *name;
	int (*read)(struct ctl_target *t, struct slim_seq *s);
	int (*write)(struct ctl_target *t, const char *text, int append);
	int flags;
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
	slim_error_log(&t->inst->log, t->path, msg, cmd, pos);
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
	struct slim_instance *inst;
	const char *system;
	int on, off, enable, err;
};

static int count_enabled(struct slim_event *ev, void *arg)
{
	struct enable_state *st = arg;

	if (!in_system(ev, st->system))
		return 0;
	if (slim_instance_enabled(st->inst, ev))
		st->on++;
	else
		st->off++;
	return 0;
}

static int read_enable(struct ctl_target *t, struct slim_seq *s)
{
	struct enable_state st = { .inst = t->inst, .system = t->system };

	if (t->ev)
		return slim_seq_printf(s, "%d\n", slim_instance_enabled(t->inst, t->ev));
	slim_event_for_each(count_enabled, &st);
	if (st.on && st.off)
		return slim_seq_puts(s, "X\n");
	return slim_seq_printf(s, "%d\n", st.on ? 1 : 0);
}

static int set_enabled(struct slim_event *ev, void *arg)
{
	struct enable_state *st = arg;
	int ret;

	if (!in_system(ev, st->system))
		return 0;
	ret = slim_instance_enable(st->inst, ev, st->enable);
	if (ret && !st->err)
		st->err = ret;
	return 0;
}

static int write_enable(struct ctl_target *t, const char *text, int append)
{
	struct enable_state st = { .inst = t->inst, .system = t->system };

	(void)append;
	st.enable = parse_bool(text);
	if (st.enable < 0)
		return refuse(t, -EINVAL, "Invalid value: expected 0 or 1", text, 0);
	if (t->ev)
		return slim_instance_enable(t->inst, t->ev, st.enable);
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
		return slim_event_filter_print(t->inst, t->ev, s);
	return slim_system_filter_print(t->inst, t->system, s);
}

static int write_filter(struct ctl_target *t, const char *text, int append)
{
	(void)append;
	if (t->ev)
		return slim_event_filter_write(t->inst, t->ev, text);
	return slim_system_filter_write(t->inst, t->system, text);
}

static int read_trigger(struct ctl_target *t, struct slim_seq *s)
{
	return slim_trigger_print(t->inst, t->ev, s);
}

static int write_trigger(struct ctl_target *t, const char *text, int append)
{
	return slim_trigger_write(t->inst, t->ev, text, append);
}

/* ---- available_events, set_event --------------------------------------- */

static int print_name(struct slim_event *ev, void *arg)
{
	slim_seq_printf(arg, "%s:%s\n", slim_event_system(ev), slim_event_name(ev));
	return 0;
}

struct print_enabled {
	struct slim_instance *inst;
	struct slim_seq *s;
};

static int print_enabled(struct slim_event *ev, void *arg)
{
	struct print_enabled *p = arg;

	if (slim_instance_enabled(p->inst, ev))
		print_name(ev, p->s);
	return 0;
}

static int read_available(struct ctl_target *t, struct slim_seq *s)
{
	(void)t;
	return slim_event_for_each(print_name, s);
}

static int read_set_event(struct ctl_target *t, struct slim_seq *s)
{
	struct print_enabled p = { t->inst, s };

	return slim_event_for_each(print_enabled, &p);
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

/* The next blank-separated word of *w into word[256]: its length, 0 at the end. */
static size_t next_word(const char **w, char *word, size_t size)
{
	size_t n;

	*w += strspn(*w, " \t\n");
	n = strcspn(*w, " \t\n");
	if (n && n < size) {
		memcpy(word, *w, n);
		word[n] = '\0';
	}
	return n;
}

/* Every word must name something before anything changes. */
static int check_set_event(struct ctl_target *t, const char *text)
{
	const char *w = text;
	char word[256];
	size_t n;

	while ((n = next_word(&w, word, sizeof(word)))) {
		struct match_state m = { .word = word };

		if (n >= sizeof(word))
			return refuse(t, -EINVAL, "Event name too long", text, w - text);
		if (word[0] == '!')
			m.word = word + 1;
		slim_event_for_each(match_word, &m);
		if (!m.matched)
			return refuse(t, -EINVAL, "No such event or system", text, w - text);
		w += n;
	}
	return 0;
}

static int write_set_event(struct ctl_target *t, const char *text, int append)
{
	struct enable_state all_off = { .inst = t->inst };
	const char *w = text;
	char word[256];
	size_t n;
	int ret = check_set_event(t, text), err = 0;

	if (ret)
		return ret;
	if (!append)
		slim_event_for_each(set_enabled, &all_off);
	while ((n = next_word(&w, word, sizeof(word)))) {
		ret = slim_instance_set_event(t->inst, word);
		if (ret && !err)
			err = ret;
		w += n;
	}
	return err;
}

/* ---- trace, trace_pipe, tracing_on ------------------------------------- */

static int read_trace(struct ctl_target *t, struct slim_seq *s)
{
	return slim_trace_print_all(t->inst, s);
}

static int write_trace(struct ctl_target *t, const char *text, int append)
{
	(void)text;
	/* Like open(O_TRUNC) on the kernel's file: any write clears. */
	if (!append)
		slim_bufset_reset(t->inst->bufs);
	return 0;
}

static int read_trace_pipe(struct ctl_target *t, struct slim_seq *s)
{
	slim_trace_consume(t->inst, s, PIPE_READ_MAX);
	return 0;
}

/* ---- snapshot ---------------------------------------------------------- */

static int read_snapshot(struct ctl_target *t, struct slim_seq *s)
{
	return slim_trace_print_snapshot(t->inst, s);
}

/*
 * As the kernel's: 0 frees, 1 allocates if need be and swaps, any other
 * number clears (its help says so); not a number is refused.
 */
static int write_snapshot(struct ctl_target *t, const char *text, int append)
{
	char *v = stripped(text), *end;
	unsigned long val;
	int ret = 0;

	(void)append;
	errno = 0;
	val = v && isdigit((unsigned char)*v) ? strtoul(v, &end, 10) : 0;
	if (!v || !isdigit((unsigned char)*v) || *end || errno == ERANGE) {
		free(v);
		return refuse(t, -EINVAL, "Invalid value: expected a number", text, 0);
	}
	free(v);
	switch (val) {
	case 0:
		slim_bufset_snap_free(t->inst->bufs);
		break;
	case 1:
		ret = slim_bufset_snap_alloc(t->inst->bufs);
		if (ret)
			return refuse(t, ret, "Cannot allocate the snapshot buffer", text, 0);
		ret = slim_bufset_snapshot(t->inst->bufs);
		break;
	default:
		slim_bufset_snap_clear(t->inst->bufs);
		break;
	}
	return ret;
}

static int read_tracing_on(struct ctl_target *t, struct slim_seq *s)
{
	return slim_seq_printf(s, "%d\n", slim_bufset_tracing_on(t->inst->bufs));
}

static int write_tracing_on(struct ctl_target *t, const char *text, int append)
{
	int on = parse_bool(text);

	(void)append;
	if (on < 0)
		return refuse(t, -EINVAL, "Invalid value: expected 0 or 1", text, 0);
	slim_bufset_set_tracing_on(t->inst->bufs, on);
	return 0;
}

/* ---- buffer_size_kb, trace_clock, trace_options ------------------------ */

static int read_buffer_size(struct ctl_target *t, struct slim_seq *s)
{
	return slim_seq_printf(s, "%u\n", SLIM_READ_ONCE(t->inst->bufs->pages) * 4);
}

static int write_buffer_size(struct ctl_target *t, const char *text, int append)
{
	unsigned int pages = 0;
	const char *why;
	int ret;

	(void)append;
	ret = slim_parse_buffer_kb(text, &pages, &why);
	if (ret)
		return refuse(t, ret, why, text, 0);
	ret = slim_bufset_resize(t->inst->bufs, pages);
	if (ret == -ENOMEM)
		refuse(t, ret, "Cannot allocate buffers of that size", text, 0);
	return ret;
}

static int read_trace_clock(struct ctl_target *t, struct slim_seq *s)
{
	char buf[256];

	slim_clock_list(t->inst->bufs->clock, buf, sizeof(buf));
	return slim_seq_printf(s, "%s\n", buf);
}

static int write_trace_clock(struct ctl_target *t, const char *text, int append)
{
	int id = slim_clock_lookup(text);

	(void)append;
	if (id < 0)
		return refuse(t, -EINVAL, "No such clock", text, 0);
	/* As the kernel: stamps of two clocks do not mix in one buffer. */
	if (id != t->inst->bufs->clock) {
		SLIM_WRITE_ONCE(t->inst->bufs->clock, id);
		slim_bufset_clock_sync(t->inst->bufs);
		/* Records stamped with the old clock may still be arriving. */
		slim_rcu_synchronize();
		slim_bufset_reset(t->inst->bufs);
	}
	return 0;
}

static const struct {
	const char *name;
	unsigned int bit;
} trace_opts[] = {
	{ "raw", SLIM_TRACE_OPT_RAW },
	{ "hex", SLIM_TRACE_OPT_HEX },
	{ "bin", SLIM_TRACE_OPT_BIN },
};

#define NR_OPTS	(sizeof(trace_opts) / sizeof(trace_opts[0]))

static int read_trace_options(struct ctl_target *t, struct slim_seq *s)
{
	unsigned int i;

	for (i = 0; i < NR_OPTS; i++)
		slim_seq_printf(s, "%s%s\n",
				t->inst->trace_options & trace_opts[i].bit ? "" : "no",
				trace_opts[i].name);
	return slim_seq_printf(s, "%soverwrite\n", t->inst->bufs->overwrite ? "" : "no");
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
	for (i = 0; i < NR_OPTS; i++) {
		if (strcmp(name, trace_opts[i].name) == 0)
			break;
	}
	if (i < NR_OPTS) {
		if (on)
			t->inst->trace_options |= trace_opts[i].bit;
		else
			t->inst->trace_options &= ~trace_opts[i].bit;
	} else if (strcmp(name, "overwrite") == 0) {
		ret = slim_bufset_set_overwrite(t->inst->bufs, on);
	} else {
		ret = refuse(t, -EINVAL, "No such option", text, 0);
	}
	free(v);
	return ret;
}

/* ---- record: draining the buffers to a trace.dat ----------------------- */

static int read_record(struct ctl_target *t, struct slim_seq *s)
{
	return slim_record_ctl_read(t->inst->bufs, s);
}

static int write_record(struct ctl_target *t, const char *text, int append)
{
	int ret;

	(void)append;
	/* Unlocked (CTL_UNLOCKED); the error_log wants the mutex again. */
	ret = slim_record_ctl_write(t->inst->bufs, text);
	if (ret) {
		pthread_mutex_lock(&slim_event_mutex);
		refuse(t, ret, "Cannot record to this file", text, 0);
		pthread_mutex_unlock(&slim_event_mutex);
	}
	return ret;
}

/* ---- error_log, header_page/header_event ------------------------------- */

static int read_error_log(struct ctl_target *t, struct slim_seq *s)
{
	return slim_error_log_print(&t->inst->log, s);
}

static int write_error_log(struct ctl_target *t, const char *text, int append)
{
	(void)text;
	if (!append)
		slim_error_log_clear(&t->inst->log);
	return 0;
}

static int read_header_page(struct ctl_target *t, struct slim_seq *s)
{
	(void)t;
	return slim_seq_puts(s, slim_page_header_page);
}

static int read_header_event(struct ctl_target *t, struct slim_seq *s)
{
	(void)t;
	return slim_seq_puts(s, slim_page_header_event);
}

/* ---- dynamic_events: the owner parses, defines and logs (src/dynevent/) --- */

static int read_dynamic_events(struct ctl_target *t, struct slim_seq *s)
{
	(void)t;
	return slim_dyn_ctl_read(s);
}

static int write_dynamic_events(struct ctl_target *t, const char *text, int append)
{
	(void)t;
	return slim_dyn_ctl_write(text, append);
}

/* ---- the namespace ----------------------------------------------------- */

static const struct ctl_file root_files[] = {	/* an instance's root */
	{ "available_events",	read_available,		NULL, 0 },
	{ "set_event",		read_set_event,		write_set_event, 0 },
	{ "trace",		read_trace,		write_trace, 0 },
	{ "trace_pipe",		read_trace_pipe,	NULL, 0 },
	{ "snapshot",		read_snapshot,		write_snapshot, 0 },
	{ "tracing_on",		read_tracing_on,	write_tracing_on, 0 },
	{ "buffer_size_kb",	read_buffer_size,	write_buffer_size, 0 },
	{ "trace_clock",	read_trace_clock,	write_trace_clock, 0 },
	{ "trace_options",	read_trace_options,	write_trace_options, 0 },
	{ "error_log",		read_error_log,		write_error_log, 0 },
	{ "record",		read_record,		write_record,	CTL_UNLOCKED },
	{ "dynamic_events",	read_dynamic_events,	write_dynamic_events, CTL_TOP_ONLY },
};

static const struct ctl_file tree_files[] = {	/* events/ */
	{ "enable",		read_enable,		write_enable, 0 },
	{ "header_page",	read_header_page,	NULL, 0 },
	{ "header_event",	read_header_event,	NULL, 0 },
};

static const struct ctl_file system_files[] = {	/* events/<sys>/ */
	{ "enable",		read_enable,		write_enable, 0 },
	{ "filter",		read_filter,		write_filter, 0 },
};

static const struct ctl_file event_files[] = {	/* events/<sys>/<ev>/ */
	{ "enable",		read_enable,		write_enable, 0 },
	{ "filter",		read_filter,		write_filter, 0 },
	{ "format",		read_format,		NULL, 0 },
	{ "id",			read_id,		NULL, 0 },
	{ "trigger",		read_trigger,		write_trigger, 0 },
};

struct ctl_dir {
	const struct ctl_file *files;
	size_t nr;
};

#define DIR_OF(files)	{ files, sizeof(files) / sizeof(files[0]) }

enum { LVL_ROOT, LVL_TREE, LVL_SYSTEM, LVL_EVENT, LVL_INSTANCES };

static const struct ctl_dir dirs[] = {
	[LVL_ROOT]	= DIR_OF(root_files),
	[LVL_TREE]	= DIR_OF(tree_files),
	[LVL_SYSTEM]	= DIR_OF(system_files),
	[LVL_EVENT]	= DIR_OF(event_files),
	[LVL_INSTANCES]	= { NULL, 0 },
};

static int visible(const struct ctl_target *t, const struct ctl_file *f)
{
	return !(f->flags & CTL_TOP_ONLY) || t->inst == &slim_instance_top;
}

static const struct ctl_file *find_file(const struct ctl_target *t, int level,
					const char *name)
{
	size_t i;

	for (i = 0; i < dirs[level].nr; i++) {
		if (strcmp(dirs[level].files[i].name, name) == 0 &&
		    visible(t, &dirs[level].files[i]))
			return &dirs[level].files[i];
	}
	return NULL;
}

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

/*
 * Walk a split path: the directory it reaches (its level, the target
 * filled in) with *rest at the first part that is not a directory, or
 * -1 if some directory on the way does not exist.
 */
static int walk(char **part, int n, int *used, struct ctl_target *t)
{
	struct sys_lookup l;
	int i = 0, level = LVL_ROOT;

	t->inst = &slim_instance_top;
	if (n >= 1 && strcmp(part[0], "instances") == 0) {
		if (n == 1) {
			*used = 1;
			return LVL_INSTANCES;
		}
		t->inst = slim_instance_find(part[1]);
		if (!t->inst) {
			t->inst = &slim_instance_top;
			return -1;
		}
		i = 2;
	}
	if (i < n && strcmp(part[i], "events") == 0) {
		level = LVL_TREE;
		i++;
		if (i < n) {
			l = (struct sys_lookup){ .name = part[i] };
			slim_event_for_each(system_exists, &l);
			if (l.found) {
				t->system = part[i++];
				level = LVL_SYSTEM;
				if (i < n) {
					t->ev = slim_event_find_locked(t->system, part[i]);
					if (t->ev) {
						i++;
						level = LVL_EVENT;
					}
				}
			}
		}
	}
	*used = i;
	return level;
}

#define MAX_PARTS	8

static int split(char *path, char **part)
{
	char *save = NULL, *p;
	int n = 0;

	for (p = strtok_r(path, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		if (n == MAX_PARTS)
			return -1;
		part[n++] = p;
	}
	return n;
}

/* The file a path names; NULL if none. */
static const struct ctl_file *resolve(char *path, struct ctl_target *t)
{
	char *part[MAX_PARTS];
	int n = split(path, part), used, level;

	if (n < 1)
		return NULL;
	level = walk(part, n, &used, t);
	if (level < 0 || used != n - 1)
		return NULL;
	return find_file(t, level, part[n - 1]);
}

/* With slim_event_mutex held: call f's writer (or reader), unlocked if it says so. */
static int call_file(const struct ctl_file *f, struct ctl_target *t, const char *text,
		     int append, struct slim_seq *s)
{
	int ret;

	if (!(f->flags & CTL_UNLOCKED))
		return s ? f->read(t, s) : f->write(t, text, append);
	slim_instance_get_busy(t->inst);
	pthread_mutex_unlock(&slim_event_mutex);
	ret = s ? f->read(t, s) : f->write(t, text, append);
	pthread_mutex_lock(&slim_event_mutex);
	slim_instance_put_busy(t->inst);
	return ret;
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
	/*
	 * A stacktrace trigger's unwinder may have to be loaded (dlopen):
	 * before the mutex, which a dlopen's constructors take under the
	 * loader's lock.  A mention is enough: it is only made ready.
	 */
	if (strstr(text, "stacktrace"))
		slim_user_stack_warm();
	pthread_mutex_lock(&slim_event_mutex);
	f = resolve(copy, &t);
	if (!f)
		ret = refuse(&t, -ENOENT, "No such file", path, 0);
	else if (!f->write)
		ret = refuse(&t, -EACCES, "File is read-only", path, 0);
	else
		ret = call_file(f, &t, text, append, NULL);
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

/* The text a file reads as, into s; 0 or -errno. */
static int ctl_read(const char *path, struct slim_seq *s)
{
	struct ctl_target t = { .path = path };
	const struct ctl_file *f;
	char *copy;
	int err = 0;

	if (!path)
		return -EINVAL;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	pthread_mutex_lock(&slim_event_mutex);
	f = resolve(copy, &t);
	if (!f || !f->read) {
		err = f ? -EACCES : -ENOENT;
		refuse(&t, err, f ? "File is write-only" : "No such file", path, 0);
	} else {
		call_file(f, &t, NULL, 0, s);
	}
	pthread_mutex_unlock(&slim_event_mutex);
	free(copy);
	if (!err && s->overflow)
		err = -ENOMEM;
	return err;
}

SLIM_EXPORT char *slim_ctl_read_len(const char *path, size_t *len)
{
	struct slim_seq s;
	int err;

	slim_seq_init_dynamic(&s);
	err = ctl_read(path, &s);
	if (err) {
		slim_seq_free(&s);
		errno = -err;
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

/* ---- directories: instances/NAME, and what a directory holds ----------- */

/* "instances/NAME" (a trailing '/' allowed): NAME, or NULL. */
static const char *instance_path(const char *path, char *name, size_t size)
{
	size_t n;

	if (!path || strncmp(path, "instances/", 10) != 0)
		return NULL;
	path += 10;
	n = strlen(path);
	if (n && path[n - 1] == '/')
		n--;
	if (n >= size)
		n = size - 1;
	memcpy(name, path, n);
	name[n] = '\0';
	return name;
}

static int ctl_dir_op(const char *path, int make)
{
	char name[SLIM_INSTANCE_NAME_MAX + 2];
	const char *inst;
	size_t len;
	int ret;

	if (!path)
		return -EINVAL;
	inst = instance_path(path, name, sizeof(name));
	if (!inst)
		return -ENOENT;
	len = strlen(path) - 10;
	if (len && path[strlen(path) - 1] == '/')
		len--;
	if (len > SLIM_INSTANCE_NAME_MAX)
		return -EINVAL;
	pthread_mutex_lock(&slim_event_mutex);
	if (make) {
		ret = slim_instance_create(inst);
	} else {
		struct slim_instance *in = slim_instance_find(inst);

		/* Being recorded, as a trace_pipe being read: busy (no lock taken). */
		ret = in && slim_record_records(in->bufs) ? -EBUSY : slim_instance_remove(inst);
	}
	pthread_mutex_unlock(&slim_event_mutex);
	return ret;
}

SLIM_EXPORT int slim_ctl_mkdir(const char *path)
{
	return ctl_dir_op(path, 1);
}

SLIM_EXPORT int slim_ctl_rmdir(const char *path)
{
	return ctl_dir_op(path, 0);
}

struct list_state {
	struct slim_seq *s;
	const char *system;
	const char *last;
};

static int list_system(struct slim_event *ev, void *arg)
{
	struct list_state *l = arg;
	const char *sys = slim_event_system(ev);
	struct sys_lookup seen = { .name = sys };
	struct slim_event *e;
	int id;

	/* Once per system: print it at its first event. */
	for (id = 1; id < ev->event.type && !seen.found; id++) {
		e = slim_event_by_id(id);
		if (e && !slim_event_is_internal(e))
			system_exists(e, &seen);
	}
	if (!seen.found)
		slim_seq_printf(l->s, "%s/\n", sys);
	return 0;
}

static int list_event(struct slim_event *ev, void *arg)
{
	struct list_state *l = arg;

	if (strcmp(slim_event_system(ev), l->system) == 0)
		slim_seq_printf(l->s, "%s/\n", slim_event_name(ev));
	return 0;
}

static int list_instance(struct slim_instance *inst, void *arg)
{
	if (inst->name)
		slim_seq_printf(arg, "%s/\n", inst->name);
	return 0;
}

static int ctl_list(const char *path, struct slim_seq *s)
{
	struct ctl_target t = { .path = path };
	struct list_state l = { .s = s };
	char *part[MAX_PARTS], *copy = strdup(path);
	int n, used, level, ret = 0;
	size_t i;

	if (!copy)
		return -ENOMEM;
	n = split(copy, part);
	level = n < 0 ? -1 : walk(part, n, &used, &t);
	if (level < 0 || used != n) {
		free(copy);
		return -ENOENT;
	}
	for (i = 0; i < dirs[level].nr; i++) {
		if (visible(&t, &dirs[level].files[i]))
			slim_seq_printf(s, "%s\n", dirs[level].files[i].name);
	}
	switch (level) {
	case LVL_ROOT:
		slim_seq_puts(s, "events/\n");
		if (t.inst == &slim_instance_top)
			slim_seq_puts(s, "instances/\n");
		break;
	case LVL_TREE:
		slim_event_for_each(list_system, &l);
		break;
	case LVL_SYSTEM:
		l.system = t.system;
		slim_event_for_each(list_event, &l);
		break;
	case LVL_INSTANCES:
		slim_instance_for_each(list_instance, s);
		break;
	}
	free(copy);
	return ret;
}

SLIM_EXPORT char *slim_ctl_list(const char *path)
{
	struct slim_seq s;
	int err;

	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	slim_seq_init_dynamic(&s);
	pthread_mutex_lock(&slim_event_mutex);
	err = ctl_list(path, &s);
	pthread_mutex_unlock(&slim_event_mutex);
	if (!err && s.overflow)
		err = -ENOMEM;
	if (err) {
		slim_seq_free(&s);
		errno = -err;
		return NULL;
	}
	if (!s.size)	/* nothing listed: buf is the sequence's static "" */
		return strdup("");
	return s.buf;
}

/* ---- streams: a file opened for reading, trace_pipe as it fills -------- */

struct slim_ctl_stream {
	struct slim_instance *inst;	/* trace_pipe: kept busy while open */
	struct slim_seq text;		/* read but not yet returned */
	unsigned int pos;
};

SLIM_EXPORT struct slim_ctl_stream *slim_ctl_open(const char *path, int *err)
{
	struct ctl_target t = { .path = path };
	struct slim_ctl_stream *st;
	const struct ctl_file *f;
	char *copy;
	int ret = 0;

	st = calloc(1, sizeof(*st));
	copy = path ? strdup(path) : NULL;
	if (!st || !copy) {
		free(st);
		free(copy);
		*err = path ? -ENOMEM : -EINVAL;
		return NULL;
	}
	slim_seq_init_dynamic(&st->text);
	pthread_mutex_lock(&slim_event_mutex);
	f = resolve(copy, &t);
	if (!f || !f->read) {
		ret = f ? -EACCES : -ENOENT;
		refuse(&t, ret, f ? "File is write-only" : "No such file", path, 0);
	} else if (f->read == read_trace_pipe) {
		st->inst = t.inst;
		slim_instance_get_busy(t.inst);
	} else {
		/* Any other file reads as it is now, as a snapshot. */
		call_file(f, &t, NULL, 0, &st->text);
	}
	pthread_mutex_unlock(&slim_event_mutex);
	free(copy);
	if (!ret && st->text.overflow)
		ret = -ENOMEM;
	if (ret) {
		slim_ctl_close(st);
		*err = ret;
		return NULL;
	}
	*err = 0;
	return st;
}

static void refill(struct slim_ctl_stream *st, size_t want)
{
	slim_seq_reset(&st->text);
	st->pos = 0;
	pthread_mutex_lock(&slim_event_mutex);
	slim_trace_consume(st->inst, &st->text, want < PIPE_READ_MAX ? want : PIPE_READ_MAX);
	pthread_mutex_unlock(&slim_event_mutex);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

SLIM_EXPORT long slim_ctl_stream_read(struct slim_ctl_stream *st, char *buf, size_t len,
				      int timeout_ms)
{
	size_t n;
	int waited = 0;

	if (!st || (!buf && len))
		return -EINVAL;
	while (st->inst && st->pos >= st->text.len) {
		refill(st, len);
		if (st->text.overflow)
			return -ENOMEM;
		if (st->text.len || waited >= timeout_ms)
			break;
		sleep_ms(timeout_ms - waited < 10 ? timeout_ms - waited : 10);
		waited += 10;
	}
	n = st->text.len - st->pos;
	if (n > len)
		n = len;
	if (n)
		memcpy(buf, st->text.buf + st->pos, n);
	st->pos += (unsigned int)n;
	return (long)n;
}

SLIM_EXPORT void slim_ctl_close(struct slim_ctl_stream *st)
{
	if (!st)
		return;
	if (st->inst) {
		pthread_mutex_lock(&slim_event_mutex);
		slim_instance_put_busy(st->inst);
		pthread_mutex_unlock(&slim_event_mutex);
	}
	slim_seq_free(&st->text);
	free(st);
}
