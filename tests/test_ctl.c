// SPDX-License-Identifier: MIT
/*
 * "tracefs, in your process": every control file, its semantics, and
 * its answer to bad input (refused, explained in error_log, nothing
 * changed, nothing recorded lost).
 */
#include <errno.h>
#include <stdlib.h>
#include <slimtrace/ctl.h>
#include "check.h"
#include "sample_events.h"

static char *rd(const char *path)
{
	static char *last;

	free(last);
	last = slim_ctl_read(path);
	return last ? last : "(null)";
}

static int count_lines(const char *text, const char *needle)
{
	int n = 0;

	while ((text = strstr(text, needle))) {
		n++;
		text++;
	}
	return n;
}

static void test_available_and_set_event(void)
{
	CHECK_EQ_STR(rd("available_events"),
		     "sample:sample_all\nsample:sample_first\nsample:sample_second\n"
		     "sample:sample_custom\n");
	CHECK_EQ_STR(rd("set_event"), "");
	CHECK_EQ_INT(slim_ctl_write("set_event", "sample:sample_first"), 0);
	CHECK_EQ_STR(rd("set_event"), "sample:sample_first\n");
	/* Append adds; write replaces. */
	CHECK_EQ_INT(slim_ctl_append("set_event", "sample_second"), 0);
	CHECK_EQ_STR(rd("set_event"), "sample:sample_first\nsample:sample_second\n");
	CHECK_EQ_INT(slim_ctl_write("set_event", "sample:sample_custom\n"), 0);
	CHECK_EQ_STR(rd("set_event"), "sample:sample_custom\n");
	CHECK_EQ_INT(slim_ctl_write("set_event", "sample:*"), 0);
	CHECK_EQ_INT(count_lines(rd("set_event"), "sample:"), 4);
	CHECK_EQ_INT(slim_ctl_append("set_event", "!sample:sample_all"), 0);
	CHECK_EQ_INT(count_lines(rd("set_event"), "sample:"), 3);
	CHECK_EQ_INT(slim_ctl_write("set_event", "*:*"), 0);
	CHECK_EQ_INT(count_lines(rd("set_event"), "sample:"), 4);
	/* A bare word names an event or a system. */
	CHECK_EQ_INT(slim_ctl_write("set_event", "sample"), 0);
	CHECK_EQ_INT(count_lines(rd("set_event"), "sample:"), 4);
	CHECK_EQ_INT(slim_ctl_write("set_event", ""), 0);
	CHECK_EQ_STR(rd("set_event"), "");
}

static void test_enable_files(void)
{
	CHECK_EQ_STR(rd("events/enable"), "0\n");
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable", "1"), 0);
	CHECK_EQ_STR(rd("events/sample/sample_first/enable"), "1\n");
	CHECK_EQ_STR(rd("events/sample/enable"), "X\n");
	CHECK_EQ_STR(rd("events/enable"), "X\n");
	CHECK_EQ_INT(slim_ctl_write("events/sample/enable", "1\n"), 0);
	CHECK_EQ_STR(rd("events/sample/enable"), "1\n");
	CHECK_EQ_STR(rd("events/enable"), "1\n");
	CHECK_EQ_INT(slim_ctl_write("events/enable", "0"), 0);
	CHECK_EQ_STR(rd("events/sample/sample_all/enable"), "0\n");
	CHECK(!(slim_event_sample_all.flags & SLIM_EVENT_FL_ENABLED));
}

static void test_id_and_format(void)
{
	char want[32];
	const char *fmt;

	snprintf(want, sizeof(want), "%d\n", slim_event_sample_first.event.type);
	CHECK_EQ_STR(rd("events/sample/sample_first/id"), want);
	fmt = rd("events/sample/sample_first/format");
	CHECK(strncmp(fmt, "name: sample_first\nID: ", 23) == 0);
	CHECK(strstr(fmt, "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n") != NULL);
	CHECK(strstr(fmt, "\tfield:long b;\toffset:16;\tsize:8;\tsigned:1;\n") != NULL);
	CHECK(strstr(fmt, "\nprint fmt: \"a=%d b=%ld\", REC->a, REC->b\n") != NULL);
	CHECK(strstr(rd("events/header_event"), "type_len    :    5 bits") != NULL);
	CHECK(strstr(rd("events/header_page"), "field: u64 timestamp;") != NULL);
}

