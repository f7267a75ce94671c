// SPDX-License-Identifier: MIT
/*
 * Recording to trace.dat, checked with trace-cmd itself: every scenario
 * runs in a child process (the way it ends is the point: stop, exit()
 * from a thread, return from main, SIGSEGV, SIGABRT, SIGKILL), and the
 * parent reads the file with `trace-cmd report`.  Every event fired must
 * be there with its values, in order, with times between the clock
 * readings the child took around it, or be counted as lost: recorded +
 * lost == fired.  trace-cmd must say nothing on stderr, and --ts-check
 * must pass.  No trace-cmd on the machine is a failure, not a skip.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slimtrace/ctl.h>
#include <slimtrace/output.h>
#include <slimtrace/record.h>

#include "check.h"
#include "buffers/buffer.h"
#include "core/clock.h"
#include "ring/page.h"
#include "rec_events.h"
#include "record/record.h"
#include "record/rec.h"

#define MAX_EVENTS	400000

static char dir[64];
static char self[4096];

/* What a child reports to its parent before it ends. */
struct child_info {
	uint64_t t0, t1;	/* trace clock (ns) around the events */
	long fired;		/* events fired */
	int ok;			/* the child's own calls succeeded */
};

/* One event line of `trace-cmd report`. */
struct line {
	char comm[32];
	int pid, cpu;
	uint64_t us;		/* time stamp, microseconds */
	int text;		/* rec_text rather than rec_pair */
	long a, b;		/* rec_pair a, b; rec_text n in a */
	char s[32];		/* rec_text s */
};

struct report {
	struct line *v;
	int n;
	int cpus;		/* "cpus=N" */
	long lost_marked;	/* sum of [N EVENTS DROPPED] */
	int lost_unknown;	/* [EVENTS DROPPED] without a count */
	int bad_lines;
	char bad[160];		/* the first of them */
	/* --stat */
	long overrun, dropped, read;
	int stat_cpus;
};

static struct report rep;

/* ---- running trace-cmd ---------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	if (len)
		*len = (size_t)n;
	fclose(f);
	return buf;
}

/* Run argv with stdout and stderr into files; the exit code, -1 if not run. */
static int run(char *const argv[], const char *out, const char *err)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(o, 1);
		dup2(e, 2);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* `trace-cmd CMD [OPT] -i file`: stdout text, NULL if it failed (says why). */
static char *trace_cmd_run(const char *cmd, const char *opt, const char *file)
{
	char out[128], err[128];
	char *argv[6] = { "trace-cmd", (char *)cmd, NULL, NULL, NULL, NULL };
	char *text, *errs;
	int i = 2, rc;

	snprintf(out, sizeof(out), "%s/out.txt", dir);
	snprintf(err, sizeof(err), "%s/err.txt", dir);
	if (opt)
		argv[i++] = (char *)opt;
	argv[i++] = "-i";
	argv[i++] = (char *)file;
	rc = run(argv, out, err);
	errs = slurp(err, NULL);
	if (rc == 127 && errs && strstr(errs, "cannot run")) {
		fprintf(stderr, "FAIL: trace-cmd is not installed (apt-get install trace-cmd)\n");
		CHECK(!"trace-cmd missing");
		exit(check_done("record"));
	}
	if (!CHECK(rc == 0) || !CHECK(errs && !*errs))
		fprintf(stderr, "     trace-cmd %s %s %s: exit %d, stderr:\n%s\n", cmd,
			opt ? opt : "", file, rc, errs ? errs : "(none)");
	free(errs);
	text = slurp(out, NULL);
	return rc == 0 ? text : (free(text), NULL);
}

static char *trace_cmd(const char *opt, const char *file)
{
	return trace_cmd_run("report", opt, file);
}

/*
 * The clock named in both places trace-cmd 3.1 looks: the TRACECLOCK
 * option (an empty one made it parse stray memory: times came out raw now
 * and then) and the text after the index.
 */
static void check_clock(const char *file, const char *want)
{
	char *opts = trace_cmd_run("dump", "--options", file);
	char *clock = trace_cmd_run("dump", "--clock", file);
	const char *o = opts ? strstr(opts, "Option TRACECLOCK") : NULL;

	CHECK(o && strstr(o, want) == strchr(o, '\n') + 1);
	CHECK(clock && strstr(clock, want));
	free(opts);
	free(clock);
}

static int parse_line(const char *l, struct line *e)
{
	const char *br = strstr(l, " [");
	const char *dash;
	unsigned long sec, usec;
	char ev[32];
	int n;

	if (!br)
		return 0;
	for (dash = br; dash > l && *dash != '-'; dash--)
		;
	while (*l == ' ')
		l++;
	if (dash <= l || (size_t)(dash - l) >= sizeof(e->comm))
		return 0;
	memcpy(e->comm, l, (size_t)(dash - l));
	e->comm[dash - l] = '\0';
	e->pid = atoi(dash + 1);
	if (sscanf(br, " [%d] %lu.%lu: %31[^:]:%n", &e->cpu, &sec, &usec, ev, &n) != 4)
		return 0;
	e->us = (uint64_t)sec * 1000000 + usec;
	e->text = strcmp(ev, "rec_text") == 0;
	if (e->text)
		return sscanf(br + n, " n=%ld s=%31s", &e->a, e->s) == 2;
	return strcmp(ev, "rec_pair") == 0 && sscanf(br + n, " a=%ld b=%ld", &e->a, &e->b) == 2;
}

/* Lines are cut out first: sscanf() would measure the whole rest each time. */
static void parse_report(char *text)
{
	char *l, *nl;
	long n;

	for (l = text; l && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		if (!*l || sscanf(l, "cpus=%d", &rep.cpus) == 1)
			continue;
		if (strncmp(l, "CPU:", 4) == 0 && strstr(l, "EVENTS DROPPED]")) {
			if (sscanf(strchr(l, '['), "[%ld EVENTS", &n) == 1)
				rep.lost_marked += n;
			else
				rep.lost_unknown++;
			continue;
		}
		if (strncmp(l, "CPU ", 4) == 0 && strstr(l, "is empty"))
			continue;
		if (rep.n < MAX_EVENTS && parse_line(l, &rep.v[rep.n]))
			rep.n++;
		else if (!rep.bad_lines++)
			snprintf(rep.bad, sizeof(rep.bad), "%s", l);
	}
}

