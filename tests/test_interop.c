// SPDX-License-Identifier: MIT
/*
 * Traces other tools open, checked with the real tools:
 *  - a trace.dat recorded earlier (tests/interop/demo-v6.dat) reports
 *    identically today, with slimtrace and with trace-cmd, which is what
 *    reporting a file recorded on another machine means;
 *  - trace-cmd reads a fresh recording with an empty stderr and passes
 *    --ts-check;
 *  - a user trace recorded with the mono clock and a kernel trace of the
 *    same run (sched_switch, mono clock) interleave on one timeline in
 *    `trace-cmd report -i kernel.dat -i user.dat`.  This part needs
 *    tracefs; where it is missing the test says so and checks the rest.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"

static char src[4096];

/* Run a shell command; its stdout (malloc'd) and exit status. */
static char *run(const char *cmd, int *status)
{
	FILE *p = popen(cmd, "r");
	size_t len = 0, cap = 1 << 16, n;
	char *out = malloc(cap);

	while (p && out && (n = fread(out + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 4096) {
			cap *= 2;
			out = realloc(out, cap);
		}
	}
	if (out)
		out[len] = '\0';
	*status = p ? pclose(p) : -1;
	return out;
}

static char *slurp(const char *path)
{
	char cmd[8192];
	int st;

	snprintf(cmd, sizeof(cmd), "cat '%s'", path);
	return run(cmd, &st);
}

static void test_checked_in_file(void)
{
	char cmd[8192], file[4200], want_path[4200];
	char *want, *ours, *theirs, *err;
	int st;

	snprintf(file, sizeof(file), "%s/tests/interop/demo-v6.dat", src);
	snprintf(want_path, sizeof(want_path), "%s/tests/interop/demo-v6.report", src);
	want = slurp(want_path);
	CHECK(want && strstr(want, "demo_request:         id=0 path=/index.html flags=GET|CACHED"));
	snprintf(cmd, sizeof(cmd), "../tools/slimtrace report '%s'", file);
	ours = run(cmd, &st);
	CHECK_EQ_INT(st, 0);
	CHECK_EQ_STR(ours, want);
	snprintf(cmd, sizeof(cmd), "trace-cmd report -i '%s' 2>/dev/null", file);
	theirs = run(cmd, &st);
	CHECK_EQ_INT(st, 0);
	CHECK_EQ_STR(theirs, want);
	snprintf(cmd, sizeof(cmd), "trace-cmd report --ts-check -i '%s' 2>&1 >/dev/null", file);
	err = run(cmd, &st);
	CHECK_EQ_INT(st, 0);
	CHECK_EQ_STR(err, "");
	free(want);
	free(ours);
	free(theirs);
	free(err);
}

static int have_tracefs(void)
{
	struct stat sb;

	if (stat("/sys/kernel/tracing/events/sched/sched_switch", &sb) == 0)
		return 1;
	if (system("mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null") != 0)
		return 0;
	return stat("/sys/kernel/tracing/events/sched/sched_switch", &sb) == 0;
}

/* Timestamps in `trace-cmd report` lines never go back. */
static int in_time_order(const char *text, int *user, int *kernel)
{
	double last = 0, ts;
	const char *line, *colon;
	char buf[1024];
	size_t n;

	*user = *kernel = 0;
	for (line = text; *line; line += n + (line[n] == '\n')) {
		n = strcspn(line, "\n");
		snprintf(buf, sizeof(buf), "%.*s", (int)n, line);
		colon = strstr(buf, ": sched_switch:");
		if (!colon)
			colon = strstr(buf, ": demo_");
		if (!colon)
			continue;
		if (colon[2] == 'd')
			(*user)++;
		else
			(*kernel)++;
		while (colon > buf && colon[-1] != ' ')
			colon--;
		ts = strtod(colon, NULL);
		if (ts < last)
			return 0;
		last = ts;
	}
	return 1;
}

static void test_one_timeline(void)
{
	char dir[] = "/tmp/slim_interop_XXXXXX", inst[256], cmd[8192], here[4096];
	char *out;
	int st, user = 0, kernel = 0;

	if (!have_tracefs() || system("command -v trace-cmd >/dev/null") != 0) {
		printf("NOTE: tracefs or trace-cmd not available: the kernel+user "
		       "timeline check did not run\n");
		return;
	}
	if (!mkdtemp(dir) || !getcwd(here, sizeof(here)))
		return;
	/* A private tracefs instance, so nothing else's tracing is touched. */
	snprintf(inst, sizeof(inst), "slim_interop_%d", getpid());
	snprintf(cmd, sizeof(cmd),
		 "I=/sys/kernel/tracing/instances/%s && mkdir $I && "
		 "echo mono > $I/trace_clock && echo 1 > $I/events/sched/sched_switch/enable && "
		 "(cd %s && SLIMTRACE_OUTPUT=user.dat SLIMTRACE_CLOCK=mono "
		 "%s/../examples/demo > /dev/null; true) && "
		 "echo 0 > $I/events/sched/sched_switch/enable && "
		 "trace-cmd extract -B %s -o %s/kernel.dat > /dev/null 2>&1; "
		 "rmdir $I 2>/dev/null; test -s %s/kernel.dat && test -s %s/user.dat",
		 inst, dir, here, inst, dir, dir, dir);
	CHECK_EQ_INT(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "trace-cmd report -i %s/kernel.dat -i %s/user.dat 2>/dev/null",
		 dir, dir);
	out = run(cmd, &st);
	CHECK_EQ_INT(st, 0);
	CHECK(out && in_time_order(out, &user, &kernel));
	CHECK_EQ_INT(user, 16);
	CHECK(kernel > 0);
	/* The demo's own context switches sit among its events. */
	CHECK(out && strstr(out, "==> demo:"));
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

int main(void)
{
	char *s = realpath(getenv("SLIM_SRCDIR") ? getenv("SLIM_SRCDIR") : "../../..", NULL);

	snprintf(src, sizeof(src), "%s", s ? s : "../../..");
	free(s);
	test_checked_in_file();
	test_one_timeline();
	return check_done("interop");
}
