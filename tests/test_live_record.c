// SPDX-License-Identifier: MIT
/*
 * slimtrace record -p PID: attaching to a running program, recording it
 * through an instance of its own, and leaving it as it was.  The file
 * reads the same in slimtrace report and trace-cmd report.
 */
#include "live_proc.h"

#define FILE_OUT "live-rec.dat"

static char pid_arg[16];

static const char *spid(int pid)
{
	snprintf(pid_arg, sizeof(pid_arg), "%d", pid);
	return pid_arg;
}

/* Lines of slimtrace report (or trace-cmd report) naming what. */
static int report_count(const char *prog, const char *what)
{
	char cmd[256], line[1024];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "%s report %s 2>/dev/null", prog, FILE_OUT);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p))
		n += strstr(line, what) != NULL;
	if (p)
		pclose(p);
	return n;
}

/* Every live_parse line of the report has usecs below 10. */
static int parse_filtered(void)
{
	char cmd[256], line[1024];
	FILE *p;
	int ok = 1, n = 0;

	snprintf(cmd, sizeof(cmd), "%s report %s", CLI, FILE_OUT);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		const char *u = strstr(line, "usecs=");

		if (strstr(line, "live_parse:") && u) {
			n++;
			ok &= atol(u + 6) < 10;
		}
	}
	if (p)
		pclose(p);
	if (!ok || !n)
		fprintf(stderr, "     %d live_parse lines, usecs %s\n", n, ok ? "below 10" : "not all below 10");
	return ok && n > 0;
}

static int no_instances(int pid)
{
	struct run r;
	int ok;

	run_cli(&r, (const char *[]){ "ctl", spid(pid), "ls", "instances", NULL });
	ok = lp_exit_code(r.status) == 0 && r.out && !*r.out;
	run_free(&r);
	return ok;
}

static void test_attach(void)
{
	struct target t;
	struct run r;
	char *before, *after;
	int a, b;

	if (!CHECK(target_start(&t, (const char *[]){ "-t", "2", "-i", "200", NULL }, 1) == 0))
		return;
	run_cli(&r, (const char *[]){ "ctl", spid(t.pids[0]), "read", "set_event", NULL });
	before = r.out;
	r.out = NULL;
	run_free(&r);
	unlink(FILE_OUT);
	run_cli(&r, (const char *[]){ "record", "-p", spid(t.pids[0]), "-e", "live:live_tick",
				      "-e", "live:live_parse", "-f", "usecs < 10", "--duration", "1",
				      "-o", FILE_OUT, NULL });
	CHECK_EQ_INT(lp_exit_code(r.status), 0);
	CHECK(has(r.err, "recording process"));
	CHECK(has(r.err, " 0 lost"));
	run_free(&r);
	a = report_count(CLI, "live_tick:");
	b = report_count("trace-cmd", "live_tick:");
	CHECK(a > 100);
	CHECK_EQ_INT(a, b);
	CHECK(report_count(CLI, "live_reply:") == 0);
	/* The filter applied to live_parse only, as -f after its -e says. */
	CHECK(parse_filtered());
	CHECK_EQ_INT(report_count(CLI, "live_parse:"), report_count("trace-cmd", "live_parse:"));
	/* The program is as it was: no instance left, its own events untouched. */
	CHECK(no_instances(t.pids[0]));
	run_cli(&r, (const char *[]){ "ctl", spid(t.pids[0]), "read", "set_event", NULL });
	after = r.out;
	r.out = NULL;
	run_free(&r);
	CHECK(before && after && !strcmp(before, after));
	free(before);
	free(after);

	/* Ctrl-C ends the recording as --duration does. */
	unlink(FILE_OUT);
	run_prog_sig(&r, CLI, (const char *[]){ "record", "-p", spid(t.pids[0]), "-e",
						"live:live_tick", "-o", FILE_OUT, NULL },
		     SIGINT, 700, NULL);
	CHECK_EQ_INT(lp_exit_code(r.status), 0);
	run_free(&r);
	CHECK(report_count(CLI, "live_tick:") > 10);
	CHECK(no_instances(t.pids[0]));

	/* A refused setting: said, exit 1, nothing left behind. */
	run_cli(&r, (const char *[]){ "record", "-p", spid(t.pids[0]), "-e", "live:live_tick",
				      "-f", "nosuch > 1", "-o", FILE_OUT, NULL });
	CHECK_EQ_INT(lp_exit_code(r.status), 1);
	CHECK(has(r.err, "nosuch > 1"));
	CHECK(has(r.err, "Field not found"));
	run_free(&r);
	CHECK(no_instances(t.pids[0]));
	run_cli(&r, (const char *[]){ "record", "-p", spid(t.pids[0]), "-e", "nosys:nothing",
				      "-o", FILE_OUT, NULL });
	CHECK_EQ_INT(lp_exit_code(r.status), 1);
	CHECK(has(r.err, "nosys:nothing"));
	run_free(&r);
	CHECK(no_instances(t.pids[0]));
	CHECK_EQ_INT(lp_exit_code(target_stop(&t, SIGTERM)), 1000 + SIGTERM);
}

