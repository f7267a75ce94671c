// SPDX-License-Identifier: MIT
/*
 * slimtrace record -p PID: attach to a running program.  An instance of
 * its own in the program (so the program's settings stay as they are),
 * configured through the control endpoint, recorded by the program into
 * FILE through that instance's `record` file until interrupted, the
 * duration ends or the program exits; then the instance is removed.
 * Several -p, or -a (every process of this user, those that start while
 * it runs included), record a file per process, merged at the end.
 */
#include <dirent.h>
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
#include "live/sockdir.h"
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
static int attach_setup(struct live *l, const char *inst, const struct record_opts *ro,
			int *matched)
{
	const char *s = ro->events ? ro->events : "*:*";
	char word[256], path[320];
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
		if (!matched) {
			ret = inst_write(l, inst, "set_event", word, 1);
			continue;
		}
		/*
		 * -a meets programs with different events: a word that names
		 * none of this one's is no error there, only nothing to do.
		 */
		snprintf(path, sizeof(path), "%s/set_event", inst);
		ret = live_write(l, path, word, 1);
		if (!ret && word[0] != '!')
			(*matched)++;
		if (ret == -EINVAL && l->reason && strstr(l->reason, "No such event"))
			ret = 0;
		else if (ret)
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
	ret = attach_setup(&l, inst, ro, NULL);
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
	char comm[32];			/* -a: its name, said with its pid */
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
		ret = attach_setup(&tg[i].l, inst, ro, NULL);
		if (!ret)
			ret = inst_write(&tg[i].l, inst, "record", tg[i].file, 0);
	}
	return ret;
}

/* What each process recorded, then the files as one; kept if that fails. */
static int merge_all(struct target *tg, int n, const struct record_opts *ro, const char *out,
		     const char *shown)
{
	const char **files = calloc(n, sizeof(*files));
	char prog[64], err[1024];
	struct stat st;
	int i, nr = 0, ret = 0;

	if (!files)
		return cli_fail("out of memory");
	for (i = 0; i < n; i++) {
		if (stat(tg[i].file, &st)) {
			ret = cli_fail("process %d wrote no file (%s)", tg[i].pid, tg[i].file);
			continue;
		}
		if (!ro->quiet)
			fprintf(stderr, "process %d%s%s%s%s:\n", tg[i].pid, tg[i].comm[0] ? " [" : "",
				tg[i].comm, tg[i].comm[0] ? "]" : "", tg[i].gone ? " (exited)" : "");
		snprintf(prog, sizeof(prog), "process %d", tg[i].pid);
		if (record_summarize(tg[i].file, ro->quiet, NULL, prog))
			ret = EXIT_FAIL;
		files[nr++] = tg[i].file;
	}
	if (!nr) {
		free(files);
		return ret ? ret : EXIT_FAIL;
	}
	if (tdat_merge_files(files, nr, out, err, sizeof(err))) {
		cli_fail("merging into %s: %s; each process's file is kept:", shown, err);
		for (i = 0; i < nr; i++)
			fprintf(stderr, "    %s\n", files[i]);
		free(files);
		return EXIT_FAIL;
	}
	for (i = 0; i < nr; i++)
		unlink(files[i]);
	free(files);
	i = record_summarize(shown, ro->quiet, ro->events, "the processes");
	return ret ? ret : i;
}

/* ---- -a: every slimtrace process of this user, newcomers included -------- */

/*
 * Newcomers are found by reading the socket directory every SCAN_MS, not
 * with inotify: the loop wakes that often anyway to end on time, the
 * directory may not exist yet when the run starts (inotify would have
 * to watch its parent first, then it), and a readdir of a few names is
 * nothing next to the recording.  A process started meanwhile waits at
 * most SCAN_MS, plus the endpoint's own start, to be recorded.  Only a
 * name not met before is connected to: the processes being recorded
 * are not disturbed by the scans.
 */
#define SCAN_MS		100
#define ALL_MAX		1000	/* processes in one run: a connection each */