static void parse_stat(char *text)
{
	char *l, *nl;
	long v;

	for (l = text; l && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(l, "CPU: ", 5) == 0)
			rep.stat_cpus++;
		else if (sscanf(l, "overrun: %ld", &v) == 1)
			rep.overrun += v;
		else if (sscanf(l, "dropped events: %ld", &v) == 1)
			rep.dropped += v;
		else if (sscanf(l, "read events: %ld", &v) == 1)
			rep.read += v;
	}
}

/* Read file with trace-cmd: report, --ts-check, --stat.  0 if unreadable. */
static int read_file(const char *file)
{
	char *text;

	free(rep.v);
	memset(&rep, 0, sizeof(rep));
	rep.v = calloc(MAX_EVENTS, sizeof(*rep.v));
	text = trace_cmd(NULL, file);
	if (!text)
		return 0;
	parse_report(text);
	free(text);
	text = trace_cmd("--ts-check", file);
	free(text);
	text = trace_cmd("--stat", file);
	if (text)
		parse_stat(text);
	free(text);
	if (!CHECK(rep.bad_lines == 0))
		fprintf(stderr, "     %s: %d lines not understood, the first:\n%s\n",
			file, rep.bad_lines, rep.bad);
	return 1;
}

/* ---- the children --------------------------------------------------------- */

static char path[128];
static int info_fd = -1;
static struct child_info info;

static uint64_t clock_ns(void)
{
	struct timespec ts;

	clock_gettime(slim_bufset_top.clock == SLIM_CLOCK_MONO_RAW ?
		      CLOCK_MONOTONIC_RAW : CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void tell_parent(void)
{
	if (write(info_fd, &info, sizeof(info)) != sizeof(info))
		_exit(99);
}

/* Fire n pairs (a, b = first..first+n-1) and for a = 0 every 64th a text. */
static long fire(int a, long first, long n)
{
	long i, fired = 0;

	for (i = 0; i < n; i++) {
		trace_rec_pair(a, (int)(first + i));
		fired++;
		if (a == 0 && (first + i) % 64 == 0) {
			trace_rec_text((int)(first + i), "hello");
			fired++;
		}
	}
	return fired;
}

static void child_setup(const char *kb, const char *overwrite, const char *clock)
{
	struct rlimit no_core = { 0, 0 };

	setrlimit(RLIMIT_CORE, &no_core);
	prctl(PR_SET_NAME, "recchild");
	info.ok = slim_ctl_write("set_event", "rectest:*") == 0;
	if (kb)
		info.ok &= slim_ctl_write("buffer_size_kb", kb) == 0;
	if (overwrite)
		info.ok &= slim_ctl_write("trace_options", overwrite) == 0;
	if (clock)
		info.ok &= slim_ctl_write("trace_clock", clock) == 0;
}

static void child_start(void)
{
	info.ok &= slim_record_start(path) == 0;
	info.t0 = clock_ns();
}

static void *exit_thread(void *arg)
{
	(void)arg;
	info.fired += fire(0, 0, 3000);
	info.t1 = clock_ns();
	tell_parent();
	exit(0);
}

static pthread_barrier_t both;

/* Both threads hold a buffer at once, so they get one each. */
static void *worker(void *arg)
{
	char name[16];
	int id = (int)(long)arg;

	snprintf(name, sizeof(name), "recw%d", id);
	prctl(PR_SET_NAME, name);
	fire(id, 0, 1);
	pthread_barrier_wait(&both);
	fire(id, 1, 19999);
	return NULL;
}

static void two_threads(void)
{
	pthread_t th[2];
	long i;

	pthread_barrier_init(&both, NULL, 2);
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, worker, (void *)(i + 1));
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	info.fired = 40000;
}

/* A write the kernel refuses: a real fault, whatever the sanitizers do. */
static void segfault(void)
{
	volatile int *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	*p = 1;
}

/* ---- limits: a burst of threads, few descriptors, a small file size ---- */

#define BURST		128	/* threads that take a buffer at once */
#define BURST_EVENTS	100

static pthread_barrier_t go, fired_all;

/* Each takes its buffer when all are released together, then stays. */
static void *burst_worker(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "burst");
	pthread_barrier_wait(&go);
	fire(1, 0, BURST_EVENTS);
	pthread_barrier_wait(&fired_all);
	for (;;)
		pause();
	return NULL;
}

/* wait: join them (they must then return); else leave them running. */
static void burst(int wait, void *(*fn)(void *))
{
	static pthread_t th[BURST];
	int i;

	pthread_barrier_init(&go, NULL, BURST + 1);
	pthread_barrier_init(&fired_all, NULL, BURST + 1);
	for (i = 0; i < BURST; i++)
		info.ok &= pthread_create(&th[i], NULL, fn, NULL) == 0;
	pthread_barrier_wait(&go);
	pthread_barrier_wait(&fired_all);
	info.fired += BURST * BURST_EVENTS;
	for (i = 0; wait && i < BURST; i++)
		pthread_join(th[i], NULL);
}

static void *burst_returner(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&go);
	fire(1, 0, BURST_EVENTS);
	pthread_barrier_wait(&fired_all);
	return NULL;
}

/*
 * What a fatal signal handler does, without the consumer that would have
 * grown the tables first: a pass in signal mode over buffers it has
 * never seen, as many as a burst of threads made.  (Before, it had room
 * for 16 beyond the last pass.)
 */
static void signal_pass_unseen(void)
{
	struct rec_drain_state d;
	struct rec_sink sink;
	uint64_t read = 0;
	int i;

	child_setup(NULL, NULL, NULL);
	info.ok &= rec_sink_open(&sink, 6, path) == 0;
	info.ok &= rec_drain_init(&d, &sink, rec_src_set()) == 0;
	burst(0, burst_worker);
	d.in_signal = 1;
	info.ok &= rec_drain(&d, REC_DRAIN_SIGNAL) == 0;
	rec_drain_stats(&d);
	for (i = 0; i < d.nr; i++)
		read += d.stats[i].read;
	info.ok &= d.nr == BURST && read == (uint64_t)info.fired;
	if (d.nr != BURST || read != (uint64_t)info.fired)
		fprintf(stderr, "     signal pass: %d buffers, %llu of %ld events\n", d.nr,
			(unsigned long long)read, info.fired);
	tell_parent();
	_exit(0);
}

/* This process's address space now, in bytes (VmSize). */
static rlim_t vm_size(void)
{
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long kb = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %lu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return (rlim_t)kb << 10;
}