static void test_trace_files(void)
{
	const char *t;

	CHECK_EQ_INT(slim_ctl_write("trace", ""), 0);
	CHECK_EQ_INT(slim_ctl_write("set_event", "sample_first sample_custom"), 0);
	trace_sample_first(1, 2);
	trace_sample_second(3, 4);	/* not enabled */
	trace_sample_custom(5, 6);
	t = rd("trace");
	if (!CHECK(strncmp(t, "# tracer: nop\n#\n# entries-in-buffer/entries-written: 2/2 ", 57) == 0))
		fprintf(stderr, "%.80s\n", t);
	CHECK(strstr(t, "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n") != NULL);
	CHECK(strstr(t, ": sample_first: a=1 b=2\n") != NULL);
	CHECK(strstr(t, ": sample_custom: custom sum=11\n") != NULL);
	CHECK(strstr(t, "sample_second") == NULL);
	/* Reading trace does not consume; trace_pipe does. */
	CHECK(strstr(rd("trace"), "sample_first: a=1 b=2") != NULL);
	t = rd("trace_pipe");
	CHECK(strstr(t, "sample_first: a=1 b=2\n") != NULL);
	CHECK(strstr(t, "# tracer") == NULL);
	CHECK_EQ_STR(rd("trace_pipe"), "");
	trace_sample_first(7, 8);
	CHECK(strstr(rd("trace_pipe"), "a=7 b=8") != NULL);

	/* tracing_on 0: nothing is recorded, nothing counted lost. */
	CHECK_EQ_INT(slim_ctl_write("tracing_on", "0"), 0);
	CHECK_EQ_STR(rd("tracing_on"), "0\n");
	trace_sample_first(9, 9);
	CHECK_EQ_INT(slim_ctl_write("tracing_on", "1"), 0);
	CHECK(strstr(rd("trace"), "a=9") == NULL);
	trace_sample_first(10, 10);
	CHECK(strstr(rd("trace"), "a=10") != NULL);
	/* Writing trace clears it. */
	CHECK_EQ_INT(slim_ctl_write("trace", ""), 0);
	CHECK(strstr(rd("trace"), "sample_") == NULL);
	slim_ctl_write("set_event", "");
}

static void test_options(void)
{
	const char *t;

	slim_ctl_write("trace", "");
	slim_ctl_write("set_event", "sample_custom");
	trace_sample_custom(3, 4);
	CHECK_EQ_STR(rd("trace_options"), "noraw\nnohex\nnobin\noverwrite\n");
	CHECK_EQ_INT(slim_ctl_write("trace_options", "raw"), 0);
	CHECK_EQ_STR(rd("trace_options"), "raw\nnohex\nnobin\noverwrite\n");
	t = rd("trace");
	/* raw: pid cpu ts, then the class's raw printer: fields by name. */
	CHECK(strstr(t, " sample_custom: a=3 b=4\n") != NULL);
	CHECK(strstr(t, "custom sum") == NULL);
	CHECK(strstr(t, "[000] .....") == NULL);
	CHECK_EQ_INT(slim_ctl_write("trace_options", "noraw"), 0);
	CHECK_EQ_INT(slim_ctl_write("trace_options", "hex"), 0);
	t = rd("trace");
	CHECK(strstr(t, "sample_custom") == NULL);
	CHECK(strstr(t, "custom sum") == NULL);
	CHECK_EQ_INT(slim_ctl_write("trace_options", "nohex"), 0);
	CHECK(strstr(rd("trace"), "sample_custom: custom sum=7") != NULL);
	CHECK_EQ_INT(slim_ctl_write("trace_options", "nooverwrite"), 0);
	CHECK_EQ_STR(rd("trace_options"), "noraw\nnohex\nnobin\nnooverwrite\n");
	/* Records made before the mode change are still there. */
	CHECK(strstr(rd("trace"), "sample_custom: custom sum=7") != NULL);
	CHECK_EQ_INT(slim_ctl_write("trace_options", "overwrite"), 0);
	slim_ctl_write("set_event", "");
}

