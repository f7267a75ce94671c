// SPDX-License-Identifier: MIT
/*
 * slimtrace ps: the running programs of this user that have a control
 * endpoint, with what is switched on in each.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "live.h"

struct info {
	int events, enabled, instances;
	char recording[512];
};

static int count_lines(const char *text)
{
	int n = 0;

	for (; text && *text; text++)
		n += *text == '\n';
	return n;
}

/* "where" (the top) or "instances/NAME" records to its file: note it. */
static void note_record(struct live *l, const char *dir, struct info *in)
{
	char path[600], *text = NULL;
	size_t used = strlen(in->recording);

	snprintf(path, sizeof(path), "%s%srecord", dir, *dir ? "/" : "");
	if (live_read(l, path, &text, NULL) == 0 && text && *text) {
		text[strcspn(text, "\n")] = '\0';
		snprintf(in->recording + used, sizeof(in->recording) - used, "%s%s%s%s",
			 used ? "," : "", *dir ? dir + 10 : "", *dir ? ":" : "", text);
	}
	free(text);
}

static int gather(struct live *l, struct info *in)
{
	char *text = NULL, kind, *line;
	int ret;

	memset(in, 0, sizeof(*in));
	ret = live_read(l, "available_events", &text, NULL);
	if (ret)
		return ret;
	in->events = count_lines(text);
	free(text);
	ret = live_read(l, "set_event", &text, NULL);
	if (ret)
		return ret;
	in->enabled = count_lines(text);
	free(text);
	note_record(l, "", in);
	if (live_stat(l, "instances", &kind) != 0 || kind != 'd')
		return 0;
	if (live_list(l, "instances", &text) != 0)
		return 0;
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		size_t n = strlen(line);
		char dir[300];

		if (n < 2 || line[n - 1] != '/')
			continue;
		line[n - 1] = '\0';
		in->instances++;
		snprintf(dir, sizeof(dir), "instances/%s", line);
		note_record(l, dir, in);
	}
	free(text);
	return 0;
}

int cmd_ps(int argc, char **argv)
{
	char why[512], comm[32];
	struct info in;
	struct live l;
	int *pids, n, i, ret = 0;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return cli_usage("ps", stdout), 0;
	if (argc > 1)
		return cli_bad_usage("ps", "no arguments expected ('%s')", argv[1]);
	n = live_scan(&pids, why, sizeof(why));
	if (n < 0)
		return cli_fail("%s", why);
	printf("%7s %-16s %6s %7s %9s %s\n", "PID", "COMMAND", "EVENTS", "ENABLED", "INSTANCES",
	       "RECORDING");
	for (i = 0; i < n; i++) {
		int err = live_open(&l, pids[i]);

		if (!err)
			err = gather(&l, &in);
		live_close(&l);
		if (err == -ESRCH || err == -ENOENT)
			continue;	/* it exited meanwhile */
		if (err) {
			ret = cli_fail("%s", l.why[0] ? l.why : strerror(-err));
			continue;
		}
		live_comm(pids[i], comm, sizeof(comm));
		printf("%7d %-16s %6d %7d %9d %s\n", pids[i], comm, in.events, in.enabled,
		       in.instances, in.recording[0] ? in.recording : "-");
	}
	free(pids);
	return ret;
}
