// SPDX-License-Identifier: MIT
/*
 * Triggers: events/<sys>/<ev>/trigger with traceon, traceoff,
 * enable_event and disable_event, counts, "if" filters, the kernel's
 * read-back texts, removal, truncation, refusals with error_log, two
 * instances apart, soft mode, and traceoff:5 from several threads with
 * an exact count.  When they run, as the kernel's: one without a filter
 * before the record is reserved (an unconditional traceoff keeps its own
 * event out), one with a filter on the record before its commit, with
 * the thread's COMM, on a record built aside when the ring does not
 * take it (event not enabled, tracing off); and all of it changed while
 * threads fire the event.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <slimtrace/ctl.h>
#include "check.h"
#include "ctl_read.h"
#include "sample_events.h"

#define TRIG	"events/sample/sample_first/trigger"
#define EMPTY	"# Available triggers:\n# traceon traceoff snapshot stacktrace enable_event disable_event\n"

static void test_forms(void)
{
	CHECK_EQ_STR(rd(TRIG), EMPTY);
	CHECK_EQ_INT(slim_ctl_write(TRIG, "traceoff:3 if a == 0\n"), 0);
	CHECK_EQ_STR(rd(TRIG), "traceoff:count=3 if a == 0\n");
	CHECK_EQ_INT(slim_ctl_append(TRIG, "enable_event:sample:sample_second"), 0);
	CHECK_EQ_STR(rd(TRIG), "enable_event:sample:sample_second:unlimited\n"
			       "traceoff:count=3 if a == 0\n");
	/* traceon and traceoff are one kind: a second is a duplicate. */
	CHECK_EQ_INT(slim_ctl_append(TRIG, "traceon"), -EEXIST);
	CHECK_EQ_INT(slim_ctl_append(TRIG, "disable_event:sample:sample_second:2"), -EEXIST);
	CHECK_EQ_INT(slim_ctl_append(TRIG, "!traceoff"), 0);
	CHECK_EQ_STR(rd(TRIG), "enable_event:sample:sample_second:unlimited\n");
	CHECK_EQ_INT(slim_ctl_append(TRIG, "!traceoff"), 0);
	CHECK_EQ_INT(slim_ctl_append(TRIG, "traceon:0"), 0);
	CHECK_EQ_STR(rd(TRIG), "traceon:count=0\n"
			       "enable_event:sample:sample_second:unlimited\n");
	/* ">" clears first, as the kernel's open for truncation. */
	CHECK_EQ_INT(slim_ctl_write(TRIG, "disable_event:sample:sample_second:2 if b > 5"), 0);
	CHECK_EQ_STR(rd(TRIG), "disable_event:sample:sample_second:count=2 if b > 5\n");
	CHECK_EQ_INT(slim_ctl_write(TRIG, ""), 0);
	CHECK_EQ_STR(rd(TRIG), EMPTY);
}

