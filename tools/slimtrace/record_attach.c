// SPDX-License-Identifier: MIT
/*
 * slimtrace record -p PID: attach to a running program.  An instance of
 * its own in the program (so the program's settings stay as they are),
 * configured through the control endpoint, recorded by the program into
 * FILE through that instance's `record` file until interrupted, the
 * duration ends or the program exits; then the instance is removed.
 */
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "live.h"
#include "tdat_merge.h"

/* ---- -p PID: attaching to a running program ---------------------------- */

static volatile sig_atomic_t attach_stop;

static void on_stop(int sig)
{
	(void)sig;
	attach_stop = 1;
}

/* One control write in the program's instance; a refusal is said in full. */
static int inst_write(struct live *l, const char *inst, const char *file, const char *text,
		      int append_it)
{
	char path[512], what[700];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", inst, file);
	ret = live_write(l, path, text, append_it);
	if (!ret)
		return 0;
	snprintf(what, sizeof(what), "%s '%s'", file, text);
	return cli_live_failed(l, what, ret);
}

/*
 * The filters: each "SYS:EVENT:EXPR" of -f (globs allowed, as -e made
 * them) written to the filter of every event of the program it matches.
 */
static int attach_filters(struct live *l, const char *inst, const char *filters)
{
	char *avail = NULL, *list, *entry, *save, *line, *save2, file[600];
	size_t len;
	int ret;

	if (!filters)
		return 0;
	ret = live_read(l, "available_events", &avail, &len);
	if (ret)
		return cli_live_failed(l, "available_events", ret);
	list = strdup(filters);
	ret = list ? 0 : cli_fail("out of memory");
	for (entry = list ? strtok_r(list, ";", &save) : NULL; entry && !ret;
	     entry = strtok_r(NULL, ";", &save)) {
		char *ev = strchr(entry, ':'), *expr = ev ? strchr(ev + 1, ':') : NULL;
		char *copy = strdup(avail);

		if (!expr || !copy) {
			free(copy);
			continue;
		}
		*ev++ = '\0';
		*expr++ = '\0';
		for (line = strtok_r(copy, "\n", &save2); line && !ret;
		     line = strtok_r(NULL, "\n", &save2)) {
			char *name = strchr(line, ':');

			if (!name)
				continue;
			*name++ = '\0';
			if (fnmatch(entry, line, 0) || fnmatch(ev, name, 0))
				continue;
			snprintf(file, sizeof(file), "events/%s/%s/filter", line, name);
			ret = inst_write(l, inst, file, expr, 0);
		}
		free(copy);
	}
	free(list);
	free(avail);
	return ret;
}

/*
 * The instance's settings, from the options: as -e/-f/-b/-C/-O say.  The
 * filters go before the events are enabled, so that no record made
 * before its filter reaches the file.
 */
static int attach_setup(struct live *l, const char *inst, const struct record_opts *ro)
{
	const char *s = ro->events ? ro->events : "*:*";
	char word[256];
	size_t n;
	int ret = attach_filters(l, inst, ro->filters);

	if (!ret && ro->buffer_kb)
		ret = inst_write(l, inst, "buffer_size_kb", ro->buffer_kb, 0);
	if (!ret && ro->clock)
		ret = inst_write(l, inst, "trace_clock", ro->clock, 0);
	if (!ret)
		ret = inst_write(l, inst, "trace_options", ro->overwrite ? "overwrite" : "nooverwrite",
				 0);
	for (; *s && !ret; s += n) {
		s += strspn(s, ", \t\n");
		n = strcspn(s, ", \t\n");
		if (!n || n >= sizeof(word))
			continue;
		memcpy(word, s, n);
		word[n] = '\0';
		ret = inst_write(l, inst, "set_event", word, 1);
	}
	return ret;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Has the process exited (a zombie not yet reaped counts)? */
static int proc_gone(int pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	int gone;

	if (kill(pid, 0) && errno == ESRCH)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	gone = p && (p[2] == 'Z' || p[2] == 'X');
	return gone;
}

/* Until interrupted, the duration is over or the program is gone. */
static void attach_wait(const struct record_opts *ro, int pid)
{
	struct sigaction sa = { .sa_handler = on_stop };
	double end = ro->duration ? now_s() + ro->duration : 0;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!attach_stop && !(end && now_s() >= end) && !proc_gone(pid)) {
		struct timespec ts = { 0, 50 * 1000000L };

		nanosleep(&ts, NULL);
	}
}

static int attach_one(struct record_opts *ro, const char *out, const char *shown)
{
	char inst[64], prog[64];
	struct live l;
	int ret, gone;

	if (live_open(&l, ro->pid))
		return cli_fail("%s", l.why);
	snprintf(inst, sizeof(inst), "instances/slimtrace-record-%d", (int)getpid());
	ret = live_mkdir(&l, inst);
	if (ret) {
		ret = cli_live_failed(&l, inst, ret);
		live_close(&l);
		return ret;
	}
	ret = attach_setup(&l, inst, ro);
	if (!ret)
		ret = inst_write(&l, inst, "record", out, 0);
	if (!ret) {
		if (!ro->quiet)
			fprintf(stderr, "slimtrace: recording process %d into %s (Ctrl-C stops)\n",
				ro->pid, shown);
		attach_wait(ro, ro->pid);
	}
	/* A program that exited finished its file on its way out. */
	gone = proc_gone(ro->pid);
	if (!gone) {
		if (!ret)
			ret = inst_write(&l, inst, "record", "0", 0);
		live_rmdir(&l, inst);
	}
	live_close(&l);
	if (ret)
		return ret;
	if (gone && !ro->quiet)
		fprintf(stderr, "slimtrace: process %d exited\n", ro->pid);
	snprintf(prog, sizeof(prog), "process %d", ro->pid);
	return record_summarize(shown, ro->quiet, ro->events, prog);
}