/* The program exits while recorded: its file is finished on its way out. */
static void test_target_exits(void)
{
	struct target t;
	struct run r;

	if (!CHECK(target_start(&t, (const char *[]){ "-i", "200", "-d", "1", NULL }, 1) == 0))
		return;
	unlink(FILE_OUT);
	run_cli(&r, (const char *[]){ "record", "-p", spid(t.pids[0]), "-e", "live:*",
				      "--duration", "20", "-o", FILE_OUT, NULL });
	if (!CHECK(lp_exit_code(r.status) == 0))
		fprintf(stderr, "     exit %d: %s", lp_exit_code(r.status), r.err);
	CHECK(has(r.err, "exited"));
	run_free(&r);
	CHECK(report_count(CLI, "live_tick:") > 10);
	target_stop(&t, 0);
}

/* Lines of trace-cmd report naming what, or -1 without trace-cmd. */
static int trace_cmd_count(const char *what)
{
	if (system("command -v trace-cmd >/dev/null 2>&1"))
		return -1;
	return report_count("trace-cmd", what);
}

/*
 * A program killed with SIGKILL leaves its trace without data and the
 * pages beside it: record rebuilds the file, says so, and exits as the
 * program died; `slimtrace recover` does the same for a file left by
 * SLIMTRACE_OUTPUT alone.
 */
static void test_killed(void)
{
	char frag[64];
	struct run r;
	int n, tc;

	unlink(FILE_OUT);
	run_cli(&r, (const char *[]){ "record", "-e", "live:*", "-o", FILE_OUT, "--", TARGET,
				      "-i", "200", "-d", "0.3", "-K", NULL });
	if (!CHECK(lp_exit_code(r.status) == 128 + SIGKILL))
		fprintf(stderr, "     exit %d: %s", lp_exit_code(r.status), r.err);
	CHECK(has(r.err, "did not finish") && has(r.err, "recovered from"));
	run_free(&r);
	snprintf(frag, sizeof(frag), "%s.cpu0", FILE_OUT);
	CHECK(access(frag, F_OK) != 0);
	n = report_count(CLI, "live_tick:");
	CHECK(n > 10);
	tc = trace_cmd_count("live_tick:");
	CHECK(tc < 0 || tc == n);

	unlink(FILE_OUT);
	setenv("SLIMTRACE_OUTPUT", FILE_OUT, 1);
	setenv("SLIMTRACE_EVENTS", "live:*", 1);
	run_prog_sig(&r, TARGET, (const char *[]){ "-i", "200", "-d", "0.3", "-K", NULL }, 0, 0,
		     NULL);
	unsetenv("SLIMTRACE_OUTPUT");
	unsetenv("SLIMTRACE_EVENTS");
	CHECK(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
	run_free(&r);
	CHECK(access(frag, F_OK) == 0);
	CHECK_EQ_INT(report_count(CLI, "live_tick:"), 0);
	CHECK(cli_ok(&r, (const char *[]){ "recover", FILE_OUT, NULL }));
	CHECK(has(r.err, "recovered from"));
	run_free(&r);
	CHECK(access(frag, F_OK) != 0);
	CHECK(report_count(CLI, "live_tick:") > 10);
	/* Nothing left to put together: said, exit 1. */
	run_cli(&r, (const char *[]){ "recover", FILE_OUT, NULL });
	CHECK_EQ_INT(lp_exit_code(r.status), 1);
	CHECK(has(r.err, "nothing to recover"));
	run_free(&r);
	run_cli(&r, (const char *[]){ "recover", NULL });
	CHECK_EQ_INT(lp_exit_code(r.status), 2);
	run_free(&r);
}

/* Lines of a report naming both what and who (a thread's "comm-"). */
static int report_count2(const char *prog, const char *what, const char *who)
{
	char cmd[256], line[1024];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "%s report %s 2>/dev/null", prog, FILE_OUT);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p))
		n += strstr(line, what) && strstr(line, who);
	if (p)
		pclose(p);
	return n;
}

/* No file of one process (FILE_OUT.PID) left behind. */
static int no_part(int pid)
{
	char path[64];

	snprintf(path, sizeof(path), "%s.%d", FILE_OUT, pid);
	return access(path, F_OK) && errno == ENOENT;
}

/*
 * -p A -p B: one file with both.  B (live_target_extra) numbers its events
 * otherwise than A: its live_extra has the id of A's live_tick, so the
 * merged file is right only if the ids were renumbered per process.
 */