static void test_refusals(void)
{
	CHECK_EQ_INT(slim_ctl_write("error_log", ""), 0);
	CHECK_EQ_INT(slim_ctl_append(TRIG, "traceon"), 0);
	CHECK_EQ_INT(slim_ctl_append(TRIG, "bogus"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_append(TRIG, "traceoff:abc"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_append(TRIG, "traceoff:-1"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_append(TRIG, "traceoff:1:2"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_append(TRIG, "traceoff iff a == 1"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_append(TRIG, "enable_event:sample:nope"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_append(TRIG, "enable_event:sample"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_append(TRIG, "disable_event:sample:sample_second if foo == 1"),
		     -EINVAL);
	CHECK_EQ_STR(rd(TRIG), "traceon:unlimited\n");
	CHECK(strstr(rd("error_log"), "event trigger: error: Invalid trigger\n"
				      "  Command: bogus\n") != NULL);
	CHECK(strstr(rd("error_log"), "event trigger: error: Invalid event or command\n"
				      "  Command: enable_event:sample:nope\n") != NULL);
	CHECK(strstr(rd("error_log"), "event filter parse error: error: Field not found\n"
				      "  Command: foo == 1\n") != NULL);
	CHECK_EQ_STR(rd("events/sample/sample_second/enable"), "0\n");
	CHECK_EQ_INT(slim_ctl_write(TRIG, ""), 0);
}

/* traceoff fires on an event enabled nowhere, with its filter on the record. */
static void test_traceoff_filter(void)
{
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable", "0"), 0);
	CHECK_EQ_INT(slim_ctl_write(TRIG, "traceoff:2 if a == 7"), 0);
	trace_sample_first(1, 0);
	CHECK_EQ_STR(rd("tracing_on"), "1\n");
	trace_sample_first(7, 0);
	CHECK_EQ_STR(rd("tracing_on"), "0\n");
	CHECK_EQ_STR(rd(TRIG), "traceoff:count=1 if a == 7\n");
	/* Already off: nothing changes, nothing counted. */
	trace_sample_first(7, 0);
	CHECK_EQ_STR(rd(TRIG), "traceoff:count=1 if a == 7\n");
	CHECK_EQ_INT(slim_ctl_write("tracing_on", "1"), 0);
	trace_sample_first(7, 0);
	CHECK_EQ_STR(rd(TRIG), "traceoff:count=0 if a == 7\n");
	CHECK_EQ_INT(slim_ctl_write("tracing_on", "1"), 0);
	trace_sample_first(7, 0);
	CHECK_EQ_STR(rd("tracing_on"), "1\n");
	CHECK_EQ_INT(slim_ctl_write(TRIG, "traceon"), 0);
	CHECK_EQ_INT(slim_ctl_write("tracing_on", "0"), 0);
	trace_sample_first(0, 0);
	CHECK_EQ_STR(rd("tracing_on"), "1\n");
	CHECK_EQ_INT(slim_ctl_write(TRIG, ""), 0);
}

/* enable_event: the named event is attached soft-disabled until it fires. */
static void test_soft_mode(void)
{
	slim_ctl_write("trace", "");
	CHECK_EQ_INT(slim_ctl_write(TRIG, "enable_event:sample:sample_second:1"), 0);
	trace_sample_second(1, 1);
	CHECK(strstr(rd("trace"), "sample_second") == NULL);
	trace_sample_first(0, 0);
	trace_sample_second(2, 2);
	CHECK(strstr(rd("trace"), "sample_second: a=2 b=2") != NULL);
	CHECK_EQ_STR(rd(TRIG), "enable_event:sample:sample_second:count=0\n");
	CHECK_EQ_INT(slim_ctl_write(TRIG, "disable_event:sample:sample_second"), 0);
	trace_sample_first(0, 0);
	slim_ctl_write("trace", "");
	trace_sample_second(3, 3);
	CHECK(strstr(rd("trace"), "sample_second") == NULL);
	/* The last trigger naming it gone, the event is as it was: disabled. */
	CHECK_EQ_INT(slim_ctl_write(TRIG, ""), 0);
	trace_sample_second(4, 4);
	CHECK(strstr(rd("trace"), "sample_second") == NULL);
	CHECK_EQ_STR(rd("events/sample/sample_second/enable"), "0\n");
}

/* An unconditional traceoff fires before the reserve: its event is not in trace. */
static void test_traceoff_before_record(void)
{
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable", "1"), 0);
	slim_ctl_write("trace", "");
	CHECK_EQ_INT(slim_ctl_write(TRIG, "traceoff"), 0);
	trace_sample_first(1, 11);
	CHECK_EQ_STR(rd("tracing_on"), "0\n");
	CHECK(strstr(rd("trace"), "sample_first") == NULL);
	/* One with a filter sees the record in the ring: it is kept, nothing after. */
	CHECK_EQ_INT(slim_ctl_write(TRIG, "traceoff if a == 3"), 0);
	CHECK_EQ_INT(slim_ctl_write("tracing_on", "1"), 0);
	trace_sample_first(2, 12);
	trace_sample_first(3, 13);
	trace_sample_first(4, 14);
	CHECK_EQ_STR(rd("tracing_on"), "0\n");
	CHECK(strstr(rd("trace"), "sample_first: a=2 b=12") != NULL);
	CHECK(strstr(rd("trace"), "sample_first: a=3 b=13") != NULL);
	CHECK(strstr(rd("trace"), "a=4") == NULL);
	/* The event's own filter still decides what is kept, after the trigger. */
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/filter", "b != 15"), 0);
	CHECK_EQ_INT(slim_ctl_write(TRIG, "traceoff if a == 5"), 0);
	CHECK_EQ_INT(slim_ctl_write("tracing_on", "1"), 0);
	trace_sample_first(5, 15);
	CHECK_EQ_STR(rd("tracing_on"), "0\n");
	CHECK(strstr(rd("trace"), "a=5") == NULL);
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/filter", "0"), 0);
	CHECK_EQ_INT(slim_ctl_write(TRIG, ""), 0);
	CHECK_EQ_INT(slim_ctl_write("tracing_on", "1"), 0);
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable", "0"), 0);
	slim_ctl_write("trace", "");
}

/* A trigger's filter has the thread's COMM, in the ring and aside. */
static void test_comm(void)
{
	char name[16] = "", text[64];
	int enabled;

	CHECK_EQ_INT(prctl(PR_GET_NAME, name), 0);
	for (enabled = 0; enabled < 2; enabled++) {
		CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable",
					    enabled ? "1" : "0"), 0);
		CHECK_EQ_INT(slim_ctl_write(TRIG, "traceoff if comm == \"nobody\""), 0);
		trace_sample_first(0, 0);
		CHECK_EQ_STR(rd("tracing_on"), "1\n");
		snprintf(text, sizeof(text), "traceoff if comm == \"%s\" && cpu >= 0", name);
		CHECK_EQ_INT(slim_ctl_write(TRIG, text), 0);
		trace_sample_first(0, 0);
		CHECK_EQ_STR(rd("tracing_on"), "0\n");
		/* Tracing off: the record is built aside, and has the COMM too. */
		snprintf(text, sizeof(text), "traceon if comm == \"%s\"", name);
		CHECK_EQ_INT(slim_ctl_write(TRIG, text), 0);
		trace_sample_first(0, 0);
		CHECK_EQ_STR(rd("tracing_on"), "1\n");
	}
	CHECK_EQ_INT(slim_ctl_write(TRIG, ""), 0);
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable", "0"), 0);
	slim_ctl_write("trace", "");
}

/*
 * A file with triggers but not enabled is attached soft-disabled: the
 * triggers see every firing, nothing is recorded; enable and disable
 * then only say whether it records.
 */
static void test_soft_self(void)
{
	slim_ctl_write("trace", "");
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_second/enable", "1"), 0);
	CHECK_EQ_INT(slim_ctl_write(TRIG, "snapshot:3 if a == 7"), 0);
	CHECK_EQ_STR(rd("events/sample/sample_first/enable"), "0\n");
	trace_sample_first(7, 1);
	trace_sample_first(6, 2);
	trace_sample_first(7, 3);
	trace_sample_second(1, 1);
	CHECK_EQ_STR(rd(TRIG), "snapshot:count=1 if a == 7\n");
	CHECK(strstr(rd("trace"), "sample_second: a=1 b=1") != NULL);
	CHECK(strstr(rd("trace"), "sample_first") == NULL);
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable", "1"), 0);
	trace_sample_first(8, 4);
	CHECK(strstr(rd("trace"), "sample_first: a=8 b=4") != NULL);
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable", "0"), 0);
	CHECK_EQ_STR(rd("events/sample/sample_first/enable"), "0\n");
	trace_sample_first(9, 5);
	trace_sample_first(7, 6);
	CHECK(strstr(rd("trace"), "a=9") == NULL);
	CHECK_EQ_STR(rd(TRIG), "snapshot:count=0 if a == 7\n");
	/* Enabled while it had triggers: it stays enabled when they go. */
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable", "1"), 0);
	CHECK_EQ_INT(slim_ctl_write(TRIG, ""), 0);
	CHECK_EQ_STR(rd("events/sample/sample_first/enable"), "1\n");
	trace_sample_first(10, 7);
	CHECK(strstr(rd("trace"), "sample_first: a=10 b=7") != NULL);
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable", "0"), 0);
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_second/enable", "0"), 0);
	CHECK_EQ_INT(slim_ctl_write("snapshot", "0"), 0);
	slim_ctl_write("trace", "");
}

/* With tracing off, one with a filter still sees each firing: traceon works. */
static void test_traceon_while_off(void)
{
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable", "1"), 0);
	slim_ctl_write("trace", "");
	CHECK_EQ_INT(slim_ctl_write(TRIG, "traceon:2 if a == 7"), 0);
	CHECK_EQ_INT(slim_ctl_write("tracing_on", "0"), 0);
	trace_sample_first(6, 1);
	CHECK_EQ_STR(rd("tracing_on"), "0\n");
	CHECK_EQ_STR(rd(TRIG), "traceon:count=2 if a == 7\n");
	trace_sample_first(7, 2);
	CHECK_EQ_STR(rd("tracing_on"), "1\n");
	CHECK_EQ_STR(rd(TRIG), "traceon:count=1 if a == 7\n");
	/* As the kernel's temp_buffer: the record that turned it on is not kept. */
	trace_sample_first(8, 3);
	CHECK(strstr(rd("trace"), "a=7") == NULL);
	CHECK(strstr(rd("trace"), "sample_first: a=8 b=3") != NULL);
	/* Counted only when it changes something. */
	trace_sample_first(7, 4);
	CHECK_EQ_STR(rd(TRIG), "traceon:count=1 if a == 7\n");
	CHECK_EQ_INT(slim_ctl_write(TRIG, ""), 0);
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable", "0"), 0);
	slim_ctl_write("trace", "");
}

static void test_two_instances(void)
{
	CHECK_EQ_INT(slim_ctl_mkdir("instances/a"), 0);
	CHECK_EQ_INT(slim_ctl_write("instances/a/" TRIG, "traceoff if b == 9"), 0);
	CHECK_EQ_STR(rd(TRIG), EMPTY);
	trace_sample_first(0, 9);
	CHECK_EQ_STR(rd("instances/a/tracing_on"), "0\n");
	CHECK_EQ_STR(rd("tracing_on"), "1\n");
	CHECK_EQ_INT(slim_ctl_write(TRIG, "traceoff:1"), 0);
	CHECK_EQ_INT(slim_ctl_write("instances/a/tracing_on", "1"), 0);
	trace_sample_first(0, 1);
	CHECK_EQ_STR(rd("instances/a/tracing_on"), "1\n");
	CHECK_EQ_STR(rd("tracing_on"), "0\n");
	CHECK_EQ_STR(rd("instances/a/" TRIG), "traceoff:unlimited if b == 9\n");
	CHECK_EQ_STR(rd(TRIG), "traceoff:count=0\n");
	/* Removing the instance drops its triggers, one acting on another event too. */
	CHECK_EQ_INT(slim_ctl_write("instances/a/events/sample/sample_second/trigger",
				    "disable_event:sample:sample_first"), 0);
	CHECK_EQ_INT(slim_ctl_write("instances/a/events/sample/sample_first/trigger",
				    "enable_event:sample:sample_second:2"), 0);
	trace_sample_first(0, 1);
	trace_sample_second(5, 5);
	CHECK(strstr(rd("instances/a/trace"), "sample_second: a=5 b=5") != NULL);
	CHECK_EQ_INT(slim_ctl_rmdir("instances/a"), 0);
	CHECK_EQ_INT(slim_ctl_write(TRIG, ""), 0);
	CHECK_EQ_INT(slim_ctl_write("tracing_on", "1"), 0);
}

/* ---- traceoff:5 from several threads ----------------------------------- */

#define THREADS	4

static int stop;

static void *fire(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		trace_sample_first(1, 2);
	return NULL;
}

/* Read tracing_on with the control files' lock, as a user would. */
static int tracing_on(void)
{
	return strcmp(rd("tracing_on"), "1\n") == 0;
}

/* Unconditional (before the reserve) or with a filter (at the commit). */
static void test_threads_exact(const char *text, const char *done)
{
	pthread_t th[THREADS];
	int i, offs = 0, spins;

	stop = 0;
	CHECK_EQ_INT(slim_ctl_write(TRIG, text), 0);
	for (i = 0; i < THREADS; i++)
		CHECK_EQ_INT(pthread_create(&th[i], NULL, fire, NULL), 0);
	/* Turn tracing back on each time the trigger turns it off. */
	for (spins = 0; spins < 2000000 && offs < 6; spins++) {
		if (!tracing_on()) {
			offs++;
			CHECK_EQ_INT(slim_ctl_write("tracing_on", "1"), 0);
		}
		if (offs == 5 && spins % 1000 == 999)
			break;
	}
	usleep(50000);
	offs += !tracing_on();
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ_INT(offs, 5);
	CHECK_EQ_STR(rd(TRIG), done);
	CHECK_EQ_INT(slim_ctl_write(TRIG, ""), 0);
}

/*
 * Triggers set and cleared, the event enabled and disabled, tracing
 * turned off and on, while threads fire it: a record reserved under one
 * set of flags is committed under another (for the sanitizers' runs).
 */
static void test_churn(void)
{
	static const char *const texts[] = {
		"traceon if b == 2", "traceoff:0", "traceon:0 if b == 2", "",
		"traceoff:0 if b == 3", "traceon",
	};
	pthread_t th[THREADS];
	int i, n, err = 0;

	stop = 0;
	for (i = 0; i < THREADS; i++)
		CHECK_EQ_INT(pthread_create(&th[i], NULL, fire, NULL), 0);
	for (n = 0; n < 600; n++) {
		err |= slim_ctl_write(TRIG, texts[n % 6]);
		if (n % 5 == 0)
			err |= slim_ctl_write("events/sample/sample_first/enable",
					      n % 2 ? "1" : "0");
		if (n % 7 == 0)
			err |= slim_ctl_write("tracing_on", n % 2 ? "1" : "0");
	}
	CHECK_EQ_INT(err, 0);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ_INT(slim_ctl_write(TRIG, ""), 0);
	CHECK_EQ_STR(rd(TRIG), EMPTY);
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable", "0"), 0);
	CHECK_EQ_INT(slim_ctl_write("tracing_on", "1"), 0);
	slim_ctl_write("trace", "");
}

int main(void)
{
	alarm(60);
	test_forms();
	test_refusals();
	test_traceoff_filter();
	test_soft_mode();
	test_traceoff_before_record();
	test_comm();
	test_soft_self();
	test_traceon_while_off();
	test_two_instances();
	test_threads_exact("traceoff:5", "traceoff:count=0\n");
	test_threads_exact("traceoff:5 if b == 2", "traceoff:count=0 if b == 2\n");
	test_churn();
	return check_done("triggers");
}
