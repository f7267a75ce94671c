// SPDX-License-Identifier: MIT
/*
 * slimtrace record -a: every slimtrace process of this user, one that
 * starts while the recording runs included, into one trace.dat; one that
 * exits meanwhile keeps its part; nothing is left in the processes.
 * The test has a control directory of its own, so that only its
 * processes are found.
 */
#include "live_proc.h"

#define FILE_OUT "live-all.dat"
/* A link to live_target: a third process with a name of its own (its comm). */
#define LATE "./live_late"

/* Lines of a report of FILE_OUT naming both what and who ("comm-"). */
static int report_count(const char *prog, const char *what, const char *who)
{
	char cmd[256], line[1024];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "%s report %s 2>/dev/null", prog, FILE_OUT);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p))
		n += strstr(line, what) && (!who || !strncmp(line + strspn(line, " "), who,
							     strlen(who)));
	if (p)
		pclose(p);
	return n;
}

static int have_trace_cmd(void)
{
	return !system("command -v trace-cmd >/dev/null 2>&1");
}

/* The same count in both reports, and more than least. */
static void check_comm(const char *what, const char *who, int least, int tc)
{
	int n = report_count(CLI, what, who);

	if (!CHECK(n >= least))
		fprintf(stderr, "     %d %s lines of %s, expected %d at least\n", n, what, who, least);
	if (tc)
		CHECK_EQ_INT(report_count("trace-cmd", what, who), n);
}

static int no_instances(int pid)
{
	char spid[16];
	struct run r;
	int ok;

	snprintf(spid, sizeof(spid), "%d", pid);
	run_cli(&r, (const char *[]){ "ctl", spid, "ls", "instances", NULL });
	ok = lp_exit_code(r.status) == 0 && r.out && !*r.out;
	if (!ok)
		fprintf(stderr, "     process %d: instances: %s%s", pid, r.out, r.err);
	run_free(&r);
	return ok;
}

/* No file of one process (FILE_OUT.PID) left behind. */
static int no_part(int pid)
{
	char path[64];

	snprintf(path, sizeof(path), "%s.%d", FILE_OUT, pid);
	return access(path, F_OK) && errno == ENOENT;
}