static void test_clock_and_size(void)
{
	CHECK(strstr(rd("trace_clock"), "[mono]") != NULL);
	CHECK_EQ_INT(slim_ctl_write("trace_clock", "mono_raw"), 0);
	CHECK(strstr(rd("trace_clock"), "[mono_raw]") != NULL);
	CHECK_EQ_INT(slim_ctl_write("trace_clock", "tsc\n"), 0);
	CHECK(strstr(rd("trace_clock"), "[tsc]") != NULL);
	CHECK_EQ_INT(slim_ctl_write("trace_clock", "mono"), 0);
	CHECK_EQ_STR(rd("buffer_size_kb"), "1024\n");
	CHECK_EQ_INT(slim_ctl_write("buffer_size_kb", "64"), 0);
	CHECK_EQ_STR(rd("buffer_size_kb"), "64\n");
}

/* Refused, explained in error_log, nothing changed, nothing lost. */
static void test_bad_input(void)
{
	char *before;
	const char *log;

	slim_ctl_write("error_log", "");
	slim_ctl_write("trace", "");
	slim_ctl_write("set_event", "sample_first");
	trace_sample_first(42, 42);
	before = strdup(rd("set_event"));

	CHECK_EQ_INT(slim_ctl_write("no_such_file", "1"), -ENOENT);
	CHECK(slim_ctl_read("events/sample/nope/enable") == NULL && errno == ENOENT);
	CHECK(slim_ctl_read("events/nosys/enable") == NULL && errno == ENOENT);
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/id", "3"), -EACCES);
	CHECK_EQ_INT(slim_ctl_write("set_event", "sample_first nosuch:event"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_append("set_event", "ghost"), -EINVAL);
	CHECK_EQ_STR(rd("set_event"), before);
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable", "2"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_write("events/sample/enable", "yes"), -EINVAL);
	CHECK_EQ_STR(rd("set_event"), before);
	CHECK_EQ_INT(slim_ctl_write("buffer_size_kb", "lots"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_write("buffer_size_kb", "-5"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_write("buffer_size_kb", ""), -EINVAL);
	CHECK_EQ_STR(rd("buffer_size_kb"), "64\n");
	CHECK_EQ_INT(slim_ctl_write("trace_clock", "sundial"), -EINVAL);
	CHECK(strstr(rd("trace_clock"), "[mono]") != NULL);
	CHECK_EQ_INT(slim_ctl_write("trace_options", "sparkles"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_write("tracing_on", "maybe"), -EINVAL);
	CHECK_EQ_STR(rd("tracing_on"), "1\n");
	CHECK_EQ_INT(slim_ctl_write(NULL, "1"), -EINVAL);

	/* Nothing already recorded was lost. */
	CHECK(strstr(rd("trace"), "sample_first: a=42 b=42") != NULL);
	CHECK(strstr(rd("trace"), "entries-in-buffer/entries-written: 1/") != NULL);

	log = rd("error_log");
	CHECK(strstr(log, "no_such_file: error: No such file\n  Command: no_such_file\n") != NULL);
	CHECK(strstr(log, "set_event: error: No such event or system\n"
		      "  Command: sample_first nosuch:event\n"
		      "                        ^\n") != NULL);
	CHECK(strstr(log, "enable: error: Invalid value: expected 0 or 1\n  Command: 2\n") != NULL);
	CHECK(strstr(log, "buffer_size_kb: error: Invalid value: expected a size in KiB\n"
		      "  Command: lots\n") != NULL);
	CHECK(strstr(log, "trace_clock: error: No such clock\n  Command: sundial\n") != NULL);
	CHECK(strstr(log, "trace_options: error: No such option\n") != NULL);
	CHECK(log[0] == '[');
	/* Keeps the last 16, oldest first; cleared by a write. */
	CHECK_EQ_INT(count_lines(log, "] "), 14);
	CHECK_EQ_INT(slim_ctl_write("error_log", ""), 0);
	CHECK_EQ_STR(rd("error_log"), "");
	free(before);
	slim_ctl_write("set_event", "");
}

int main(void)
{
	test_available_and_set_event();
	test_enable_files();
	test_id_and_format();
	test_trace_files();
	test_options();
	test_clock_and_size();
	test_bad_input();
	return check_done("ctl");
}