static void test_multi(void)
{
	struct target a, b;
	struct run r;
	char pa[16], pb[16], who[64];
	int n;

	if (!CHECK(target_start(&a, (const char *[]){ "-i", "200", NULL }, 1) == 0))
		return;
	if (!CHECK(target_start_ex(&b, TARGET "_extra", (const char *[]){ "-i", "200", "-d", "1.5",
				   NULL }, 1, NULL, 1, NULL) == 0)) {
		target_stop(&a, SIGTERM);
		return;
	}
	snprintf(pa, sizeof(pa), "%d", a.pids[0]);
	snprintf(pb, sizeof(pb), "%d", b.pids[0]);
	unlink(FILE_OUT);
	/* B exits during the run: its part is still in the file. */
	run_cli(&r, (const char *[]){ "record", "-p", pa, "-p", pb, "-e", "live:*",
				      "--duration", "3", "-o", FILE_OUT, NULL });
	if (!CHECK(lp_exit_code(r.status) == 0))
		fprintf(stderr, "     %s", r.err);
	snprintf(who, sizeof(who), "process %s:", pa);
	CHECK(has(r.err, who));
	snprintf(who, sizeof(who), "process %s (exited):", pb);
	CHECK(has(r.err, who));
	CHECK(has(r.err, " 0 lost"));
	run_free(&r);
	/* Records carry thread ids: a process is told by its name. */
	snprintf(who, sizeof(who), "live_target-");
	n = report_count2(CLI, "live_tick:", who);
	CHECK(n > 100);
	CHECK_EQ_INT(n, report_count2("trace-cmd", "live_tick:", who));
	CHECK_EQ_INT(report_count2(CLI, "live_extra:", who), 0);
	snprintf(who, sizeof(who), "live_target_ext-");
	n = report_count2(CLI, "live_tick:", who);
	CHECK(n > 100);
	CHECK_EQ_INT(n, report_count2("trace-cmd", "live_tick:", who));
	/* Every round of B fires one live_tick and one live_extra. */
	CHECK_EQ_INT(report_count2(CLI, "live_extra:", who), n);
	CHECK_EQ_INT(report_count2("trace-cmd", "live_extra:", who), n);
	CHECK_EQ_INT(report_count(CLI, "live_parse:"), report_count("trace-cmd", "live_parse:"));
	CHECK(no_part(a.pids[0]) && no_part(b.pids[0]));
	CHECK(no_instances(a.pids[0]));
	target_stop(&b, 0);
	CHECK_EQ_INT(lp_exit_code(target_stop(&a, SIGTERM)), 1000 + SIGTERM);
}

/* A pid that is no slimtrace process: refused by name, nothing made in the others. */
static void test_multi_refused(void)
{
	struct target a;
	struct run r;
	char pa[16], ps[16];
	pid_t sleeper;

	if (!CHECK(target_start(&a, (const char *[]){ "-i", "500", NULL }, 1) == 0))
		return;
	sleeper = fork();
	if (sleeper == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execlp("sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	snprintf(pa, sizeof(pa), "%d", a.pids[0]);
	snprintf(ps, sizeof(ps), "%d", (int)sleeper);
	unlink(FILE_OUT);
	run_cli(&r, (const char *[]){ "record", "-p", pa, "-p", ps, "--duration", "1",
				      "-o", FILE_OUT, NULL });
	CHECK_EQ_INT(lp_exit_code(r.status), 1);
	CHECK(has(r.err, ps));
	run_free(&r);
	CHECK(no_instances(a.pids[0]));
	CHECK(access(FILE_OUT, F_OK) != 0);
	CHECK(no_part(a.pids[0]));
	run_cli(&r, (const char *[]){ "record", "-p", pa, "-p", pa, "-o", FILE_OUT, NULL });
	CHECK_EQ_INT(lp_exit_code(r.status), 2);
	run_free(&r);
	kill(sleeper, SIGKILL);
	waitpid(sleeper, NULL, 0);
	CHECK_EQ_INT(lp_exit_code(target_stop(&a, SIGTERM)), 1000 + SIGTERM);
}

static void test_refusals(void)
{
	struct run r;

	run_cli(&r, (const char *[]){ "record", "-p", "1", "--", "true", NULL });
	CHECK_EQ_INT(lp_exit_code(r.status), 2);
	run_free(&r);
	run_cli(&r, (const char *[]){ "record", "--duration", "1", "--", "true", NULL });
	CHECK_EQ_INT(lp_exit_code(r.status), 2);
	run_free(&r);
	run_cli(&r, (const char *[]){ "record", "-p", "x1", NULL });
	CHECK_EQ_INT(lp_exit_code(r.status), 2);
	run_free(&r);
	run_cli(&r, (const char *[]){ "record", "-p", "999999", "-o", FILE_OUT, NULL });
	CHECK_EQ_INT(lp_exit_code(r.status), 1);
	CHECK(has(r.err, "999999"));
	run_free(&r);
}

int main(void)
{
	check_watchdog("live_record", 180);
	if (!CHECK(access(CLI, X_OK) == 0) || !CHECK(access(TARGET, X_OK) == 0))
		return check_done("live_record");
	lp_setup("lrec");
	test_refusals();
	test_attach();
	test_target_exits();
	test_killed();
	test_multi();
	test_multi_refused();
	unlink(FILE_OUT);
	lp_cleanup();
	return check_done("live_record");
}
