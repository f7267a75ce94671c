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
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "live.h"

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

int record_attach(struct record_opts *ro, const char *out, const char *shown)
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