static void *nobuf_worker(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&go);
	fire(1, 0, 100);
	return NULL;
}

/*
 * A thread that can get no buffer (no address space left to map one):
 * its events are lost for want of a buffer, and the file says how many.
 */
static void thread_without_buffer(void)
{
	struct rlimit old, rl;
	pthread_t th;

	pthread_barrier_init(&go, NULL, 2);
	info.ok &= pthread_create(&th, NULL, nobuf_worker, NULL) == 0;
	getrlimit(RLIMIT_AS, &old);
	rl = old;
	rl.rlim_cur = vm_size() + (64 << 10);
	info.ok &= setrlimit(RLIMIT_AS, &rl) == 0;
	pthread_barrier_wait(&go);
	pthread_join(th, NULL);
	info.ok &= setrlimit(RLIMIT_AS, &old) == 0;
	info.fired += 100;
}

/* Descriptors open in this process. */
static int open_fds(void)
{
	int n = 0, fd;

	for (fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/* Few descriptors left: fewer than there are buffers to spool. */
static void low_fd_limit(void)
{
	struct rlimit rl;

	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = (rlim_t)open_fds() + 4;
	info.ok &= setrlimit(RLIMIT_NOFILE, &rl) == 0;
}

#define FSIZE_LIMIT	(600 << 10)	/* each CPU's pages fit, the whole file not */

/* The final file cannot be written; stderr goes to PATH.err. */
static void small_file_limit(void)
{
	struct rlimit rl = { FSIZE_LIMIT, FSIZE_LIMIT };
	char err[200];
	int fd;

	snprintf(err, sizeof(err), "%s.err", path);
	fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	info.ok &= fd >= 0 && dup2(fd, 2) == 2;
	signal(SIGXFSZ, SIG_IGN);	/* EFBIG rather than death */
	info.ok &= setrlimit(RLIMIT_FSIZE, &rl) == 0;
}

/* Start with the file's name relative to its folder, then move away. */
static void chdir_start(void)
{
	char sub[200];

	snprintf(sub, sizeof(sub), "%s/elsewhere", dir);
	info.ok &= mkdir(sub, 0755) == 0 && chdir(dir) == 0;
	info.ok &= slim_record_start(strrchr(path, '/') + 1) == 0;
	info.t0 = clock_ns();
	info.ok &= chdir(sub) == 0;
}

enum scenario {
	SC_STOP, SC_EXIT_THREAD, SC_SEGV, SC_ABRT, SC_KILL, SC_THREADS,
	SC_OVERWRITE, SC_DROP, SC_EMPTY, SC_MONO_RAW,
	SC_BURST_SEGV, SC_NOFILE, SC_FSIZE, SC_CHDIR, SC_SIGNAL_UNSEEN, SC_NOBUF,
};

static void run_child(enum scenario sc)
{
	pthread_t th;

	switch (sc) {
	case SC_OVERWRITE:
	case SC_DROP:
		child_setup("8", sc == SC_DROP ? "nooverwrite" : "overwrite", NULL);
		/* Before recording: the 2-page buffers must lose most of these. */
		info.t0 = clock_ns();
		info.fired += fire(0, 0, 20000);
		info.ok &= slim_record_start(path) == 0;
		info.fired += fire(0, 20000, 200000);
		break;
	case SC_MONO_RAW:
		child_setup(NULL, NULL, "mono_raw");
		child_start();
		info.fired += fire(0, 0, 3000);
		break;
	case SC_BURST_SEGV:
		signal(SIGSEGV, SIG_DFL);
		child_setup(NULL, NULL, NULL);
		child_start();
		info.fired += fire(0, 0, 1000);
		info.ok &= slim_record_sync() == 0;
		/* Buffers the consumer has not seen yet when the crash comes. */
		burst(0, burst_worker);
		info.t1 = clock_ns();
		tell_parent();
		segfault();
		break;
	case SC_SIGNAL_UNSEEN:
		signal_pass_unseen();
		break;
	case SC_NOFILE:
		child_setup(NULL, NULL, NULL);
		low_fd_limit();
		child_start();
		burst(1, burst_returner);
		break;
	case SC_FSIZE:
		child_setup(NULL, NULL, NULL);
		small_file_limit();
		child_start();
		two_threads();
		info.t1 = clock_ns();
		info.ok &= slim_record_stop() == -EFBIG;
		tell_parent();
		exit(0);
	case SC_CHDIR:
		child_setup(NULL, NULL, NULL);
		chdir_start();
		info.fired += fire(0, 0, 3000);
		break;
	case SC_NOBUF:
		child_setup(NULL, NULL, NULL);
		child_start();
		info.fired += fire(0, 0, 10);
		thread_without_buffer();
		break;
	case SC_SEGV:
		/*
		 * Sanitizers install a SIGSEGV handler of their own, and the
		 * library leaves a program's handlers alone: give it the
		 * default a plain program has.
		 */
		signal(SIGSEGV, SIG_DFL);
		child_setup(NULL, NULL, NULL);
		child_start();
		info.fired += fire(0, 0, 5000);
		info.t1 = clock_ns();
		tell_parent();
		segfault();
		break;
	default:
		child_setup(NULL, NULL, NULL);
		child_start();
		break;
	}
	switch (sc) {
	case SC_EXIT_THREAD:
		pthread_create(&th, NULL, exit_thread, NULL);
		pthread_join(th, NULL);
		break;
	case SC_ABRT:
		info.fired += fire(0, 0, 5000);
		info.t1 = clock_ns();
		tell_parent();
		abort();
	case SC_KILL:
		info.fired += fire(0, 0, 3000);
		info.ok &= slim_record_sync() == 0;
		info.t1 = clock_ns();
		tell_parent();
		info.fired += fire(0, 3000, 5000);
		raise(SIGKILL);
		break;
	case SC_THREADS:
		two_threads();
		break;
	case SC_STOP:
		info.fired += fire(0, 0, 5000);
		break;
	default:
		break;
	}
	info.t1 = clock_ns();
	info.ok &= slim_record_stop() == 0;
	info.ok &= slim_record_stop() == -ENOENT;
	tell_parent();
	exit(0);
}

/* Run scenario sc in a child; its wait status, *ci what it said. */
static int spawn(enum scenario sc, struct child_info *ci)
{
	int fds[2], status = 0;
	pid_t pid;

	memset(ci, 0, sizeof(*ci));
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		info_fd = fds[1];
		run_child(sc);
	}
	close(fds[1]);
	if (read(fds[0], ci, sizeof(*ci)) != sizeof(*ci))
		ci->ok = -1;
	close(fds[0]);
	waitpid(pid, &status, 0);
	return status;
}

/* ---- checks on what trace-cmd read ---------------------------------------- */

/* Each writer's events in firing order, none twice, times in range. */
static void check_events(const struct child_info *ci, int writers, int may_lose)
{
	long next[3] = { 0, 0, 0 };
	uint64_t last_us = 0;
	int i, order = -1, range = -1, values = -1, names = -1;

	for (i = 0; i < rep.n; i++) {
		struct line *e = &rep.v[i];
		int w = e->text ? 0 : (int)e->a;

		/* The saved cmdlines: one thread, the name it gave itself. */
		if (writers == 1 && strcmp(e->comm, "recchild") && names < 0)
			names = i;
		if (e->us < last_us && order < 0)
			order = i;
		last_us = e->us;
		/* trace-cmd prints whole microseconds: allow for the rounding. */
		if ((e->us + 2 < ci->t0 / 1000 || e->us > ci->t1 / 1000 + 2) && range < 0)
			range = i;
		if (e->text) {
			if ((strcmp(e->s, "hello") || e->a % 64) && values < 0)
				values = i;
			continue;
		}
		if (w < 0 || w > 2 || (w == 0 && writers > 1)) {
			if (values < 0)
				values = i;
			continue;
		}
		if ((e->b < next[w] || (!may_lose && e->b != next[w])) && order < 0)
			order = i;
		next[w] = e->b + 1;
	}
	if (!CHECK(order < 0))
		fprintf(stderr, "     out of order at event %d: a=%ld b=%ld us=%llu\n", order,
			rep.v[order].a, rep.v[order].b, (unsigned long long)rep.v[order].us);
	if (!CHECK(values < 0))
		fprintf(stderr, "     wrong values at event %d\n", values);
	if (!CHECK(names < 0))
		fprintf(stderr, "     event %d by %s-%d\n", names, rep.v[names].comm,
			rep.v[names].pid);
	if (!CHECK(range < 0))
		fprintf(stderr, "     event %d at %llu us, outside [%llu, %llu] us\n", range,
			(unsigned long long)rep.v[range].us,
			(unsigned long long)ci->t0 / 1000, (unsigned long long)ci->t1 / 1000);
}

static void check_no_leftovers(void)
{
	char name[200];
	struct stat st;

	snprintf(name, sizeof(name), "%s.cpu0", path);
	CHECK(stat(name, &st) != 0);
	snprintf(name, sizeof(name), "%s.part", path);
	CHECK(stat(name, &st) != 0);
}

static void check_exact(const struct child_info *ci)
{
	CHECK_EQ_INT(rep.n, rep.read);
	if (!CHECK(rep.n + rep.overrun + rep.dropped == ci->fired))
		fprintf(stderr, "     recorded %d + overrun %ld + dropped %ld != fired %ld\n",
			rep.n, rep.overrun, rep.dropped, ci->fired);
}

static void scenario(const char *name, enum scenario sc, int want_sig)
{
	struct child_info ci;
	int st;

	snprintf(path, sizeof(path), "%s/%s.dat", dir, name);
	st = spawn(sc, &ci);
	if (want_sig) {
		if (!CHECK(WIFSIGNALED(st) && WTERMSIG(st) == want_sig))
			fprintf(stderr, "     %s: wait status %#x\n", name, st);
	} else if (!CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
		fprintf(stderr, "     %s: wait status %#x\n", name, st);
	}
	if (!CHECK(ci.ok == 1))
		fprintf(stderr, "     %s: the child's calls failed\n", name);
	if (sc == SC_KILL || sc == SC_FSIZE || sc == SC_SIGNAL_UNSEEN)
		return;
	if (!read_file(path))
		return;
	check_no_leftovers();
	if (sc == SC_NOBUF)
		return;
	if (sc != SC_BURST_SEGV && sc != SC_NOFILE)
		check_events(&ci, sc == SC_THREADS ? 2 : 1, sc == SC_OVERWRITE || sc == SC_DROP);
	check_exact(&ci);
	if (sc != SC_OVERWRITE && sc != SC_DROP)
		CHECK_EQ_INT(rep.n, ci.fired);
}

/* The version byte of a trace.dat: '6' or '7'. */
static int file_version(const char *file)
{
	char head[12] = { 0 };
	int fd = open(file, O_RDONLY);

	if (fd < 0 || read(fd, head, sizeof(head)) != (ssize_t)sizeof(head))
		head[10] = 0;
	if (fd >= 0)
		close(fd);
	return head[10];
}

/* ---- the scenarios ------------------------------------------------------- */

static void test_exits(void)
{
	scenario("stop", SC_STOP, 0);
	CHECK_EQ_INT(rep.n, 5000 + 5000 / 64 + 1);
	check_clock(path, "[mono]");
	CHECK_EQ_INT(rep.cpus, 1);
	CHECK_EQ_INT(rep.lost_marked + rep.overrun + rep.dropped, 0);
	CHECK(rep.n && strcmp(rep.v[0].comm, "recchild") == 0);

	scenario("exit_thread", SC_EXIT_THREAD, 0);
	CHECK_EQ_INT(rep.n, 3000 + 3000 / 64 + 1);

	scenario("segv", SC_SEGV, SIGSEGV);
	CHECK_EQ_INT(rep.n, 5000 + 5000 / 64 + 1);

	scenario("abrt", SC_ABRT, SIGABRT);
	CHECK_EQ_INT(rep.n, 5000 + 5000 / 64 + 1);

	scenario("mono_raw", SC_MONO_RAW, 0);
	CHECK_EQ_INT(rep.n, 3000 + 3000 / 64 + 1);
	check_clock(path, "[mono_raw]");

	scenario("empty", SC_EMPTY, 0);
	CHECK_EQ_INT(rep.n, 0);
}

/*
 * A recorded program that execs another program with events: the
 * variable is gone from its environment, so the second one records
 * nothing and leaves the first one's file alone.  Exit 0, or 3 when
 * the variable came along.
 */
static int child_exec_grandchild(void)
{
	child_setup(NULL, NULL, NULL);
	if (getenv("SLIMTRACE_OUTPUT"))
		return 3;
	fire(0, 0, 2000);
	return 0;
}

static int child_exec(void)
{
	int st = -1;
	pid_t pid;

	child_setup(NULL, NULL, NULL);
	info.t0 = clock_ns();
	info.fired += fire(0, 0, 3000);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", "test_record", "child-grand", (char *)NULL);
		_exit(127);
	}
	info.ok &= pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		   WEXITSTATUS(st) == 0;
	info.fired += fire(0, 3000, 1000);
	info.t1 = clock_ns();
	tell_parent();
	return 0;
}