struct all {
	struct target *tg;		/* the processes recorded */
	int nr, cap;
	int *seen;			/* every pid met, recorded or not */
	int nr_seen, cap_seen;
	int found;			/* processes that had an endpoint */
	int failed;			/* one was not recorded for an error */
	int full;			/* ALL_MAX said */
	char dir[SLIM_LIVE_PATH_MAX];
};

static int int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int was_seen(const struct all *a, int pid)
{
	int i;

	for (i = 0; i < a->nr_seen; i++)
		if (a->seen[i] == pid)
			return 1;
	return 0;
}

static int grow(void **arr, int *cap, size_t size)
{
	int n = *cap ? 2 * *cap : 16;
	void *p = realloc(*arr, n * size);

	if (!p)
		return cli_fail("out of memory");
	*arr = p;
	*cap = n;
	return 0;
}

/* A process that could not be recorded: its instance goes again. */
static void all_drop(struct target *t, const char *inst)
{
	if (t->made && !proc_gone(t->pid))
		live_rmdir(&t->l, inst);
	live_close(&t->l);
	if (t->made)
		unlink(t->file);
}

/*
 * Record PID as -p does.  A process that exits on the way, or whose
 * endpoint turns out stale, is passed over; one that refuses a setting
 * is said and left out, and the run exits 1 at the end; one with none of
 * the -e events, or one that records a file already, is said and left
 * out, and that is no error.  Returns non-zero only when the run cannot
 * go on.
 */
static int all_attach(struct all *a, int pid, const struct record_opts *ro, const char *out,
		      const char *inst)
{
	struct target *t;
	int ret, matched = 0;

	if (a->nr == a->cap && grow((void **)&a->tg, &a->cap, sizeof(*a->tg)))
		return EXIT_FAIL;
	t = &a->tg[a->nr];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	ret = live_open(&t->l, pid);
	if (ret == -ESRCH || ret == -ENOENT)
		return 0;
	a->found++;
	if (ret) {
		if (!attach_stop)
			a->failed = cli_fail("process %d: %s: not recorded", pid, t->l.why);
		return 0;
	}
	live_comm(pid, t->comm, sizeof(t->comm));
	snprintf(t->file, sizeof(t->file), "%s.%d", out, pid);
	if (unlink(t->file) && errno != ENOENT) {
		a->failed = cli_fail("%s: cannot replace: %s", t->file, strerror(errno));
		live_close(&t->l);
		return 0;
	}
	ret = live_mkdir(&t->l, inst);
	/*
	 * A fork child of a process recorded here has a copy of our instance
	 * (its name has our pid), without the recording, which stayed with
	 * the parent: it goes, and the child gets one of its own.
	 */
	if (ret == -EEXIST && !(ret = live_rmdir(&t->l, inst)))
		ret = live_mkdir(&t->l, inst);
	if (ret && !proc_gone(pid) && !attach_stop)
		cli_live_failed(&t->l, inst, ret);
	t->made = !ret;
	if (!ret)
		ret = attach_setup(&t->l, inst, ro, &matched);
	if (!ret && !matched) {
		if (!ro->quiet)
			fprintf(stderr, "slimtrace: process %d (%s) has none of the events asked "
				"for: not recorded\n", pid, t->comm);
		all_drop(t, inst);
		return 0;
	}
	if (!ret) {
		char path[128];

		snprintf(path, sizeof(path), "%s/record", inst);
		ret = live_write(&t->l, path, t->file, 0);
		/* A process records one file at a time: -a meets those that do already. */
		if (ret == -EBUSY) {
			if (!ro->quiet)
				fprintf(stderr, "slimtrace: process %d (%s) records into a file of "
					"its own already (one at a time): not recorded\n", pid,
					t->comm);
			all_drop(t, inst);
			return 0;
		}
		if (ret)
			ret = inst_write(&t->l, inst, "record", t->file, 0);
	}
	if (ret) {
		/* Gone meanwhile, or interrupted: nothing wrong with the settings. */
		if (!proc_gone(pid) && !attach_stop) {
			a->failed = EXIT_FAIL;
			fprintf(stderr, "slimtrace: process %d (%s): not recorded\n", pid, t->comm);
		}
		all_drop(t, inst);
		return 0;
	}
	t->open = 1;
	a->nr++;
	if (!ro->quiet)
		fprintf(stderr, "slimtrace: recording process %d (%s)\n", pid, t->comm);
	return 0;
}

