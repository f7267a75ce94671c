// SPDX-License-Identifier: MIT
/*
 * Filters on recording events: set through the filter files, run on the
 * record before commit, safe to replace while threads fire (ASan and TSan
 * builds), and a filtered-out event is neither shown nor counted lost.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <slimtrace/ctl.h>
#include "check.h"
#include "records.h"
#include "session/instance.h"
#include "sample_events.h"

static int stop;

/* The top level's event file runs a filter for ev. */
static int filtered(struct slim_event *ev)
{
	struct slim_event_file *f = slim_event_file(&slim_instance_top, ev, 0);

	return f && (f->target.flags & SLIM_TARGET_FL_FILTERED);
}

static void *firer(void *arg)
{
	long i = 0;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		trace_sample_first((int)(i % 200), i);
		trace_sample_second((int)(i % 200), i);
		i++;
	}
	return NULL;
}

static void test_semantics(void)
{
	struct slim_rb_stats before, after;
	char *t;
	int i;

	slim_ctl_write("trace", "");
	slim_ctl_write("set_event", "sample_first sample_second");
	CHECK(!filtered(&slim_event_sample_first));
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/filter", "a >= 5 && b != 7"), 0);
	CHECK(filtered(&slim_event_sample_first));
	t = slim_ctl_read("events/sample/sample_first/filter");
	CHECK_EQ_STR(t, "a >= 5 && b != 7\n");
	free(t);
	slim_bufset_stats(&slim_bufset_top, &before);
	for (i = 0; i < 10; i++)
		trace_sample_first(i, i);
	slim_bufset_stats(&slim_bufset_top, &after);
	/* 5..9 pass, minus b == 7: four recorded, none lost. */
	CHECK_EQ_INT(after.written - before.written, 4);
	CHECK_EQ_INT(after.lost, before.lost);
	t = slim_ctl_read("trace");
	CHECK(t && !strstr(t, "a=4 ") && strstr(t, "a=5 b=5") && !strstr(t, "a=7 "));
	free(t);

	/* A refused expression leaves the previous filter in place. */
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/filter", "a >= "), -EINVAL);
	CHECK(filtered(&slim_event_sample_first));
	trace_sample_first(1, 1);
	trace_sample_first(6, 6);
	t = slim_ctl_read("trace");
	CHECK(t && !strstr(t, "a=1 b=1") && strstr(t, "a=6 b=6"));
	free(t);
	/* ...and the file shows the kernel's parse error form. */
	t = slim_ctl_read("events/sample/sample_first/filter");
	CHECK(t && strncmp(t, "a >=\n", 5) == 0 && strstr(t, "^\nparse_error: "));
	free(t);
	t = slim_ctl_read("error_log");
	CHECK(t && strstr(t, "event filter parse error: error: "));
	free(t);
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/filter", "nosuchfield == 1"), -EINVAL);
	t = slim_ctl_read("error_log");
	CHECK(t && strstr(t, "error: Field not found\n  Command: nosuchfield == 1\n"));
	free(t);

	/* "0" clears: the event pays nothing for filters again. */
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/filter", "0"), 0);
	CHECK(!filtered(&slim_event_sample_first));
	t = slim_ctl_read("events/sample/sample_first/filter");
	CHECK_EQ_STR(t, "none\n");
	free(t);

	/* A system filter goes to every event of the system that takes it. */
	CHECK_EQ_INT(slim_ctl_write("events/sample/filter", "b > 100"), 0);
	CHECK(filtered(&slim_event_sample_first));
	CHECK(filtered(&slim_event_sample_all));
	t = slim_ctl_read("events/sample/filter");
	CHECK_EQ_STR(t, "b > 100\n");
	free(t);
	/* Only sample_all has 'state': the others are left alone. */
	CHECK_EQ_INT(slim_ctl_write("events/sample/filter", "state == 1"), 0);
	t = slim_ctl_read("events/sample/sample_first/filter");
	CHECK_EQ_STR(t, "b > 100\n");
	free(t);
	t = slim_ctl_read("events/sample/sample_all/filter");
	CHECK_EQ_STR(t, "state == 1\n");
	free(t);
	/* No event takes it: refused, nothing changed. */
	CHECK_EQ_INT(slim_ctl_write("events/sample/filter", "ghost == 1"), -EINVAL);
	t = slim_ctl_read("events/sample/sample_all/filter");
	CHECK_EQ_STR(t, "state == 1\n");
	free(t);
	CHECK_EQ_INT(slim_ctl_write("events/sample/filter", "0"), 0);
	CHECK(!filtered(&slim_event_sample_all));
	CHECK(!filtered(&slim_event_sample_first));
}

static void test_swap_while_firing(void)
{
	static const char *const filters[] = {
		"a > 5", "0", "b == 3 || a < 10", "a >= 100", "0", "COMM ~ \"test_*\"",
	};
	pthread_t th[2];
	char *t, *p;
	int i, bad = 0, refused = 0;

	slim_ctl_write("trace", "");
	slim_ctl_write("set_event", "sample_first sample_second");
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, firer, NULL);
	for (i = 0; i < 3000; i++) {
		refused += slim_ctl_write("events/sample/sample_first/filter",
					  filters[i % 6]) != 0;
		if (i % 7 == 0)
			refused += slim_ctl_write("events/sample/filter",
						  i % 2 ? "a < 50" : "0") != 0;
	}
	/* Settle on one filter, clear the records, and check what passes. */
	slim_ctl_write("events/sample/filter", "0");
	slim_ctl_write("events/sample/sample_first/filter", "a >= 150");
	slim_ctl_write("trace", "");
	usleep(20000);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ_INT(refused, 0);
	t = slim_ctl_read("trace");
	for (p = t; p && (p = strstr(p, "sample_first: a=")); p++) {
		if (atoi(p + 16) < 150)
			bad++;
	}
	CHECK(t && strstr(t, "sample_first: a=1"));
	CHECK(t && strstr(t, "sample_second: a=1"));
	CHECK_EQ_INT(bad, 0);
	free(t);
	slim_ctl_write("events/sample/sample_first/filter", "0");
	slim_ctl_write("set_event", "");
}

int main(void)
{
	test_semantics();
	test_swap_while_firing();
	return check_done("filter_swap");
}
