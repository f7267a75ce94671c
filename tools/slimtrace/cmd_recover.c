// SPDX-License-Identifier: MIT
/*
 * slimtrace recover: a trace.dat whose recording did not finish (the
 * program was killed with SIGKILL, or its final file did not fit on the
 * disk) is PATH, a trace without data, and PATH.cpuN, the pages drained
 * before the end.  The library's own sinks put them together
 * (src/record/recover.c, compiled into the command), so the file comes
 * out as the program would have written it.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slimtrace/record.h>
#include "cli.h"

/* How many PATH.cpuN files there are beside PATH. */
int cli_fragments(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t len = strlen(base);
	char dir[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int n = 0;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + 1 : 1,
		 slash ? path : ".");
	dp = opendir(dir);
	if (!dp)
		return 0;
	while ((d = readdir(dp)))
		n += !strncmp(d->d_name, base, len) && !strncmp(d->d_name + len, ".cpu", 4) &&
		     d->d_name[len + 4] >= '0' && d->d_name[len + 4] <= '9';
	closedir(dp);
	return n;
}

int cli_recover(const char *path, const char *shown)
{
	int n = cli_fragments(path), ret;

	if (!n)
		return cli_fail("recover %s: no data files (%s.cpu0, ...) beside it: nothing to "
				"recover", shown, shown);
	ret = slim_record_recover(path);
	if (ret == -EINVAL)
		return EXIT_FAIL;	/* the library said what is wrong with it */
	if (ret)
		return cli_fail("recover %s: %s; the data files %s.cpu* are kept", shown,
				strerror(-ret), shown);
	fprintf(stderr, "slimtrace: %s: recovered from %d data file%s\n", shown, n,
		n == 1 ? "" : "s");
	return 0;
}

int cmd_recover(int argc, char **argv)
{
	int i, ret = 0, r;

	if (argc < 2)
		return cli_bad_usage("recover", "which file?");
	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-')
			return cli_bad_usage("recover", "unknown option %s", argv[i]);
	}
	for (i = 1; i < argc; i++) {
		r = cli_recover(argv[i], argv[i]);
		if (r && !ret)
			ret = r;
	}
	return ret;
}