/* The names in the directory not met before, in pid order, recorded. */
static int all_scan(struct all *a, const struct record_opts *ro, const char *out,
		    const char *inst)
{
	int *fresh = NULL, nr = 0, cap = 0, pid, tmp, i, ret = 0;
	struct dirent *d;
	DIR *dp = opendir(a->dir);

	/* None yet: no process has made it. */
	if (!dp)
		return 0;
	while ((d = readdir(dp)) && !ret) {
		pid = slim_live_name_pid(d->d_name, &tmp);
		if (!pid || tmp || pid == (int)getpid() || was_seen(a, pid))
			continue;
		if (a->nr_seen == a->cap_seen &&
		    (ret = grow((void **)&a->seen, &a->cap_seen, sizeof(int))))
			break;
		if (nr == cap && (ret = grow((void **)&fresh, &cap, sizeof(int))))
			break;
		a->seen[a->nr_seen++] = pid;
		fresh[nr++] = pid;
	}
	closedir(dp);
	if (nr)
		qsort(fresh, nr, sizeof(int), int_cmp);
	for (i = 0; i < nr && !ret && !attach_stop; i++) {
		if (a->nr == ALL_MAX) {
			if (!a->full)
				cli_fail("more than %d processes: the others are not recorded", ALL_MAX);
			a->full = a->failed = EXIT_FAIL;
			break;
		}
		ret = all_attach(a, fresh[i], ro, out, inst);
	}
	free(fresh);
	return ret;
}

static int record_all(struct record_opts *ro, const char *out, const char *shown)
{
	struct sigaction sa = { .sa_handler = on_stop };
	struct all a = { 0 };
	char inst[64], why[512];
	double end = ro->duration ? now_s() + ro->duration : 0;
	int ret, i;

	if (slim_live_dir(geteuid(), a.dir, sizeof(a.dir)))
		return cli_fail("SLIMTRACE_CONTROL_DIR is too long for a socket path");
	/* A directory that is not ours is said once, not met at every scan. */
	ret = slim_live_dir_check(a.dir, geteuid(), why, sizeof(why));
	if (ret && ret != -ENOENT)
		return cli_fail("not using %s", why);
	snprintf(inst, sizeof(inst), "instances/slimtrace-record-%d", (int)getpid());
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!ro->quiet)
		fprintf(stderr, "slimtrace: recording every slimtrace process of uid %u, and those "
			"that start, into %s (Ctrl-C stops)\n", (unsigned int)geteuid(), shown);
	ret = 0;
	while (!ret && !attach_stop && !(end && now_s() >= end)) {
		struct timespec ts = { 0, SCAN_MS * 1000000L };

		ret = all_scan(&a, ro, out, inst);
		if (!ret)
			nanosleep(&ts, NULL);
	}
	detach_all(a.tg, a.nr, inst);
	free(a.seen);
	if (ret) {
		for (i = 0; i < a.nr; i++)
			unlink(a.tg[i].file);
		free(a.tg);
		return ret;
	}
	if (!a.nr) {
		free(a.tg);
		if (!a.found)
			return cli_fail("no slimtrace process of uid %u was found (in %s)",
					(unsigned int)geteuid(), a.dir);
		return cli_fail("none of the %d process%s found was recorded", a.found,
				a.found == 1 ? "" : "es");
	}
	for (i = 0; i < a.nr && !ro->quiet; i++)
		if (a.tg[i].gone)
			fprintf(stderr, "slimtrace: process %d (%s) exited\n", a.tg[i].pid,
				a.tg[i].comm);
	ret = merge_all(a.tg, a.nr, ro, out, shown);
	free(a.tg);
	return ret ? ret : a.failed;
}

int record_attach(struct record_opts *ro, const char *out, const char *shown)
{
	struct target tg[64];
	char inst[64];
	int ret, n = ro->nr_pids, i;

	if (ro->all)
		return record_all(ro, out, shown);
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
