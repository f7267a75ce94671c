// SPDX-License-Identifier: MIT
/*
 * Start-up configuration from the environment.  The environment is read
 * when the first event loads (before main), so each case re-runs this
 * program with its environment and checks from inside.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <slimtrace/ctl.h>
#include "check.h"
#include "records.h"
#include "sample_events.h"

static int enabled(struct slim_event *ev)
{
	return !!(ev->flags & SLIM_EVENT_FL_ENABLED);
}

/* Child side: what the case's environment must have done. */
static int child(const char *which)
{
	char *t;

	if (strcmp(which, "none") == 0) {
		/* Nothing set: nothing enabled, no buffer ever allocated. */
		CHECK(!enabled(&slim_event_sample_all) && !enabled(&slim_event_sample_first));
		trace_sample_first(1, 2);
		trace_sample_custom(1, 2);
		CHECK_EQ_INT(slim_bufset_count(&slim_bufset_top), 0);
		CHECK(!trace_sample_first_enabled());
	} else if (strcmp(which, "list") == 0) {
		CHECK(enabled(&slim_event_sample_first) && enabled(&slim_event_sample_custom));
		CHECK(!enabled(&slim_event_sample_all) && !enabled(&slim_event_sample_second));
	} else if (strcmp(which, "glob") == 0) {
		CHECK(enabled(&slim_event_sample_first) && enabled(&slim_event_sample_second));
		CHECK(enabled(&slim_event_sample_custom) && !enabled(&slim_event_sample_all));
	} else if (strcmp(which, "config") == 0) {
		t = slim_ctl_read("trace_clock");
		CHECK(t && strstr(t, "[mono_raw]"));
		free(t);
		t = slim_ctl_read("buffer_size_kb");
		CHECK_EQ_STR(t, "128\n");
		free(t);
		t = slim_ctl_read("events/sample/sample_first/filter");
		CHECK_EQ_STR(t, "a > 5\n");
		free(t);
		trace_sample_first(3, 0);
		trace_sample_first(7, 0);
		t = slim_ctl_read("trace");
		CHECK(t && !strstr(t, "a=3") && strstr(t, "a=7 b=0"));
		free(t);
	} else if (strcmp(which, "sizes") == 0) {
		/* Refused as the buffer_size_kb file refuses: the size stays. */
		t = slim_ctl_read("buffer_size_kb");
		CHECK_EQ_STR(t, "1024\n");
		free(t);
		/* And recording works, at the size kept. */
		slim_ctl_write("set_event", "sample_first");
		trace_sample_first(1, 1);
		CHECK_EQ_INT(slim_bufset_count(&slim_bufset_top), 1);
	} else if (strcmp(which, "empty") == 0) {
		/* Recording, but nothing enabled or nothing fired: the end says so. */
		CHECK(!enabled(&slim_event_sample_first));
		trace_sample_first(1, 2);
	} else if (strcmp(which, "bad") == 0) {
		t = slim_ctl_read("trace_clock");
		CHECK(t && strstr(t, "[mono]"));
		free(t);
		CHECK(!enabled(&slim_event_sample_first));
	}
	return check_done(which);
}

/* Parent side: run a case; its checks count as ours; want: in its stderr. */
static void run_case_says(const char *which, const char *const env[], const char *want)
{
	int said = 0;
	char cmd[4096], line[512];
	size_t off = 0;
	int i, p = 0, f = 0;
	FILE *out;

	for (i = 0; env[i]; i++)
		off += snprintf(cmd + off, sizeof(cmd) - off, "%s ", env[i]);
	snprintf(cmd + off, sizeof(cmd) - off, "SLIM_ENV_CHILD=%s /proc/%d/exe 2>&1",
		 which, getpid());
	out = popen(cmd, "r");
	while (out && fgets(line, sizeof(line), out)) {
		if (want && strstr(line, want))
			said++;
		else if (sscanf(line, "RESULT %*s %d %d", &p, &f) != 2)
			fputs(line, stderr);
	}
	CHECK(out && pclose(out) == 0);
	/* Said once: not twice, not without its reason. */
	if (want && !check_report(said == 1, "the case's message, once", __FILE__, __LINE__))
		fprintf(stderr, "     case %s: \"%s\" %d times\n", which, want, said);
	if (!check_report(p > 0 && f == 0, which, __FILE__, __LINE__))
		fprintf(stderr, "     case %s: %d passed, %d failed\n", which, p, f);
	check_passed += p - (p > 0 && f == 0);
}