/*
 * Under `slimtrace record` (SLIMTRACE_OUTPUT_PER_PROCESS): 1000 pairs,
 * then a child runs this program again (500 pairs, a file of its own),
 * then this process execs it in place (500 more, same pid: the name
 * after it).  Exit 0; 3 if the variable did not come along.
 */
static int child_pp(int last)
{
	pid_t pid;
	int st = -1;

	child_setup(NULL, NULL, NULL);
	if (!getenv("SLIMTRACE_OUTPUT"))
		return 3;
	fire(0, 0, last ? 500 : 1000);
	if (last)
		return 0;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", "test_record", "child-pp-last", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 4;
	execl("/proc/self/exe", "test_record", "child-pp-last", (char *)NULL);
	return 127;
}

/*
 * `slimtrace record -- PROG` where PROG runs another instrumented
 * program and then execs one in place: three recordings, one file,
 * nothing overwritten and nothing left beside it.  The exec ends the
 * first one as a stop would (record/exec.c): finished, all of it
 * there, so the command has nothing to rebuild (exit 0).
 */
static void test_per_process(void)
{
	char out[160], err[160], *text, *argv[8];
	int rc, i, pids[3], counts[3], npids = 0, j;
	DIR *dp;
	struct dirent *d;

	snprintf(path, sizeof(path), "%s/pp.dat", dir);
	snprintf(out, sizeof(out), "%s/pp.out", dir);
	snprintf(err, sizeof(err), "%s/pp.err", dir);
	argv[0] = "../tools/slimtrace";
	argv[1] = "record";
	argv[2] = "-o";
	argv[3] = path;
	argv[4] = "--";
	argv[5] = self;
	argv[6] = "child-pp";
	argv[7] = NULL;
	rc = run(argv, out, err);
	text = slurp(err, NULL);
	CHECK_EQ_INT(rc, 0);
	if (!CHECK(text && strstr(text, "3 processes recorded: merged into") &&
		   !strstr(text, "did not finish")))
		fprintf(stderr, "     slimtrace record said: %s\n", text ? text : "(nothing)");
	free(text);
	dp = opendir(dir);
	while (dp && (d = readdir(dp)))
		if (!strncmp(d->d_name, "pp.dat.", 7) && !CHECK(0))
			fprintf(stderr, "     left beside pp.dat: %s\n", d->d_name);
	if (dp)
		closedir(dp);
	if (!read_file(path))
		return;
	for (i = 0; i < rep.n; i++) {
		for (j = 0; j < npids && pids[j] != rep.v[i].pid; j++)
			;
		if (j == npids && npids < 3) {
			pids[npids] = rep.v[i].pid;
			counts[npids++] = 0;
		}
		if (j < 3)
			counts[j]++;
	}
	if (!CHECK(npids == 2))
		return;
	/*
	 * The child's 508 exactly, and this pid's two recordings whole:
	 * 1016 before the exec, 508 after it.
	 */
	j = counts[0] > counts[1] ? 1 : 0;
	CHECK_EQ_INT(counts[j], 500 + 8);
	CHECK_EQ_INT(counts[!j], 1016 + 508);
}

