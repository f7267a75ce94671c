// SPDX-License-Identifier: MIT
/*
 * The filter files.  An expression is compiled once, when it is written,
 * and published to the recording threads with RCU (slim_filter_set());
 * the event's FILTERED flag tells the record path to run it.
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
#include "ctl/error_log.h"
#include "filter/event_filter.h"
#include "filter/filter.h"

#define FILTER_LOC	"event filter parse error"

/* Per-event and per-system texts that the filter files read back. */
struct filter_note {
	const void *key;	/* an event, or a system's name */
	char *text;		/* what reading the file shows */
	struct filter_note *next;
};

static struct filter_note *notes;

static struct filter_note *note_find(const void *key, const char *system)
{
	struct filter_note *n;

	for (n = notes; n; n = n->next) {
		if (system ? strcmp(n->key, system) == 0 : n->key == key)
			return n;
	}
	return NULL;
}

static void note_set(const void *key, const char *system, char *text)
{
	struct filter_note *n = note_find(key, system);

	if (!n) {
		n = calloc(1, sizeof(*n));
		if (!n) {
			free(text);
			return;
		}
		n->key = system ? (const void *)strdup(system) : key;
		n->next = notes;
		notes = n;
	}
	free(n->text);
	n->text = text;
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

static int refuse(const char *text, const struct slim_filter_error *err)
{
	slim_error_log(FILTER_LOC, err->msg[0] ? err->msg : "Error", text,
		       err->msg[0] ? err->pos : -1);
	return -EINVAL;
}

static int too_long(const char *text)
{
	if (strlen(text) < SLIM_FILTER_WRITE_MAX)
		return 0;
	slim_error_log(FILTER_LOC, "Filter too long (4096 bytes or more)", text, -1);
	return 1;
}

int slim_event_filter_write(struct slim_event *ev, const char *text)
{
	struct slim_filter_error err;
	struct slim_filter *f;
	int ret;

	if (too_long(text))
		return -EINVAL;
	if (is_clear(text)) {
		slim_filter_set(ev, NULL);
		note_set(ev, NULL, NULL);
		return 0;
	}
	ret = compile_for(ev, text, &f, &err);
	if (ret == -EINVAL) {
		note_set(ev, NULL, error_text(text, &err));
		return refuse(text, &err);
	}
	if (ret)
		return ret;
	slim_filter_set(ev, f);
	note_set(ev, NULL, NULL);
	return 0;
}

int slim_event_filter_print(struct slim_event *ev, struct slim_seq *s)
{
	struct filter_note *n = note_find(ev, NULL);

	if (n && n->text)
		return slim_seq_puts(s, n->text);
	if (ev->filter)
		return slim_seq_printf(s, "%s\n", slim_filter_text(ev->filter));
	return slim_seq_puts(s, "none\n");
}

struct sys_write {
	const char *system, *text;
	int clear, compiled, err;
	struct slim_filter_error first_err;
	int dry_run;
};

static int apply_system(struct slim_event *ev, void *arg)
{
	struct sys_write *w = arg;
	struct slim_filter_error err;
	struct slim_filter *f;
	int ret;

	if (strcmp(slim_event_system(ev), w->system) != 0)
		return 0;
	if (w->clear) {
		slim_filter_set(ev, NULL);
		note_set(ev, NULL, NULL);
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
	if (w->dry_run) {
		slim_filter_free(f);
		return 0;
	}
	slim_filter_set(ev, f);
	note_set(ev, NULL, NULL);
	return 0;
}

int slim_system_filter_write(const char *system, const char *text)
{
	struct sys_write w = { .system = system, .text = text, .dry_run = 1 };
	int ret;

	if (too_long(text))
		return -EINVAL;
	w.clear = is_clear(text);
	if (w.clear) {
		slim_event_for_each(apply_system, &w);
		note_set(NULL, system, NULL);
		return 0;
	}
	/* First find out whether any event takes it: if none, change nothing. */
	ret = slim_event_for_each(apply_system, &w);
	if (ret)
		return ret;
	if (!w.compiled) {
		note_set(NULL, system, error_text(text, &w.first_err));
		return refuse(text, &w.first_err);
	}
	w = (struct sys_write){ .system = system, .text = text };
	ret = slim_event_for_each(apply_system, &w);
	if (!ret)
		note_set(NULL, system, strdup(text));
	return ret;
}

int slim_system_filter_print(const char *system, struct slim_seq *s)
{
	struct filter_note *n = note_find(NULL, system);
	const char *t = n ? n->text : NULL;
	size_t len;

	if (!t)
		return slim_seq_puts(s, "none\n");
	len = strlen(t);
	return slim_seq_printf(s, "%s%s", t, len && t[len - 1] == '\n' ? "" : "\n");
}
