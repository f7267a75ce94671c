// SPDX-License-Identifier: MIT
/*
 * slimtrace record -- PROGRAM: the program runs with
 * SLIMTRACE_OUTPUT_PER_PROCESS set, so every process of the run that
 * links slimtrace (the program, and the programs a script or the
 * program itself runs) writes FILE.PID, or FILE.PID-N after an exec in
 * place, and none overwrites another's.  Here they are found, each one
 * finished if its process did not (recover), and made one FILE: renamed
 * when there is one, merged in time order when there are several.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "tdat_merge.h"

/* "PID" or "PID-N" after BASE.: the part's pid and number, or -1. */
static int part_name(const char *rest, long *pid, long *nr)
{
	char *end;

	if (*rest < '0' || *rest > '9')
		return -1;
	*pid = strtol(rest, &end, 10);
	*nr = 0;
	if (*end == '-') {
		if (end[1] < '0' || end[1] > '9')
			return -1;
		*nr = strtol(end + 1, &end, 10);
	}
	return *end ? -1 : 0;
}

static void split(const char *out, char *dir, size_t len, const char **base)
{
	const char *slash = strrchr(out, '/');

	snprintf(dir, len, "%.*s", slash ? (int)(slash - out) + 1 : 1, slash ? out : ".");
	*base = slash ? slash + 1 : out;
}

struct part {
	long pid, nr;
	char *path;
};

static int by_pid(const void *a, const void *b)
{
	const struct part *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->nr > y->nr) - (x->nr < y->nr);
}

/* Every FILE.PID[-N] beside OUT, in pid order; the count, or -1 (said). */
static int find(const char *out, struct part **parts)
{
	char dir[PATH_MAX];
	const char *base;
	struct part *p = NULL, *grown;
	struct dirent *d;
	int n = 0;
	size_t len;
	DIR *dp;

	split(out, dir, sizeof(dir), &base);
	len = strlen(base);
	dp = opendir(dir);
	if (!dp)
		return cli_fail("%s: %s", dir, strerror(errno)), -1;
	while ((d = readdir(dp))) {
		long pid, nr;

		if (strncmp(d->d_name, base, len) || d->d_name[len] != '.' ||
		    part_name(d->d_name + len + 1, &pid, &nr))
			continue;
		grown = realloc(p, (n + 1) * sizeof(*p));
		if (!grown || asprintf(&grown[n].path, "%s%s", out, d->d_name + len) < 0) {
			free(grown ? grown : p);
			closedir(dp);
			return cli_fail("out of memory"), -1;
		}
		p = grown;
		p[n].pid = pid;
		p[n].nr = nr;
		n++;
	}
	closedir(dp);
	if (n)
		qsort(p, n, sizeof(*p), by_pid);
	*parts = p;
	return n;
}

static void free_parts(struct part *p, int n)
{
	while (n--)
		free(p[n].path);
	free(p);
}

/* A part with its data files: remove them too. */
static void remove_part(const char *path)
{
	char frag[PATH_MAX + 16];
	int i, n = cli_fragments(path);

	for (i = 0; n && i < 4096; i++) {
		snprintf(frag, sizeof(frag), "%s.cpu%d", path, i);
		n -= !unlink(frag);
	}
	unlink(path);
}

int record_parts_clear(const char *out)
{
	struct part *p;
	int i, n = find(out, &p);

	if (n < 0)
		return EXIT_FAIL;
	for (i = 0; i < n; i++)
		remove_part(p[i].path);
	free_parts(p, n);
	return 0;
}

/* The name a part is shown by: SHOWN with the part's own ending. */
static void part_shown(char *buf, size_t len, const char *shown, const char *out,
		       const char *path)
{
	snprintf(buf, len, "%s%s", shown, path + strlen(out));
}

/*
 * A part whose process did not finish it (killed, or the final file did
 * not fit) has data files beside it: put them together.  1 if it had to
 * be done, 0 if not, -1 if it failed (said).
 */
static int finish(const char *path, const char *shown, long pid, int killed)
{
	int n = cli_fragments(path);

	if (!n)
		return 0;
	fprintf(stderr, "slimtrace: process %ld did not finish %s (%s): rebuilding it from its "
		"%d data file%s\n", pid, shown, killed ? "it was killed" :
		"killed, exec'd, or its final file could not be written", n, n == 1 ? "" : "s");
	return cli_recover(path, shown) ? -1 : 1;
}

static int merge(struct part *p, int n, const struct record_opts *ro, const char *out,
		 const char *shown)
{
	const char **files = calloc(n, sizeof(*files));
	char label[64], err[1024];
	int i, ret = 0;

	if (!files)
		return cli_fail("out of memory");
	for (i = 0; i < n; i++) {
		files[i] = p[i].path;
		if (ro->quiet)
			continue;
		fprintf(stderr, "process %ld:\n", p[i].pid);
		snprintf(label, sizeof(label), "process %ld", p[i].pid);
		if (record_summarize(p[i].path, 0, NULL, label))
			ret = EXIT_FAIL;
	}
	if (tdat_merge_files(files, n, out, err, sizeof(err))) {
		cli_fail("merging into %s: %s; each process's file is kept:", shown, err);
		for (i = 0; i < n; i++)
			fprintf(stderr, "    %s\n", files[i]);
		free(files);
		return EXIT_FAIL;
	}
	free(files);
	for (i = 0; i < n; i++)
		unlink(p[i].path);
	if (!ro->quiet)
		fprintf(stderr, "slimtrace: %d processes recorded: merged into %s\n", n, shown);
	return ret;
}

int record_parts_join(const char *out, const char *shown, const struct record_opts *ro,
		      int killed, int *rebuilt)
{
	char name[PATH_MAX + 64];
	struct part *p;
	int i, n = find(out, &p), ret = 0, r;

	*rebuilt = 0;
	if (n <= 0)
		return n < 0 ? -EXIT_FAIL : 0;
	for (i = 0; i < n; i++) {
		part_shown(name, sizeof(name), shown, out, p[i].path);
		/* Only the program itself was seen to be killed. */
		r = finish(p[i].path, name, p[i].pid, killed && n == 1);
		if (r < 0)
			ret = EXIT_FAIL;
		else
			*rebuilt |= r;
	}
	if (!ret && n == 1 && rename(p[0].path, out))
		ret = cli_fail("%s: cannot rename %s to it: %s", shown, p[0].path, strerror(errno));
	else if (!ret && n > 1)
		ret = merge(p, n, ro, out, shown);
	free_parts(p, n);
	return ret ? -ret : n;
}