/* main() returning, with the file named by SLIMTRACE_OUTPUT: a new program. */
static int child_main(void)
{
	int ret;

	child_setup(NULL, NULL, NULL);
	ret = slim_record_env_start();
	/* The library may already have started it at start-up. */
	info.ok &= ret == 0 || ret == -EBUSY;
	info.t0 = clock_ns();
	info.fired += fire(0, 0, 4000);
	info.t1 = clock_ns();
	tell_parent();
	return 0;
}

/*
 * Run this program again as MODE with SLIMTRACE_OUTPUT naming path (and
 * per process, if asked), its stderr to err if not NULL; its child_info
 * in *ci, its pid returned once it exited 0 (else -1, said).
 */
static pid_t env_child(const char *mode, const char *err, int per_process,
		       struct child_info *ci)
{
	char fd_arg[16];
	int fds[2], st;
	pid_t pid;

	if (!CHECK(pipe(fds) == 0))
		return -1;
	pid = fork();
	if (pid == 0) {
		if (err)
			dup2(open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644), 2);
		close(fds[0]);
		snprintf(fd_arg, sizeof(fd_arg), "%d", fds[1]);
		setenv("SLIMTRACE_OUTPUT", path, 1);
		if (per_process)
			setenv("SLIMTRACE_OUTPUT_PER_PROCESS", "1", 1);
		execl(self, self, mode, fd_arg, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	CHECK(read(fds[0], ci, sizeof(*ci)) == sizeof(*ci));
	close(fds[0]);
	waitpid(pid, &st, 0);
	if (!CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		return -1;
	return pid;
}

/* MODE with SLIMTRACE_OUTPUT naming file: 4000 pairs and their texts, exactly. */
static void run_env_child(const char *file, const char *mode)
{
	struct child_info ci = { 0 };

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	env_child(mode, NULL, 0, &ci);
	CHECK_EQ_INT(ci.ok, 1);
	if (!read_file(path))
		return;
	check_no_leftovers();
	check_events(&ci, 1, 0);
	check_exact(&ci);
	CHECK_EQ_INT(rep.n, 4000 + 4000 / 64 + 1);
}

static void test_return_from_main(void)
{
	run_env_child("main.dat", "child-main");
}

/*
 * Exec in place, around record/exec.c: a vfork child's exec must leave
 * this process's recording alone; a failed exec ends it as a stop would
 * (all 2000 pairs written) and says so, and per process a new one takes
 * the next 2000 pairs, in a file of its own.
 */
static int child_exec_fail(void)
{
	pid_t pid;
	int st = -1;

	child_setup(NULL, NULL, NULL);
	info.t0 = clock_ns();
	info.fired += fire(0, 0, 1000);
	pid = vfork();
	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	info.ok &= pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		   WEXITSTATUS(st) == 0;
	info.fired += fire(0, 1000, 1000);
	info.t1 = clock_ns();
	errno = 0;
	info.ok &= execlp("/nonexistent/slimtrace-test", "x", (char *)NULL) == -1 &&
		   errno == ENOENT;
	fire(0, 2000, 2000);
	tell_parent();
	return 0;
}

static void run_exec_fail(int per_process)
{
	char err[160], *text, other[160];
	struct child_info ci = { 0 };
	pid_t pid;

	snprintf(path, sizeof(path), "%s/execfail%d.dat", dir, per_process);
	snprintf(err, sizeof(err), "%s/execfail%d.err", dir, per_process);
	pid = env_child("child-exec-fail", err, per_process, &ci);
	CHECK_EQ_INT(ci.ok, 1);
	text = slurp(err, NULL);
	if (!CHECK(text && strstr(text, "execlp failed (No such file or directory)") &&
		   strstr(text, per_process ? "a new one goes on" : "is not written")))
		fprintf(stderr, "     the child said: %s\n", text ? text : "(nothing)");
	free(text);
	if (per_process) {
		snprintf(other, sizeof(other), "%s.%d-1", path, (int)pid);
		snprintf(path, sizeof(path), "%s/execfail1.dat.%d", dir, (int)pid);
	}
	if (!read_file(path))
		return;
	check_exact(&ci);
	CHECK_EQ_INT(rep.n, 2000 + 2000 / 64 + 1);
	if (!per_process)
		return;
	/* The pairs after the failed exec, in the next file: whole too. */
	if (!read_file(other))
		return;
	CHECK_EQ_INT(rep.n, 2000 + 2000 / 64);
}

static void test_exec_fail(void)
{
	run_exec_fail(0);
	run_exec_fail(1);
}

/* The exec'd grandchild must leave the file alone (child_exec). */
static void test_exec_child(void)
{
	run_env_child("exec.dat", "child-exec");
}

static void test_kill(const char *label)
{
	struct child_info ci;
	char name[200];
	struct stat st;
	int i, first = 1;

	scenario(label, SC_KILL, SIGKILL);
	/* Before recovery: a valid trace without events. */
	if (read_file(path))
		CHECK_EQ_INT(rep.n, 0);
	snprintf(name, sizeof(name), "%s.cpu0", path);
	CHECK(stat(name, &st) == 0 && st.st_size > 0);
	CHECK_EQ_INT(slim_record_recover(path), 0);
	check_no_leftovers();
	CHECK_EQ_INT(slim_record_recover(path), -ENOENT);
	if (!read_file(path))
		return;
	/* Everything fired before the sync is there, the rest maybe. */
	memset(&ci, 0, sizeof(ci));
	ci.t1 = UINT64_MAX - 10000;
	check_events(&ci, 1, 0);
	for (i = 0; i < rep.n; i++) {
		if (!rep.v[i].text && rep.v[i].b == 2999)
			first = 0;
	}
	CHECK(!first);
	CHECK(rep.n >= 3000 + 3000 / 64 + 1);
	CHECK_EQ_INT(rep.lost_marked, 0);
}

/*
 * The version 7 sink (SLIMTRACE_FILE_VERSION=7, read at start-up):
 * trace-cmd reads what it writes at stop, from a signal handler, while
 * recording and after recovery, with the same counts.
 */
static void test_version7(void)
{
	setenv("SLIMTRACE_FILE_VERSION", "7", 1);
	scenario("v7_stop", SC_STOP, 0);
	CHECK_EQ_INT(rep.n, 5000 + 5000 / 64 + 1);
	check_clock(path, "[mono]");
	CHECK(file_version(path) == '7');
	scenario("v7_segv", SC_SEGV, SIGSEGV);
	CHECK_EQ_INT(rep.n, 5000 + 5000 / 64 + 1);
	scenario("v7_drop", SC_DROP, 0);
	CHECK(rep.dropped > 0);
	test_kill("v7_kill");
	CHECK(file_version(path) == '7');
	setenv("SLIMTRACE_FILE_VERSION", "5", 1);
	CHECK_EQ_INT(slim_record_start(path), -EINVAL);
	unsetenv("SLIMTRACE_FILE_VERSION");
}

static void test_threads(void)
{
	int i, cpu_of[3] = { -1, -1, -1 }, same = 1, names = 1;

	scenario("threads", SC_THREADS, 0);
	CHECK_EQ_INT(rep.n, 40000);
	CHECK_EQ_INT(rep.cpus, 2);
	for (i = 0; i < rep.n; i++) {
		struct line *e = &rep.v[i];
		char want[16];

		if (e->a < 1 || e->a > 2)
			continue;
		if (cpu_of[e->a] < 0)
			cpu_of[e->a] = e->cpu;
		same &= cpu_of[e->a] == e->cpu;
		snprintf(want, sizeof(want), "recw%ld", e->a);
		names &= strcmp(e->comm, want) == 0;
	}
	CHECK(same);
	CHECK(names);
	CHECK(cpu_of[1] != cpu_of[2]);
}

/*
 * The limits a recording meets in the field (issue 9): each failed
 * before, losing events without counting them.
 */
static void test_limits(void)
{
	char name[300], *err;
	struct stat st;
	int i, names = 0;

	/* Every buffer taken since the last pass reaches the file at a crash. */
	scenario("burst_segv", SC_BURST_SEGV, SIGSEGV);
	CHECK_EQ_INT(rep.n, 1000 + 1000 / 64 + 1 + BURST * BURST_EVENTS);
	/* ...with their names: the handler grew the table of threads too. */
	for (i = 0; i < rep.n; i++)
		names += !strcmp(rep.v[i].comm, "burst");
	CHECK_EQ_INT(names, BURST * BURST_EVENTS);
	names = 0;
	CHECK_EQ_INT(rep.cpus, BURST + 1);
	CHECK_EQ_INT(rep.lost_marked, 0);
	/* The same, made certain: no consumer pass since the burst. */
	scenario("signal_unseen", SC_SIGNAL_UNSEEN, 0);

	/* Fewer descriptors than buffers: all pages still spooled and joined. */
	scenario("nofile", SC_NOFILE, 0);
	CHECK_EQ_INT(rep.n, BURST * BURST_EVENTS);
	CHECK_EQ_INT(rep.lost_marked + rep.overrun + rep.dropped, 0);

	/* A relative name and a chdir(): the file lands where it started. */
	scenario("chdir", SC_CHDIR, 0);
	CHECK_EQ_INT(rep.n, 3000 + 3000 / 64 + 1);
	snprintf(name, sizeof(name), "%s/elsewhere/chdir.dat", dir);
	CHECK(stat(name, &st) != 0);
	snprintf(name, sizeof(name), "%s/elsewhere/chdir.dat.cpu0", dir);
	CHECK(stat(name, &st) != 0);

	/* The pages fit, the final file does not: said, kept, recoverable. */
	scenario("fsize", SC_FSIZE, 0);
	snprintf(name, sizeof(name), "%s.err", path);
	err = slurp(name, NULL);
	if (!CHECK(err && strstr(err, path) && strstr(err, "could not be written") &&
		   strstr(err, strerror(EFBIG)) && strstr(err, "recover")))
		fprintf(stderr, "     stderr of the child: %s\n", err ? err : "(none)");
	free(err);
	snprintf(name, sizeof(name), "%s.cpu0", path);
	CHECK(stat(name, &st) == 0 && st.st_size > 0);
	CHECK_EQ_INT(slim_record_recover(path), 0);
	check_no_leftovers();
	if (!read_file(path))
		return;
	CHECK_EQ_INT(rep.n, 40000);
	for (i = 0; i < rep.n; i++)
		names += !strncmp(rep.v[i].comm, "recw", 4);
	CHECK_EQ_INT(names, 40000);
}

/*
 * Events lost for want of a buffer are in the file, and `slimtrace stat`
 * counts them (it printed "0 lost").  RLIMIT_AS: not under the
 * sanitizers, whose shadow memory cannot live under one.
 */
static void test_lost_nobuf(void)
{
	const char *build = getenv("SLIM_TEST_BUILD");
	char cmd[300], *out;

	if (build && strcmp(build, "plain") && strcmp(build, "clang")) {
		printf("test_lost_nobuf: not in the %s build (RLIMIT_AS)\n", build);
		return;
	}
	scenario("nobuf", SC_NOBUF, 0);
	CHECK_EQ_INT(rep.n, 10 + 1);
	snprintf(cmd, sizeof(cmd), "../tools/slimtrace stat %s > %s/stat.txt 2>&1", path, dir);
	CHECK_EQ_INT(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/stat.txt", dir);
	out = slurp(cmd, NULL);
	if (!CHECK(out && strstr(out, "11 recorded, 100 lost") &&
		   strstr(out, "100 events lost for want of a buffer")))
		fprintf(stderr, "     slimtrace stat: %s\n", out ? out : "(none)");
	free(out);
}

static void test_lost(void)
{
	scenario("overwrite", SC_OVERWRITE, 0);
	/* The events fired before recording overwrote each other. */
	CHECK(rep.overrun > 0);
	CHECK_EQ_INT(rep.lost_unknown, 0);
	CHECK(rep.lost_marked >= rep.overrun);
	CHECK(rep.lost_marked <= rep.overrun + rep.dropped);

	scenario("drop", SC_DROP, 0);
	/* ...or were refused. */
	CHECK_EQ_INT(rep.overrun, 0);
	CHECK(rep.dropped > 0);
	CHECK_EQ_INT(rep.lost_unknown, 0);
	CHECK(rep.lost_marked <= rep.dropped);
}

/* ---- in this process ------------------------------------------------------ */

static void test_api_errors(void)
{
	char bad[200];
	int fd;

	CHECK_EQ_INT(slim_record_start(""), -EINVAL);
	CHECK_EQ_INT(slim_record_start(NULL), -EINVAL);
	CHECK_EQ_INT(slim_record_start("/nonexistent-dir/x.dat"), -ENOENT);
	/* A folder is not a recording already running (rename said EBUSY). */
	CHECK_EQ_INT(slim_record_start("."), -EISDIR);
	CHECK_EQ_INT(slim_record_start(dir), -EISDIR);
	CHECK_EQ_INT(slim_ctl_write("record", "."), -EISDIR);
	snprintf(bad, sizeof(bad), "%s/", dir);
	CHECK_EQ_INT(slim_ctl_write("record", bad), -EISDIR);
	CHECK_EQ_INT(slim_record_stop(), -ENOENT);
	CHECK_EQ_INT(slim_record_sync(), -ENOENT);
	snprintf(bad, sizeof(bad), "%s/garbage.dat", dir);
	fd = open(bad, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(write(fd, "not a trace file at all", 23) == 23);
	close(fd);
	fprintf(stderr, "(an error message about garbage.dat is expected)\n");
	CHECK_EQ_INT(slim_record_recover(bad), -EINVAL);
	snprintf(bad, sizeof(bad), "%s/none.dat", dir);
	CHECK_EQ_INT(slim_record_recover(bad), -ENOENT);
}

/*
 * slim_record_get_stats() (none before the first recording: main); while one runs,
 * the consumer's passes and pages grow with what was fired; after its
 * stop, the last recording's numbers, the final pass included.
 */
static void test_stats(void)
{
	struct slim_record_stats st, mid;
	char p[300];
	long fired;

	snprintf(p, sizeof(p), "%s/stats.dat", dir);
	CHECK_EQ_INT(slim_ctl_write("set_event", "rectest:*"), 0);
	if (!CHECK(slim_record_start(p) == 0))
		return;
	/* 20000 pairs of 16 bytes and their texts: over 80 pages. */
	fired = fire(0, 0, 20000);
	CHECK_EQ_INT(slim_record_sync(), 0);
	CHECK_EQ_INT(slim_record_get_stats(&mid), 0);
	CHECK(mid.passes > 0);
	CHECK(mid.pages >= 80);
	CHECK(mid.pass_max_ns > 0);
	CHECK(mid.consumer_cpu_ns > 0);
	fired += fire(0, 20000, 20000);
	CHECK_EQ_INT(slim_record_stop(), 0);
	CHECK_EQ_INT(slim_record_get_stats(&st), 0);
	CHECK(st.passes > mid.passes);
	CHECK(st.pages >= mid.pages + 80);
	CHECK(st.pass_max_ns >= mid.pass_max_ns);
	CHECK(st.consumer_cpu_ns >= mid.consumer_cpu_ns);
	/* Kept until the next recording starts. */
	CHECK_EQ_INT(slim_record_get_stats(&mid), 0);
	CHECK(mid.pages == st.pages && mid.passes == st.passes);
	CHECK_EQ_INT(slim_ctl_write("set_event", ""), 0);
	CHECK(fired > 40000);
	unlink(p);
}

/*
 * The API and the record file at once, from two threads: the recorder's
 * lock and slim_event_mutex are always taken in one order (a deadlock
 * here, with the file's write holding the mutex, before); the watchdog
 * turns a hang into a failure.
 */
static void *api_loop(void *arg)
{
	const char *p = arg;
	int i, ret;

	for (i = 0; i < 40; i++) {
		ret = slim_record_start(p);
		if (ret == 0)
			slim_record_stop();
	}
	return NULL;
}

static void test_api_and_file(void)
{
	char a[300], b[300];
	pthread_t t;
	int i, ret, bad = 0;

	snprintf(a, sizeof(a), "%s/api.dat", dir);
	snprintf(b, sizeof(b), "%s/file.dat", dir);
	if (!CHECK(pthread_create(&t, NULL, api_loop, a) == 0))
		return;
	for (i = 0; i < 40; i++) {
		ret = slim_ctl_write("record", b);
		bad += ret != 0 && ret != -EBUSY;
		bad += slim_ctl_write("record", "0") != 0;
	}
	pthread_join(t, NULL);
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_INT(slim_record_stop(), -ENOENT);
}

/* An instance's `record` file: its own buffers, one recording at a time. */
static void test_instance_record(void)
{
	char *text;
	long fired;

	snprintf(path, sizeof(path), "%s/inst.dat", dir);
	CHECK_EQ_INT(slim_ctl_mkdir("instances/rec"), 0);
	CHECK_EQ_INT(slim_ctl_write("instances/rec/set_event", "rectest:*"), 0);
	CHECK_EQ_INT(slim_ctl_write("instances/rec/record", path), 0);
	text = slim_ctl_read("instances/rec/record");
	CHECK(text && !strncmp(text, path, strlen(path)));
	free(text);
	text = slim_ctl_read("record");
	CHECK_EQ_STR(text, "");
	free(text);
	CHECK_EQ_INT(slim_ctl_write("record", "/tmp/other.dat"), -EBUSY);
	fired = fire(0, 0, 3000);
	CHECK_EQ_INT(fired, 3000 + 3000 / 64 + 1);
	/* Being recorded: not removed; the top level's "0" is not its stop. */
	CHECK_EQ_INT(slim_ctl_rmdir("instances/rec"), -EBUSY);
	CHECK_EQ_INT(slim_ctl_write("record", "0"), 0);
	text = slim_ctl_read("instances/rec/record");
	CHECK(text && *text);
	free(text);
	CHECK_EQ_INT(slim_ctl_write("instances/rec/record", "0"), 0);
	CHECK_EQ_INT(slim_ctl_rmdir("instances/rec"), 0);
	if (!read_file(path))
		return;
	CHECK_EQ_INT(rep.n, 3000 + 3000 / 64 + 1);
	CHECK_EQ_INT(rep.lost_marked, 0);
}

static void test_headers(void)
{
	char *hp = slim_ctl_read("events/header_page");
	char *he = slim_ctl_read("events/header_event");

	CHECK_EQ_STR(slim_page_header_page, hp);
	CHECK_EQ_STR(slim_page_header_event, he);
	free(hp);
	free(he);
}

/* The recorder's cached conversion gives what the clock's own one gives. */
static void test_conversion(void)
{
	static struct slim_clock_calib tab[SLIM_CLOCK_CALIB_MAX];
	struct slim_record_conv cv = { tab, 0, 0 };
	uint64_t raw, lo, hi, x = 88172645463325252ull;
	int i, same = 1;

	cv.n = slim_clock_calib_snapshot(tab, SLIM_CLOCK_CALIB_MAX);
	if (!cv.n)
		return;		/* no calibrated counter here */
	lo = tab[0].tsc_base - 1000000;
	hi = tab[cv.n - 1].tsc_base + 100000000;
	for (i = 0; i < 20000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* Mostly rising, as in a page, sometimes anywhere. */
		raw = i % 7 ? lo + (hi - lo) / 20000 * (uint64_t)i : lo + x % (hi - lo);
		same &= slim_record_conv_ns(&cv, raw) == slim_clock_calib_to_ns(tab, cv.n, raw);
	}
	CHECK(same);
}

static int make_dir(void)
{
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return 0;
	self[n] = '\0';
	snprintf(dir, sizeof(dir), "/tmp/slimrec.XXXXXX");
	return mkdtemp(dir) != NULL;
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "child-main") == 0) {
		info_fd = atoi(argv[2]);
		return child_main();
	}
	if (argc == 3 && strcmp(argv[1], "child-exec") == 0) {
		info_fd = atoi(argv[2]);
		return child_exec();
	}
	if (argc == 3 && strcmp(argv[1], "child-exec-fail") == 0) {
		info_fd = atoi(argv[2]);
		return child_exec_fail();
	}
	if (argc == 2 && strcmp(argv[1], "child-grand") == 0)
		return child_exec_grandchild();
	if (argc == 2 && !strncmp(argv[1], "child-pp", 8))
		return child_pp(!strcmp(argv[1], "child-pp-last"));
	if (!CHECK(make_dir()))
		return check_done("record");
	setvbuf(stdout, NULL, _IONBF, 0);
	/* Before any recording in this process. */
	CHECK_EQ_INT(slim_record_get_stats(NULL), -EINVAL);
	CHECK_EQ_INT(slim_record_get_stats(&(struct slim_record_stats){ 0 }), -ENOENT);
	test_headers();
	test_conversion();
	test_api_errors();
	/*
	 * Before the scenarios: a recording of this process's own used to
	 * leave its later children's fatal-signal files in raw cycles (a
	 * signal before the consumer's first pass; calibrated at start now).
	 */
	test_instance_record();
	test_exits();
	test_return_from_main();
	test_exec_fail();
	test_exec_child();
	test_per_process();
	test_kill("kill");
	CHECK(file_version(path) == '6');
	test_version7();
	test_threads();
	test_limits();
	test_lost();
	test_lost_nobuf();
	test_api_and_file();
	/* Last: this process records, and its children would inherit that. */
	test_stats();
	free(rep.v);
	if (!check_failed)
		remove_dir();
	else
		fprintf(stderr, "files kept in %s\n", dir);
	return check_done("record");
}