static void run_case(const char *which, const char *const env[])
{
	run_case_says(which, env, NULL);
}

int main(void)
{
	static const char *const none[] = { "env -u SLIMTRACE_EVENTS", NULL };
	static const char *const list[] = {
		"SLIMTRACE_EVENTS=sample:sample_first,sample_custom", NULL };
	static const char *const glob[] = {
		"SLIMTRACE_EVENTS='sample:* !sample:sample_all'", NULL };
	static const char *const config[] = {
		"SLIMTRACE_EVENTS=sample_first", "SLIMTRACE_CLOCK=mono_raw",
		"SLIMTRACE_BUFFER_KB=128", "SLIMTRACE_FILTER='sample:sample_first:a > 5'",
		NULL };
	static const char *const bad[] = {
		"SLIMTRACE_CLOCK=sundial", "SLIMTRACE_BUFFER_KB=lots",
		"SLIMTRACE_EVENTS=nosuch", "SLIMTRACE_FILTER='sample:sample_first:a >'",
		NULL };
	static const char *const too_big[] = { "SLIMTRACE_BUFFER_KB=99999999999", NULL };
	static const char *const wraps[] = { "SLIMTRACE_BUFFER_KB=17179869188", NULL };
	static const char *const junk[] = { "SLIMTRACE_BUFFER_KB=12abc", NULL };
	static const char *const tiny[] = { "SLIMTRACE_BUFFER_KB=3", NULL };
	static const char *const nodir[] = { "SLIMTRACE_EVENTS=sample_first",
		"SLIMTRACE_OUTPUT=/nonexistent/x.dat", NULL };
	static const char *const empty[] = { "env -u SLIMTRACE_EVENTS",
		"SLIMTRACE_OUTPUT=/tmp/slim_env_empty.dat", NULL };
	static const char *const unfired[] = { "SLIMTRACE_EVENTS=sample_second",
		"SLIMTRACE_OUTPUT=/tmp/slim_env_empty.dat", NULL };
	const char *which = getenv("SLIM_ENV_CHILD");

	if (which)
		return child(which);
	run_case("none", none);
	run_case("list", list);
	run_case("glob", glob);
	run_case("config", config);
	run_case("bad", bad);
	run_case_says("sizes", too_big, "SLIMTRACE_BUFFER_KB='99999999999': Size out of range");
	run_case_says("sizes", wraps, "SLIMTRACE_BUFFER_KB='17179869188': Size out of range");
	run_case_says("sizes", junk, "SLIMTRACE_BUFFER_KB='12abc': Invalid value");
	run_case_says("sizes", tiny, "SLIMTRACE_BUFFER_KB='3': Size out of range");
	run_case_says("sizes", nodir, "SLIMTRACE_OUTPUT: cannot record to "
		      "'/nonexistent/x.dat': No such file or directory");
	run_case_says("empty", empty, "SLIMTRACE_OUTPUT: /tmp/slim_env_empty.dat holds no event: "
		      "none was enabled (set SLIMTRACE_EVENTS too");
	run_case_says("empty", unfired, "SLIMTRACE_OUTPUT: /tmp/slim_env_empty.dat holds no event: "
		      "none of SLIMTRACE_EVENTS='sample_second' fired while recording");
	unlink("/tmp/slim_env_empty.dat");
	return check_done("env");
}