/* ---- -p A -p B: several processes into one file -------------------------- */

struct target {
	struct live l;
	int pid, open, made, gone;
	char file[4200];		/* its own file, merged at the end */
};

static int any_alive(const struct target *tg, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (tg[i].made && !proc_gone(tg[i].pid))
			return 1;
	return 0;
}

static void wait_all(const struct record_opts *ro, const struct target *tg, int n)
{
	struct sigaction sa = { .sa_handler = on_stop };
	double end = ro->duration ? now_s() + ro->duration : 0;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!attach_stop && !(end && now_s() >= end) && any_alive(tg, n)) {
		struct timespec ts = { 0, 50 * 1000000L };

		nanosleep(&ts, NULL);
	}
}

/* Stop and remove what was made in each target; a gone one wrote its file on exit. */
static void detach_all(struct target *tg, int n, const char *inst)
{
	int i;

	for (i = 0; i < n; i++) {
		if (tg[i].made) {
			tg[i].gone = proc_gone(tg[i].pid);
			if (!tg[i].gone) {
				inst_write(&tg[i].l, inst, "record", "0", 0);
				live_rmdir(&tg[i].l, inst);
			}
		}
		if (tg[i].open)
			live_close(&tg[i].l);
	}
}

/* Every target reached first: a pid that is not one refuses the whole run. */
static int open_all(struct target *tg, int n, const struct record_opts *ro)
{
	int i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++)
			if (ro->pids[j] == ro->pids[i])
				return cli_bad_usage("record", "-p %d given twice", ro->pids[i]);
		tg[i].pid = ro->pids[i];
		if (live_open(&tg[i].l, tg[i].pid))
			return cli_fail("-p %d: %s", tg[i].pid, tg[i].l.why);
		tg[i].open = 1;
	}
	return 0;
}

static int start_all(struct target *tg, int n, const struct record_opts *ro, const char *out,
		     const char *inst)
{
	int i, ret = 0;

	for (i = 0; i < n && !ret; i++) {
		snprintf(tg[i].file, sizeof(tg[i].file), "%s.%d", out, tg[i].pid);
		if (unlink(tg[i].file) && errno != ENOENT)
			return cli_fail("%s: cannot replace: %s", tg[i].file, strerror(errno));
		ret = live_mkdir(&tg[i].l, inst);
		if (ret)
			return cli_live_failed(&tg[i].l, inst, ret);
		tg[i].made = 1;
		ret = attach_setup(&tg[i].l, inst, ro);
		if (!ret)
			ret = inst_write(&tg[i].l, inst, "record", tg[i].file, 0);
	}
	return ret;
}

/* What each process recorded, then the files as one; kept if that fails. */
static int merge_all(struct target *tg, int n, const struct record_opts *ro, const char *out,
		     const char *shown)
{
	const char *files[64];
	char prog[64], err[1024];
	struct stat st;
	int i, nr = 0, ret = 0;

	for (i = 0; i < n; i++) {
		if (stat(tg[i].file, &st)) {
			ret = cli_fail("process %d wrote no file (%s)", tg[i].pid, tg[i].file);
			continue;
		}
		if (!ro->quiet)
			fprintf(stderr, "process %d%s:\n", tg[i].pid, tg[i].gone ? " (exited)" : "");
		snprintf(prog, sizeof(prog), "process %d", tg[i].pid);
		if (record_summarize(tg[i].file, ro->quiet, NULL, prog))
			ret = EXIT_FAIL;
		files[nr++] = tg[i].file;
	}
	if (!nr)
		return ret ? ret : EXIT_FAIL;
	if (tdat_merge_files(files, nr, out, err, sizeof(err))) {
		cli_fail("merging into %s: %s; each process's file is kept:", shown, err);
		for (i = 0; i < nr; i++)
			fprintf(stderr, "    %s\n", files[i]);
		return EXIT_FAIL;
	}
	for (i = 0; i < nr; i++)
		unlink(files[i]);
	i = record_summarize(shown, ro->quiet, ro->events, "the processes");
	return ret ? ret : i;
}

int record_attach(struct record_opts *ro, const char *out, const char *shown)
{
	struct target tg[64];
	char inst[64];
	int ret, n = ro->nr_pids, i;

	if (n <= 1)
		return attach_one(ro, out, shown);
	memset(tg, 0, sizeof(tg));
	snprintf(inst, sizeof(inst), "instances/slimtrace-record-%d", (int)getpid());
	ret = open_all(tg, n, ro);
	if (!ret)
		ret = start_all(tg, n, ro, out, inst);
	if (!ret && !ro->quiet) {
		fprintf(stderr, "slimtrace: recording processes");
		for (i = 0; i < n; i++)
			fprintf(stderr, " %d", tg[i].pid);
		fprintf(stderr, " into %s (Ctrl-C stops)\n", shown);
	}
	if (!ret)
		wait_all(ro, tg, n);
	detach_all(tg, n, inst);
	if (ret) {
		for (i = 0; i < n; i++)
			if (tg[i].made)
				unlink(tg[i].file);
		return ret;
	}
	for (i = 0; i < n && !ro->quiet; i++)
		if (tg[i].gone)
			fprintf(stderr, "slimtrace: process %d exited\n", tg[i].pid);
	return merge_all(tg, n, ro, out, shown);
}
