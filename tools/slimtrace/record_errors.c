// SPDX-License-Identifier: MIT
/*
 * slimtrace record: what the program's library refused, said by the
 * command.  The library writes it to SLIMTRACE_ERROR_FILE, a private
 * temporary file, one line per refused (event, filter); it would
 * otherwise say it on the program's stderr, from a process that is gone
 * by the time the summary is read.  The format is in src/ctl/startup.c:
 *
 *   filter	SYS:EVENT	POS	REASON	EXPR
 *
 * An event whose filter was refused was not enabled: nothing of it is
 * in the file, filtered or not.  A -f given after -e names its events,
 * so each refusal is an error.  A -f with no -e before it applies to
 * every event, and fitting only some of them is what it is for: one
 * line per expression, and an error only if no event took it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

struct refused {
	char *line;			/* the line, cut in place */
	const char *event, *reason, *expr;
	int pos;
};

/* The temporary file, removed at exit whatever way record ends. */
static char err_path[PATH_MAX];

static void remove_err_file(void)
{
	if (err_path[0])
		unlink(err_path);
	err_path[0] = '\0';
}

int record_errors_setup(void)
{
	const char *dir = getenv("TMPDIR");
	static int hooked;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	if ((size_t)snprintf(err_path, sizeof(err_path), "%s/slimtrace-errors.XXXXXX", dir) >=
	    sizeof(err_path)) {
		err_path[0] = '\0';
		return cli_fail("TMPDIR %s: the path is too long", dir);
	}
	fd = mkstemp(err_path);
	if (fd < 0) {
		cli_fail("cannot make a temporary file in %s: %s", dir, strerror(errno));
		err_path[0] = '\0';
		return EXIT_FAIL;
	}
	/* The library opens it by name, O_APPEND, for each line. */
	close(fd);
	if (!hooked++)
		atexit(remove_err_file);
	if (setenv("SLIMTRACE_ERROR_FILE", err_path, 1))
		return cli_fail("cannot set SLIMTRACE_ERROR_FILE: %s", strerror(errno));
	return 0;
}

/* "filter\tEV\tPOS\tREASON\tEXPR": 0, or -1 for another kind of line. */
static int cut(char *line, struct refused *r)
{
	char *f[4], *p = line, *end;
	int i;

	for (i = 0; i < 4; i++) {
		f[i] = p;
		p = strchr(p, '\t');
		if (!p)
			return -1;
		*p++ = '\0';
	}
	if (strcmp(f[0], "filter"))
		return -1;
	r->event = f[1];
	r->pos = (int)strtol(f[2], &end, 10);
	if (*end)
		r->pos = -1;
	r->reason = f[3];
	r->expr = p;
	return 0;
}

static struct refused *read_lines(const char *path, int *nr)
{
	struct refused *v = NULL, *nv, r;
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int i;

	*nr = 0;
	if (!f)
		return NULL;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		memset(&r, 0, sizeof(r));
		if (cut(line, &r))
			continue;
		/* Said once per (event, expression), whoever wrote it twice. */
		for (i = 0; i < *nr; i++)
			if (!strcmp(v[i].event, r.event) && !strcmp(v[i].expr, r.expr))
				break;
		if (i < *nr)
			continue;
		nv = realloc(v, (*nr + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		r.line = line;
		v[(*nr)++] = r;
		line = NULL;
		cap = 0;
	}
	free(line);
	fclose(f);
	return v;
}

/* The expression as error_log shows it, a caret under the spot. */
static void print_command(const char *expr, int pos)
{
	int len = (int)strlen(expr);

	fprintf(stderr, "  Command: %s\n", expr);
	if (pos >= 0)
		fprintf(stderr, "%*s^\n", 11 + (pos < len ? pos : len), "");
}

/* The N bytes at E are EXPR as the library wrote it (tabs and newlines blanked)? */
static int same_expr(const char *e, size_t n, const char *expr)
{
	size_t i;

	if (strlen(expr) != n)
		return 0;
	for (i = 0; i < n; i++)
		if ((e[i] && strchr("\t\n\r", e[i]) ? ' ' : e[i]) != expr[i])
			return 0;
	return 1;
}

/*
 * Was EXPR applied to every event (a -f with no -e before it)?  record
 * passed those as "*:*:EXPR" entries of SLIMTRACE_FILTER.
 */
static int for_all_events(const char *filters, const char *expr)
{
	const char *e;
	size_t n;

	for (e = filters; e && *e; e += n + (e[n] == ';')) {
		n = strcspn(e, ";");
		if (n >= 4 && !strncmp(e, "*:*:", 4) && same_expr(e + 4, n - 4, expr))
			return 1;
	}
	return 0;
}

/* How many events the file knows: every event the program had loaded. */
static int events_in(const char *file)
{
	struct tdat_open_flags fl = { .no_plugins = 1 };
	struct tdat t;
	int n = 0;

	if (tdat_open(&t, file, &fl) == 0)
		n = t.nr_events;
	tdat_close(&t);
	return n;
}

int record_errors_report(const struct record_opts *ro, const char *file, int ret)
{
	struct refused *v;
	int nr, i, j, n, m, fail = 0, all = -1;

	if (!err_path[0])
		return ret;
	v = read_lines(err_path, &nr);
	remove_err_file();
	for (i = 0; i < nr; i++) {
		/* The first refusal of each expression speaks for it. */
		for (j = 0; j < i && strcmp(v[j].expr, v[i].expr); j++)
			;
		if (j < i)
			continue;
		if (!for_all_events(ro->filters, v[i].expr)) {
			for (j = i; j < nr; j++) {
				if (strcmp(v[j].expr, v[i].expr))
					continue;
				cli_fail("record -f '%s': refused for %s: %s; %s was not recorded",
					 v[j].expr, v[j].event, v[j].reason, v[j].event);
				print_command(v[j].expr, v[j].pos);
			}
			fail = 1;
			continue;
		}
		for (j = i, n = 0; j < nr; j++)
			n += !strcmp(v[j].expr, v[i].expr);
		if (all < 0)
			all = events_in(file);
		/* A program that exec'd another may have refused more than the file holds. */
		m = all > n ? all : n;
		cli_fail("record -f '%s': refused by %d of %d event%s (e.g. %s: %s); %s not recorded",
			 v[i].expr, n, m, m == 1 ? "" : "s", v[i].event, v[i].reason,
			 n == 1 ? "it was" : "they were");
		print_command(v[i].expr, v[i].pos);
		/* It fitted none: nothing asked for was recorded. */
		if (n >= m)
			fail = 1;
	}
	for (i = 0; i < nr; i++)
		free(v[i].line);
	free(v);
	return ret ? ret : fail ? EXIT_FAIL : 0;
}
