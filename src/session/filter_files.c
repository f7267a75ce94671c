// SPDX-License-Identifier: MIT
/*
 * The filter files of an instance: events/<sys>/<ev>/filter and
 * events/<sys>/filter.  An expression is compiled once, when it is
 * written, and published to the recording threads with RCU on the
 * event file's target; the target's FILTERED flag tells the record path
 * to run it.
 *
 * Two deliberate differences from the kernel (docs/filter.md): a refused
 * expression leaves the event's previous filter in place (the kernel
 * drops it), and a system filter leaves alone the events it does not
 * compile for (the kernel clears their filters).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <slimtrace/output.h>
#include "filter/filter.h"
#include "session/instance.h"

#define FILTER_LOC	"event filter parse error"

/* What an instance's events/<sys>/filter reads back. */
struct slim_sys_note {
	char *system;
	char *text;
	struct slim_sys_note *next;
};

static struct slim_sys_note *sys_note(struct slim_instance *inst, const char *system)
{
	struct slim_sys_note *n;

	for (n = inst->sys_filters; n; n = n->next) {
		if (strcmp(n->system, system) == 0)
			return n;
	}
	return NULL;
}

static void sys_note_set(struct slim_instance *inst, const char *system, char *text)
{
	struct slim_sys_note *n = sys_note(inst, system);

	if (!n) {
		n = calloc(1, sizeof(*n));
		if (n)
			n->system = strdup(system);
		if (!n || !n->system) {
			free(n);
			free(text);
			return;
		}
		n->next = inst->sys_filters;
		inst->sys_filters = n;
	}
	free(n->text);
	n->text = text;
}

void slim_system_filters_free(struct slim_instance *inst)
{
	struct slim_sys_note *n, *next;

	for (n = inst->sys_filters; n; n = next) {
		next = n->next;
		free(n->system);
		free(n->text);
		free(n);
	}
	inst->sys_filters = NULL;
}

static void file_note_set(struct slim_event_file *f, char *text)
{
	free(f->filter_note);
	f->filter_note = text;
}

static int is_clear(const char *text)
{
	size_t n;

	text += strspn(text, " \t\n");
	n = strlen(text);
	while (n && strchr(" \t\n", text[n - 1]))
		n--;
	return n == 1 && text[0] == '0';
}

static char *error_text(const char *expr, const struct slim_filter_error *err)
{
	int n = slim_filter_error_text(expr, err, NULL, 0);
	char *buf = malloc(n + 1);

	if (buf)
		slim_filter_error_text(expr, err, buf, n + 1);
	return buf;
}

static int compile_for(struct slim_event *ev, const char *text,
		       struct slim_filter **f, struct slim_filter_error *err)
{
	memset(err, 0, sizeof(*err));
	return slim_filter_compile(slim_event_fields(ev), text, f, err);
}

static int refuse(struct slim_instance *inst, const char *text,
		  const struct slim_filter_error *err)
{
	slim_error_log(&inst->log, FILTER_LOC, err->msg[0] ? err->msg : "Error", text,
		       err->msg[0] ? err->pos : -1);
	return -EINVAL;
}

static int too_long(struct slim_instance *inst, const char *text)
{
	if (strlen(text) < SLIM_FILTER_WRITE_MAX)
		return 0;
	slim_error_log(&inst->log, FILTER_LOC, "Filter too long (4096 bytes or more)",
		       text, -1);
	return 1;
}

/* Clearing an event's filter: nothing to do where it has no file. */
static void clear_event(struct slim_instance *inst, struct slim_event *ev)
{
	struct slim_event_file *f = slim_event_file(inst, ev, 0);

	if (f) {
		slim_target_set_filter(&f->target, NULL);
		file_note_set(f, NULL);
	}
}

int slim_event_filter_write(struct slim_instance *inst, struct slim_event *ev,
			    const char *text)
{
	struct slim_filter_error err;
	struct slim_event_file *file;
	struct slim_filter *f;
	int ret;

	if (too_long(inst, text))
		return -EINVAL;
	if (is_clear(text)) {
		clear_event(inst, ev);
		return 0;
	}
	file = slim_event_file(inst, ev, 1);
	if (!file)
		return -ENOMEM;
	ret = compile_for(ev, text, &f, &err);
	if (ret == -EINVAL) {
		file_note_set(file, error_text(text, &err));
		return refuse(inst, text, &err);
	}
	if (ret)
		return ret;
	slim_target_set_filter(&file->target, f);
	file_note_set(file, NULL);
	return 0;
}

int slim_event_filter_print(struct slim_instance *inst, struct slim_event *ev,
			    struct slim_seq *s)
{
	struct slim_event_file *f = slim_event_file(inst, ev, 0);

	if (f && f->filter_note)
		return slim_seq_puts(s, f->filter_note);
	if (f && f->target.filter)
		return slim_seq_printf(s, "%s\n", slim_filter_text(f->target.filter));
	return slim_seq_puts(s, "none\n");
}

struct sys_write {
	struct slim_instance *inst;
	const char *system, *text;
	int clear, compiled, err;
	struct slim_filter_error first_err;
	int dry_run;
};

static int apply_system(struct slim_event *ev, void *arg)
{
	struct sys_write *w = arg;
	struct slim_filter_error err;
	struct slim_event_file *file;
	struct slim_filter *f;
	int ret;

	if (strcmp(slim_event_system(ev), w->system) != 0)
		return 0;
	if (w->clear) {
		clear_event(w->inst, ev);
		return 0;
	}
	ret = compile_for(ev, w->text, &f, &err);
	if (ret == -EINVAL) {
		if (!w->err)
			w->first_err = err;
		w->err = ret;
		return 0;
	}
	if (ret)
		return ret;
	w->compiled++;
	file = w->dry_run ? NULL : slim_event_file(w->inst, ev, 1);
	if (!file) {
		slim_filter_free(f);
		return w->dry_run ? 0 : -ENOMEM;
	}
	slim_target_set_filter(&file->target, f);
	file_note_set(file, NULL);
	return 0;
}

int slim_system_filter_write(struct slim_instance *inst, const char *system,
			     const char *text)
{
	struct sys_write w = { .inst = inst, .system = system, .text = text, .dry_run = 1 };
	int ret;

	if (too_long(inst, text))
		return -EINVAL;
	w.clear = is_clear(text);
	if (w.clear) {
		slim_event_for_each(apply_system, &w);
		sys_note_set(inst, system, NULL);
		return 0;
	}
	/* First find out whether any event takes it: if none, change nothing. */
	ret = slim_event_for_each(apply_system, &w);
	if (ret)
		return ret;
	if (!w.compiled) {
		sys_note_set(inst, system, error_text(text, &w.first_err));
		return refuse(inst, text, &w.first_err);
	}
	w = (struct sys_write){ .inst = inst, .system = system, .text = text };
	ret = slim_event_for_each(apply_system, &w);
	if (!ret)
		sys_note_set(inst, system, strdup(text));
	return ret;
}

int slim_system_filter_print(struct slim_instance *inst, const char *system,
			     struct slim_seq *s)
{
	struct slim_sys_note *n = sys_note(inst, system);
	const char *t = n ? n->text : NULL;
	size_t len;

	if (!t)
		return slim_seq_puts(s, "none\n");
	len = strlen(t);
	return slim_seq_printf(s, "%s%s", t, len && t[len - 1] == '\n' ? "" : "\n");
}