/* slimtrace ARGV... started in the background, its output in files. */
static pid_t cli_start(const char *const argv[])
{
	const char *args[32];
	pid_t pid;
	int i, n = 0;

	args[n++] = CLI;
	for (i = 0; argv[i] && n < 31; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int o = open("live-all.out", O_WRONLY | O_CREAT | O_TRUNC, 0666);
		int e = open("live-all.err", O_WRONLY | O_CREAT | O_TRUNC, 0666);

		check_watchdog(NULL, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (o < 0 || e < 0)
			_exit(120);
		dup2(o, 1);
		dup2(e, 2);
		execv(CLI, (char *const *)args);
		_exit(121);
	}
	return pid;
}

static void cli_wait(pid_t pid, struct run *r)
{
	r->status = -1;
	while (pid > 0 && waitpid(pid, &r->status, 0) < 0 && errno == EINTR)
		;
	r->out = lp_slurp("live-all.out");
	r->err = lp_slurp("live-all.err");
	unlink("live-all.out");
	unlink("live-all.err");
}

static int said(const char *err, const char *fmt, int pid)
{
	char what[128];

	snprintf(what, sizeof(what), fmt, pid);
	if (has(err, what))
		return 1;
	fprintf(stderr, "     not said: '%s'\n", what);
	return 0;
}

/*
 * A and B run before the recording starts, C starts a second into it,
 * B exits during it: one file with the three, each told by its name.
 */
static void test_all(void)
{
	struct target a, b, c;
	struct run r;
	pid_t rec;
	int tc = have_trace_cmd();

	if (!CHECK(target_start(&a, (const char *[]){ "-i", "200", NULL }, 1) == 0))
		return;
	if (!CHECK(target_start_ex(&b, TARGET "_extra", (const char *[]){ "-i", "200", "-d", "2",
				   NULL }, 1, NULL, 1, NULL) == 0)) {
		target_stop(&a, SIGTERM);
		return;
	}
	unlink(FILE_OUT);
	rec = cli_start((const char *[]){ "record", "-a", "-e", "live:*", "--duration", "3.5",
					 "-o", FILE_OUT, NULL });
	lp_sleep_ms(1000);
	if (!CHECK(target_start_ex(&c, LATE, (const char *[]){ "-i", "200", NULL }, 1, NULL, 1,
				   NULL) == 0)) {
		cli_wait(rec, &r);
		run_free(&r);
		target_stop(&b, SIGTERM);
		target_stop(&a, SIGTERM);
		return;
	}
	cli_wait(rec, &r);
	if (!CHECK(lp_exit_code(r.status) == 0))
		fprintf(stderr, "     %s", r.err);
	CHECK(said(r.err, "recording process %d (live_target)", a.pids[0]));
	CHECK(said(r.err, "recording process %d (live_target_ext)", b.pids[0]));
	CHECK(said(r.err, "recording process %d (live_late)", c.pids[0]));
	/* What each recorded and lost, B's part kept though it exited. */
	CHECK(said(r.err, "process %d [live_target]:", a.pids[0]));
	CHECK(said(r.err, "process %d [live_target_ext] (exited):", b.pids[0]));
	CHECK(said(r.err, "process %d [live_late]:", c.pids[0]));
	CHECK(has(r.err, "events in 3 buffers, 0 lost"));
	run_free(&r);

	/* A ran 3.5 s, B 1.5 s of the run and C about 2.5 s, a round every ~0.3 ms. */
	check_comm("live_tick:", "live_target-", 500, tc);
	check_comm("live_tick:", "live_target_ext-", 300, tc);
	check_comm("live_tick:", "live_late-", 300, tc);
	check_comm("live_parse:", "live_late-", 300, tc);
	/*
	 * Only B has live_extra, under an id that is A's live_tick in its own
	 * file.  B fires live_tick, then live_extra: its recording may end
	 * between the two (seen once under TSan), so one tick may be alone.
	 */
	CHECK_EQ_INT(report_count(CLI, "live_extra:", "live_target-"), 0);
	{
		int extra = report_count(CLI, "live_extra:", "live_target_ext-");
		int tick = report_count(CLI, "live_tick:", "live_target_ext-");

		CHECK(extra > 0 && (extra == tick || extra == tick - 1));
	}
	if (tc)
		CHECK_EQ_INT(report_count("trace-cmd", "live_extra:", NULL),
			     report_count(CLI, "live_extra:", NULL));
	CHECK(no_part(a.pids[0]) && no_part(b.pids[0]) && no_part(c.pids[0]));
	/* The two still running are as they were. */
	CHECK(no_instances(a.pids[0]));
	CHECK(no_instances(c.pids[0]));
	target_stop(&b, 0);

	/*
	 * Events only one of them has: the others are said to have none of
	 * them and left out, which is no error.
	 */
	if (CHECK(target_start_ex(&b, TARGET "_extra", (const char *[]){ "-i", "200", NULL }, 1,
				  NULL, 1, NULL) == 0)) {
		unlink(FILE_OUT);
		run_cli(&r, (const char *[]){ "record", "-a", "-e", "live:live_extra", "--duration",
					      "1", "-o", FILE_OUT, NULL });
		if (!CHECK(lp_exit_code(r.status) == 0))
			fprintf(stderr, "     %s", r.err);
		CHECK(said(r.err, "process %d (live_target) has none of the events", a.pids[0]));
		CHECK(said(r.err, "process %d (live_late) has none of the events", c.pids[0]));
		CHECK(said(r.err, "recording process %d (live_target_ext)", b.pids[0]));
		run_free(&r);
		check_comm("live_extra:", "live_target_ext-", 100, tc);
		CHECK_EQ_INT(report_count(CLI, "live_tick:", NULL), 0);
		CHECK(no_instances(a.pids[0]) && no_instances(b.pids[0]) &&
		      no_instances(c.pids[0]));
		CHECK(no_part(b.pids[0]));
		/* An event no process has: nothing recorded anywhere, exit 1. */
		run_cli(&r, (const char *[]){ "record", "-a", "-e", "nosys:nothing", "--duration",
					      "0.5", "-o", FILE_OUT, NULL });
		CHECK_EQ_INT(lp_exit_code(r.status), 1);
		CHECK(has(r.err, "none of the 3 processes found was recorded"));
		run_free(&r);
		CHECK(no_instances(a.pids[0]) && no_instances(b.pids[0]));
		CHECK_EQ_INT(lp_exit_code(target_stop(&b, SIGTERM)), 1000 + SIGTERM);
	}
	CHECK_EQ_INT(lp_exit_code(target_stop(&c, SIGTERM)), 1000 + SIGTERM);
	CHECK_EQ_INT(lp_exit_code(target_stop(&a, SIGTERM)), 1000 + SIGTERM);
}

/* Built with ASan or TSan, a fork child has no endpoint (src/live/endpoint.c). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CHILD_NO_ENDPOINT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CHILD_NO_ENDPOINT 1
#endif
#endif
#ifndef CHILD_NO_ENDPOINT
#define CHILD_NO_ENDPOINT 0
#endif

/* The events of one process's part, from record's summary ("FILE.PID: N events"). */
static long part_events(const char *err, int pid)
{
	char what[64];
	const char *p;

	snprintf(what, sizeof(what), "%s.%d: ", FILE_OUT, pid);
	p = strstr(err ? err : "", what);
	return p ? atol(p + strlen(what)) : -1;
}

/*
 * A target that forks after 0.8 s (-L): TSan refuses threads in the
 * child of a multi-threaded process unless told to let it.
 */
static int forking_target_start(struct target *d)
{
	const char *tsan = getenv("TSAN_OPTIONS");
	char *saved = tsan ? strdup(tsan) : NULL, opts[1024];
	int ret;

	snprintf(opts, sizeof(opts), "%s%sdie_after_fork=0", saved ? saved : "",
		 saved ? ":" : "");
	setenv("TSAN_OPTIONS", opts, 1);
	ret = target_start(d, (const char *[]){ "-i", "200", "-L", "800", NULL }, 1);
	if (saved)
		setenv("TSAN_OPTIONS", saved, 1);
	else
		unsetenv("TSAN_OPTIONS");
	free(saved);
	return ret;
}

/* Its child says its pid after 0.8 s; one that died says nothing (0). */
static int forked_child(struct target *d)
{
	struct pollfd pfd = { fileno(d->out), POLLIN, 0 };
	char line[64];

	if (poll(&pfd, 1, 5000) > 0 && fgets(line, sizeof(line), d->out) &&
	    !strncmp(line, "pid ", 4))
		return atoi(line + 4);
	return 0;
}

/*
 * A process being recorded forks: the child has a copy of the instance,
 * not of the recording.  It is found as a newcomer, its copy replaced by
 * an instance of its own, and recorded too.
 */
static void test_fork_late(void)
{
	struct target d;
	struct run r;
	int child;
	pid_t rec;

	if (!CHECK(forking_target_start(&d) == 0))
		return;
	unlink(FILE_OUT);
	rec = cli_start((const char *[]){ "record", "-a", "-e", "live:*", "--duration", "2.5",
					 "-o", FILE_OUT, NULL });
	child = forked_child(&d);
	CHECK(child > 0 && child != d.pid);
	cli_wait(rec, &r);
	if (!CHECK(lp_exit_code(r.status) == 0))
		fprintf(stderr, "     %s", r.err);
	CHECK(said(r.err, "recording process %d (live_target)", d.pid));
	CHECK(part_events(r.err, d.pid) > 100);
	if (CHILD_NO_ENDPOINT) {
		printf("NOTE live_all: built with ASan or TSan, a fork child has no endpoint: "
		       "its recording is not checked\n");
	} else if (child > 0) {
		CHECK(said(r.err, "recording process %d (live_target)", child));
		CHECK(part_events(r.err, child) > 100);
		CHECK(no_instances(child));
	}
	run_free(&r);
	CHECK(no_instances(d.pid));
	if (child > 0)
		kill(child, SIGKILL);
	CHECK_EQ_INT(lp_exit_code(target_stop(&d, SIGTERM)), 1000 + SIGTERM);
}

/*
 * record -p of one process, which forks while recorded: the child gets
 * no copy of the client's instance (it is the client's, and the client
 * knows only the parent), so nothing keeps recording in it after the
 * detach; the parent's instance goes at the detach as always.
 */
static void test_fork_late_one(void)
{
	struct target d;
	struct run r;
	char spid[16];
	int child;
	pid_t rec;

	if (!CHECK(forking_target_start(&d) == 0))
		return;
	unlink(FILE_OUT);
	snprintf(spid, sizeof(spid), "%d", d.pid);
	rec = cli_start((const char *[]){ "record", "-p", spid, "-e", "live:*", "--duration",
					 "2", "-o", FILE_OUT, NULL });
	child = forked_child(&d);
	CHECK(child > 0 && child != d.pid);
	cli_wait(rec, &r);
	if (!CHECK(lp_exit_code(r.status) == 0))
		fprintf(stderr, "     %s", r.err);
	CHECK(said(r.err, "recording process %d", d.pid));
	/* One process: one file, "FILE: N events in ...". */
	CHECK(strstr(r.err, FILE_OUT ": ") && atol(strstr(r.err, FILE_OUT ": ") +
						   strlen(FILE_OUT ": ")) > 100);
	run_free(&r);
	CHECK(no_instances(d.pid));
	if (CHILD_NO_ENDPOINT)
		printf("NOTE live_all: built with ASan or TSan, a fork child has no endpoint: "
		       "its instances are not looked at\n");
	else if (child > 0)
		CHECK(no_instances(child));
	if (child > 0)
		kill(child, SIGKILL);
	CHECK_EQ_INT(lp_exit_code(target_stop(&d, SIGTERM)), 1000 + SIGTERM);
}

/* Ctrl-C ends it as --duration does. */
static void test_interrupt(void)
{
	struct target a;
	struct run r;

	if (!CHECK(target_start(&a, (const char *[]){ "-i", "200", NULL }, 1) == 0))
		return;
	unlink(FILE_OUT);
	run_prog_sig(&r, CLI, (const char *[]){ "record", "-a", "-e", "live:live_tick", "-o",
						FILE_OUT, NULL }, SIGINT, 800, NULL);
	CHECK_EQ_INT(lp_exit_code(r.status), 0);
	CHECK(part_events(r.err, a.pids[0]) > 10);
	run_free(&r);
	CHECK(report_count(CLI, "live_tick:", "live_target-") > 10);
	CHECK(no_instances(a.pids[0]) && no_part(a.pids[0]));
	CHECK_EQ_INT(lp_exit_code(target_stop(&a, SIGTERM)), 1000 + SIGTERM);
}

/* A process that records itself already is said and left out; the others are recorded. */
static void test_busy(void)
{
	struct target a, own;
	struct run r;
	int ret;

	if (!CHECK(target_start(&a, (const char *[]){ "-i", "200", NULL }, 1) == 0))
		return;
	setenv("SLIMTRACE_OUTPUT", "live-all-own.dat", 1);
	setenv("SLIMTRACE_EVENTS", "live:live_tick", 1);
	ret = target_start(&own, (const char *[]){ "-i", "200", NULL }, 1);
	unsetenv("SLIMTRACE_OUTPUT");
	unsetenv("SLIMTRACE_EVENTS");
	if (CHECK(ret == 0)) {
		unlink(FILE_OUT);
		run_cli(&r, (const char *[]){ "record", "-a", "-e", "live:live_tick", "--duration",
					      "1", "-o", FILE_OUT, NULL });
		if (!CHECK(lp_exit_code(r.status) == 0))
			fprintf(stderr, "     %s", r.err);
		CHECK(said(r.err, "process %d (live_target) records into a file of its own",
			   own.pids[0]));
		CHECK(part_events(r.err, a.pids[0]) > 100);
		CHECK(part_events(r.err, own.pids[0]) < 0);
		run_free(&r);
		CHECK(no_instances(own.pids[0]) && no_part(own.pids[0]));
		CHECK_EQ_INT(lp_exit_code(target_stop(&own, SIGTERM)), 1000 + SIGTERM);
		/* Its own recording went on: its file is there, finished at its exit. */
		CHECK(access("live-all-own.dat", F_OK) == 0);
		unlink("live-all-own.dat");
	}
	CHECK_EQ_INT(lp_exit_code(target_stop(&a, SIGTERM)), 1000 + SIGTERM);
}

/* Before any process made the directory: nothing found, exit 1. */
static void test_none(void)
{
	struct run r;

	unlink(FILE_OUT);
	run_cli(&r, (const char *[]){ "record", "-a", "--duration", "0.3", "-o", FILE_OUT, NULL });
	CHECK_EQ_INT(lp_exit_code(r.status), 1);
	CHECK(has(r.err, "no slimtrace process of uid"));
	run_free(&r);
	CHECK(access(FILE_OUT, F_OK) != 0);
}

static void test_usage(void)
{
	static const char *const bad[][8] = {
		{ "record", "-a", "-p", "1", NULL },
		{ "record", "-p", "1", "-a", NULL },
		{ "record", "-a", "--", "true", NULL },
		{ "record", "-a", "--compression", "zstd", NULL },
		{ "record", "-a", "--file-version", "7", NULL },
	};
	struct run r;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		run_cli(&r, bad[i]);
		if (!CHECK(lp_exit_code(r.status) == 2))
			fprintf(stderr, "     case %zu: %s", i, r.err);
		CHECK(has(r.err, "-a"));
		run_free(&r);
	}
}

int main(void)
{
	check_watchdog("live_all", 120);
	if (!CHECK(access(CLI, X_OK) == 0) || !CHECK(access(TARGET, X_OK) == 0))
		return check_done("live_all");
	lp_setup("lall");
	unlink(LATE);
	if (!CHECK(symlink("live_target", LATE) == 0))
		return check_done("live_all");
	test_usage();
	test_none();
	test_all();
	test_fork_late();
	test_fork_late_one();
	test_interrupt();
	test_busy();
	unlink(FILE_OUT);
	unlink(LATE);
	lp_cleanup();
	return check_done("live_all");
}
