// SPDX-License-Identifier: MIT
/*
 * slimtrace list: the events a trace.dat knows, or a running program
 * has (-p), and their formats.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "live.h"

static void print_event(const struct tdat_event *ev, int formats)
{
	if (!formats) {
		printf("%s:%s\n", ev->system, ev->name);
		return;
	}
	printf("system: %s\n", ev->system);
	fwrite(ev->format, 1, ev->format_len, stdout);
	if (ev->format_len && ev->format[ev->format_len - 1] != '\n')
		putchar('\n');
	putchar('\n');
}

static int list_file(struct cli_opts *o)
{
	struct tdat t;
	struct tdat_open_flags fl = { .no_plugins = 1 };
	int i, ret = 0;

	if (cli_open(&t, o->file, &fl))
		return EXIT_FAIL;
	if (tdat_select_events(&t, o->events)) {
		ret = cli_fail("%s: list -e: %s", o->file, t.err);
		goto out;
	}
	for (i = 0; i < t.nr_events; i++) {
		if (t.events[i].selected)
			print_event(&t.events[i], o->formats);
	}
	fflush(stdout);
	/* A file whose data is cut short is listed, then warned about. */
	ret = cli_cut_short(&t);
out:
	tdat_close(&t);
	return ret;
}

/* available_events: "sys:event" lines, split in place. */
static int parse_events(char *text, struct tdat_event **out)
{
	struct tdat_event *evs = NULL;
	char *line, *colon, *save = NULL;
	int n = 0;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct tdat_event *e;

		colon = strchr(line, ':');
		if (!colon)
			continue;
		e = realloc(evs, (n + 1) * sizeof(*evs));
		if (!e) {
			free(evs);
			return -1;
		}
		evs = e;
		memset(&evs[n], 0, sizeof(evs[n]));
		*colon = '\0';
		evs[n].system = line;
		evs[n].name = colon + 1;
		n++;
	}
	*out = evs;
	return n;
}

static int list_process(struct cli_opts *o)
{
	struct tdat_event *evs = NULL;
	struct live l;
	char *text = NULL, why[300], path[600];
	int n, i, ret;

	if (live_open(&l, o->pid))
		return cli_fail("%s", l.why);
	ret = live_read(&l, "available_events", &text, NULL);
	if (ret) {
		ret = cli_live_failed(&l, "read available_events", ret);
		goto out;
	}
	n = parse_events(text, &evs);
	if (n < 0) {
		ret = cli_fail("out of memory");
		goto out;
	}
	if (tdat_events_select(evs, n, o->events, why, sizeof(why))) {
		ret = cli_fail("process %d: list -e: no event of the process %s", o->pid, why);
		goto out;
	}
	for (i = 0; i < n && !ret; i++) {
		char *format = NULL;
		size_t len = 0;

		if (!evs[i].selected)
			continue;
		if (o->formats) {
			snprintf(path, sizeof(path), "events/%s/%s/format", evs[i].system, evs[i].name);
			ret = live_read(&l, path, &format, &len);
			/* Unloaded meanwhile (a dlclose): not an error, it is just gone. */
			if (ret == -ENOENT) {
				ret = 0;
				continue;
			}
			if (ret) {
				ret = cli_live_failed(&l, path, ret);
				break;
			}
			evs[i].format = format;
			evs[i].format_len = len;
		}
		print_event(&evs[i], o->formats);
		free(format);
	}
out:
	free(evs);
	free(text);
	live_close(&l);
	return ret;
}

int cmd_list(int argc, char **argv)
{
	struct cli_opts o;
	int ret;

	ret = cli_parse(&o, "list", "i:e:fp:", argc, argv);
	if (ret) {
		cli_opts_free(&o);
		return ret < 0 ? 0 : ret;
	}
	ret = o.pid ? list_process(&o) : list_file(&o);
	cli_opts_free(&o);
	return ret;
}
