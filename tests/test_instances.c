// SPDX-License-Identifier: MIT
/*
 * Instances: instances/NAME made and removed like the kernel's, each
 * with its own buffers, event files (enable, filter), tracing_on,
 * trace_clock, trace_options, error_log, trace and trace_pipe; the
 * class's reg() refcounted across instances; and instances made and
 * removed while threads fire, with the top level's counts exact.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <slimtrace/ctl.h>
#include "buffers/buffer.h"
#include "check.h"
#include "ctl_read.h"
#include "counted_class.h"
#include "sample_events.h"

static int nr_probes(const struct slim_tracepoint *tp)
{
	const struct slim_probe *p = tp->probes;
	int n = 0;

	while (p && p[n].func)
		n++;
	return n;
}

static void test_mkdir_rmdir(void)
{
	char name[300];

	CHECK_EQ_STR(rd("instances/x/set_event"), "(null)");
	CHECK_EQ_INT(errno, ENOENT);
	CHECK_EQ_INT(slim_ctl_mkdir("instances/a"), 0);
	CHECK_EQ_INT(slim_ctl_mkdir("instances/b/"), 0);
	CHECK_EQ_INT(slim_ctl_mkdir("instances/a"), -EEXIST);
	CHECK_EQ_INT(slim_ctl_mkdir("instances/"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_mkdir("instances/a/b"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_mkdir("instances/.."), -EINVAL);
	CHECK_EQ_INT(slim_ctl_mkdir("events/x"), -ENOENT);
	CHECK_EQ_INT(slim_ctl_mkdir(NULL), -EINVAL);
	memset(name, 'n', sizeof(name));
	memcpy(name, "instances/", 10);
	name[10 + 255] = '\0';
	CHECK_EQ_INT(slim_ctl_mkdir(name), 0);
	CHECK_EQ_INT(slim_ctl_rmdir(name), 0);
	name[10 + 255] = 'n';
	name[10 + 256] = '\0';
	CHECK_EQ_INT(slim_ctl_mkdir(name), -EINVAL);
	CHECK_EQ_STR(rd("instances/a/tracing_on"), "1\n");
	CHECK_EQ_INT(slim_ctl_rmdir("instances/zzz"), -ENOENT);
	CHECK_EQ_INT(slim_ctl_rmdir("instances/b"), 0);
	CHECK_EQ_INT(slim_ctl_rmdir("instances/b"), -ENOENT);
	CHECK_EQ_STR(rd("instances/b/tracing_on"), "(null)");
}

/* What a directory lists, as a FUSE server or `ls` would show it. */
static void test_listing(void)
{
	char *l = slim_ctl_list("");

	CHECK(l && strstr(l, "set_event\n") && strstr(l, "events/\n") &&
	      strstr(l, "instances/\n") && strstr(l, "record\n"));
	free(l);
	l = slim_ctl_list("instances");
	CHECK_EQ_STR(l, "a/\n");
	free(l);
	l = slim_ctl_list("instances/a");
	CHECK(l && strstr(l, "trace_pipe\n") && strstr(l, "events/\n") &&
	      !strstr(l, "instances/") && strstr(l, "record\n") &&
	      !strstr(l, "dynamic_events\n"));
	free(l);
	l = slim_ctl_list("instances/a/events");
	CHECK(l && strstr(l, "enable\n") && strstr(l, "sample/\n") &&
	      count(l, "sample/") == 1 && strstr(l, "header_page\n"));
	free(l);
	l = slim_ctl_list("events/sample");
	CHECK(l && strstr(l, "sample_first/\n") && strstr(l, "filter\n"));
	free(l);
	l = slim_ctl_list("events/sample/sample_first");
	CHECK_EQ_STR(l, "enable\nfilter\nformat\nid\ntrigger\n");
	free(l);
	CHECK(slim_ctl_list("events/nosys") == NULL && errno == ENOENT);
	CHECK(slim_ctl_list("instances/nope") == NULL && errno == ENOENT);
	CHECK(slim_ctl_list("trace") == NULL && errno == ENOENT);
}

/* An empty directory lists as "", which the caller frees like any other. */
static void test_listing_empty(void)
{
	char *l = slim_ctl_list("instances");

	CHECK_EQ_STR(l, "");
	free(l);
}

/* The files that are the same everywhere. */
static void test_shared_files(void)
{
	char *top = strdup(rd("events/sample/sample_first/format"));

	CHECK_EQ_STR(rd("instances/a/events/sample/sample_first/format"), top);
	CHECK_EQ_STR(rd("instances/a/events/sample/sample_first/id"),
		     rd("events/sample/sample_first/id"));
	CHECK_EQ_STR(rd("instances/a/available_events"), rd("available_events"));
	CHECK_EQ_STR(rd("instances/a/events/header_page"), rd("events/header_page"));
	CHECK_EQ_STR(rd("instances/a/events/header_event"), rd("events/header_event"));
	/* Its own record file (test_record records through it); the top's is not it. */
	CHECK_EQ_STR(rd("instances/a/record"), "");
	CHECK_EQ_INT(slim_ctl_write("instances/a/record", "0"), 0);
	CHECK_EQ_INT(slim_ctl_write("instances/a/dynamic_events", "u:x u32 a"), -ENOENT);
	free(top);
}

static void test_independent(void)
{
	const char *t;

	slim_ctl_write("trace", "");
	CHECK_EQ_INT(slim_ctl_write("instances/a/set_event", "sample_first"), 0);
	CHECK_EQ_STR(rd("instances/a/set_event"), "sample:sample_first\n");
	CHECK_EQ_STR(rd("set_event"), "");
	CHECK_EQ_STR(rd("events/sample/sample_first/enable"), "0\n");
	CHECK_EQ_STR(rd("instances/a/events/sample/sample_first/enable"), "1\n");
	CHECK_EQ_STR(rd("instances/a/events/sample/enable"), "X\n");
	trace_sample_first(1, 1);
	CHECK(strstr(rd("instances/a/trace"), "sample_first: a=1 b=1") != NULL);
	CHECK(strstr(rd("trace"), "sample_first") == NULL);

	/* In both, each after its own filter. */
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable", "1"), 0);
	CHECK_EQ_INT(nr_probes(&slim_event_sample_first.tp), 1);
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/filter", "a < 10"), 0);
	CHECK_EQ_INT(slim_ctl_write("instances/a/events/sample/sample_first/filter",
				    "a >= 10"), 0);
	CHECK_EQ_STR(rd("events/sample/sample_first/filter"), "a < 10\n");
	CHECK_EQ_STR(rd("instances/a/events/sample/sample_first/filter"), "a >= 10\n");
	slim_ctl_write("trace", "");
	slim_ctl_write("instances/a/trace", "");
	trace_sample_first(5, 0);
	trace_sample_first(50, 0);
	t = rd("trace");
	CHECK(strstr(t, "a=5 ") && !strstr(t, "a=50 "));
	t = rd("instances/a/trace");
	CHECK(!strstr(t, "a=5 ") && strstr(t, "a=50 "));
	/* A system filter is the instance's own too. */
	CHECK_EQ_INT(slim_ctl_write("instances/a/events/sample/filter", "b == 7"), 0);
	CHECK_EQ_STR(rd("instances/a/events/sample/filter"), "b == 7\n");
	CHECK_EQ_STR(rd("events/sample/filter"), "none\n");
	CHECK_EQ_STR(rd("events/sample/sample_first/filter"), "a < 10\n");
	CHECK_EQ_INT(slim_ctl_write("instances/a/events/sample/filter", "0"), 0);

	/* tracing_on, per instance. */
	CHECK_EQ_INT(slim_ctl_write("instances/a/tracing_on", "0"), 0);
	CHECK_EQ_STR(rd("tracing_on"), "1\n");
	slim_ctl_write("trace", "");
	trace_sample_first(6, 0);
	CHECK(strstr(rd("trace"), "a=6 ") != NULL);
	CHECK(strstr(rd("instances/a/trace"), "a=6 ") == NULL);
	CHECK_EQ_INT(slim_ctl_write("instances/a/tracing_on", "1"), 0);

	/* Disabled here only: the other instance keeps it. */
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable", "0"), 0);
	CHECK_EQ_INT(nr_probes(&slim_event_sample_first.tp), 1);
	CHECK_EQ_INT(slim_ctl_write("instances/a/set_event", ""), 0);
	/* Enabled nowhere: no probe, only the call site's test. */
	CHECK(!trace_sample_first_enabled());
	slim_ctl_write("events/sample/sample_first/filter", "0");
	slim_ctl_write("instances/a/events/sample/sample_first/filter", "0");
}

static void test_own_settings(void)
{
	CHECK_EQ_INT(slim_ctl_write("instances/a/buffer_size_kb", "64"), 0);
	CHECK_EQ_STR(rd("instances/a/buffer_size_kb"), "64\n");
	CHECK_EQ_STR(rd("buffer_size_kb"), "1024\n");
	CHECK_EQ_INT(slim_ctl_write("instances/a/trace_clock", "mono_raw"), 0);
	CHECK(strstr(rd("instances/a/trace_clock"), "[mono_raw]") != NULL);
	CHECK(strstr(rd("trace_clock"), "[mono]") != NULL);
	CHECK_EQ_INT(slim_ctl_write("instances/a/trace_options", "raw"), 0);
	CHECK_EQ_INT(strncmp(rd("instances/a/trace_options"), "raw\n", 4), 0);
	CHECK(strstr(rd("trace_options"), "noraw\n") != NULL);
	CHECK_EQ_INT(slim_ctl_write("instances/a/trace_options", "nooverwrite"), 0);
	CHECK(strstr(rd("instances/a/trace_options"), "nooverwrite") != NULL);
	CHECK(strstr(rd("trace_options"), "\noverwrite") != NULL);

	slim_ctl_write("instances/a/set_event", "sample_second");
	trace_sample_second(3, 4);
	/* raw printing and the mono_raw clock show in this instance only. */
	CHECK(strstr(rd("instances/a/trace"), " sample_second: a=3 b=4\n") != NULL);
	slim_ctl_write("instances/a/trace_options", "noraw");
	slim_ctl_write("instances/a/set_event", "");
	slim_ctl_write("instances/a/trace_clock", "mono");

	/* error_log: each instance's own. */
	slim_ctl_write("error_log", "");
	slim_ctl_write("instances/a/error_log", "");
	CHECK_EQ_INT(slim_ctl_write("instances/a/events/sample/sample_first/filter",
				    "nosuchfield == 1"), -EINVAL);
	CHECK(strstr(rd("instances/a/error_log"), "Field not found") != NULL);
	CHECK_EQ_STR(rd("error_log"), "");
	CHECK_EQ_INT(slim_ctl_write("instances/a/trace_clock", "sundial"), -EINVAL);
	CHECK(strstr(rd("instances/a/error_log"), "No such clock") != NULL);
	CHECK_EQ_STR(rd("error_log"), "");
	slim_ctl_write("instances/a/events/sample/sample_first/filter", "0");
}

/* An open trace_pipe keeps its instance: rmdir says -EBUSY. */
static void test_pipe_busy(void)
{
	struct slim_ctl_stream *st;
	char buf[256];
	long n;
	int err;

	CHECK_EQ_INT(slim_ctl_mkdir("instances/p"), 0);
	slim_ctl_write("instances/p/set_event", "sample_first");
	st = slim_ctl_open("instances/p/trace_pipe", &err);
	CHECK(st != NULL && err == 0);
	CHECK_EQ_INT(slim_ctl_rmdir("instances/p"), -EBUSY);
	/* Nothing there: the read waits its time and says 0. */
	CHECK_EQ_INT(slim_ctl_stream_read(st, buf, sizeof(buf), 20), 0);
	trace_sample_first(77, 1);
	n = slim_ctl_stream_read(st, buf, sizeof(buf) - 1, 1000);
	CHECK(n > 0);
	buf[n > 0 ? n : 0] = '\0';
	CHECK(strstr(buf, "sample_first: a=77 b=1\n") != NULL);
	/* Consumed: the instance's trace is empty now. */
	CHECK(strstr(rd("instances/p/trace"), "a=77") == NULL);
	slim_ctl_close(st);
	CHECK_EQ_INT(slim_ctl_rmdir("instances/p"), 0);
	/* A snapshot stream of another file. */
	st = slim_ctl_open("tracing_on", &err);
	CHECK(st != NULL);
	CHECK_EQ_INT(slim_ctl_stream_read(st, buf, 1, 0), 1);
	CHECK_EQ_INT(buf[0], '1');
	CHECK_EQ_INT(slim_ctl_stream_read(st, buf, sizeof(buf), 0), 1);
	CHECK_EQ_INT(slim_ctl_stream_read(st, buf, sizeof(buf), 0), 0);
	slim_ctl_close(st);
	CHECK(slim_ctl_open("instances/none/trace_pipe", &err) == NULL && err == -ENOENT);
	CHECK(slim_ctl_open("set_eventx", &err) == NULL && err == -ENOENT);
}

/* A hand-written class's reg(): once for the first instance, once for the last. */
static void test_reg_refcount(void)
{
	struct slim_event *ev = &slim_event_counted_one;

	counted_reset();
	CHECK_EQ_INT(slim_ctl_mkdir("instances/r1"), 0);
	CHECK_EQ_INT(slim_ctl_mkdir("instances/r2"), 0);
	CHECK_EQ_INT(slim_ctl_write("instances/r1/events/counted/counted_one/enable", "1"), 0);
	CHECK_EQ_INT(slim_ctl_write("instances/r2/events/counted/counted_one/enable", "1"), 0);
	CHECK_EQ_INT(slim_ctl_write("events/counted/counted_one/enable", "1"), 0);
	CHECK_EQ_INT(counted_reg_calls[SLIM_REG_REGISTER], 1);
	CHECK(ev->flags & SLIM_EVENT_FL_ENABLED);
	counted_fire(5);
	CHECK(strstr(rd("instances/r1/trace"), "counted_one: v=5") != NULL);
	CHECK(strstr(rd("instances/r2/trace"), "counted_one: v=5") != NULL);
	CHECK(strstr(rd("trace"), "counted_one: v=5") != NULL);
	CHECK_EQ_INT(slim_ctl_write("instances/r1/events/counted/counted_one/enable", "0"), 0);
	CHECK_EQ_INT(slim_ctl_write("events/counted/counted_one/enable", "0"), 0);
	CHECK_EQ_INT(counted_reg_calls[SLIM_REG_UNREGISTER], 0);
	/* Removing the last instance that has it enabled unregisters. */
	CHECK_EQ_INT(slim_ctl_rmdir("instances/r2"), 0);
	CHECK_EQ_INT(counted_reg_calls[SLIM_REG_UNREGISTER], 1);
	CHECK(!(ev->flags & SLIM_EVENT_FL_ENABLED));
	CHECK_EQ_INT(slim_ctl_rmdir("instances/r1"), 0);
	CHECK_EQ_INT(counted_reg_calls[SLIM_REG_REGISTER], 1);
	/* A refusing reg(): nothing enabled, nothing left attached. */
	counted_refuse = -EPERM;
	CHECK_EQ_INT(slim_ctl_write("events/counted/counted_one/enable", "1"), -EPERM);
	CHECK_EQ_STR(rd("events/counted/counted_one/enable"), "0\n");
	CHECK(ev->targets == NULL);
	counted_refuse = 0;
}

/* Bad input in one instance loses nothing recorded anywhere. */
static void test_nothing_lost(void)
{
	struct slim_rb_stats st;

	slim_ctl_write("trace", "");
	slim_ctl_write("set_event", "sample_first");
	trace_sample_first(1, 2);
	slim_ctl_mkdir("instances/q");
	slim_ctl_mkdir("instances/q");
	slim_ctl_rmdir("instances/nope");
	slim_ctl_write("instances/q/events/sample/sample_first/filter", "a ==");
	slim_ctl_write("instances/q/set_event", "nosuch");
	slim_ctl_write("instances/q/buffer_size_kb", "1");
	slim_ctl_rmdir("instances/q");
	slim_bufset_stats(&slim_bufset_top, &st);
	CHECK_EQ_INT(st.entries, 1);
	CHECK_EQ_INT(st.lost, 0);
	CHECK(strstr(rd("trace"), "a=1 b=2") != NULL);
	slim_ctl_write("set_event", "");
}

/* ---- instances made and removed while threads fire ------------------- */

#define FIRERS	3
static int stop;
static long fired[FIRERS];

static void *firer(void *arg)
{
	long i = 0, *n = arg;

	/* At least one, however late the thread starts. */
	do {
		trace_sample_second((int)(i % 100), i);
		i++;
	} while (!__atomic_load_n(&stop, __ATOMIC_RELAXED));
	*n = i;
	return NULL;
}

static void *churner(void *arg)
{
	char path[64];
	int i;

	(void)arg;
	for (i = 0; i < 150; i++) {
		snprintf(path, sizeof(path), "instances/c%d", i % 4);
		slim_ctl_mkdir(path);
		snprintf(path, sizeof(path), "instances/c%d/events/sample/sample_second/enable",
			 i % 4);
		slim_ctl_write(path, "1");
		snprintf(path, sizeof(path), "instances/c%d/events/sample/sample_second/filter",
			 i % 4);
		slim_ctl_write(path, i & 1 ? "a < 50" : "b > 3");
		if (i % 3 == 0) {
			snprintf(path, sizeof(path), "instances/c%d/trace", (i + 1) % 4);
			free(slim_ctl_read(path));
		}
		snprintf(path, sizeof(path), "instances/c%d", (i + 2) % 4);
		slim_ctl_rmdir(path);
	}
	return NULL;
}

static void test_churn(void)
{
	struct slim_rb_stats st, before;
	pthread_t t[FIRERS], c;
	long total = 0;
	int i;

	slim_ctl_write("trace", "");
	slim_bufset_stats(&slim_bufset_top, &before);
	CHECK_EQ_INT(slim_ctl_write("buffer_size_kb", "16384"), 0);
	slim_ctl_write("set_event", "sample_second");
	for (i = 0; i < FIRERS; i++)
		pthread_create(&t[i], NULL, firer, &fired[i]);
	pthread_create(&c, NULL, churner, NULL);
	pthread_join(c, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < FIRERS; i++) {
		pthread_join(t[i], NULL);
		total += fired[i];
	}
	for (i = 0; i < 4; i++) {
		char path[32];

		snprintf(path, sizeof(path), "instances/c%d", i);
		slim_ctl_rmdir(path);
	}
	slim_ctl_write("set_event", "");
	slim_bufset_stats(&slim_bufset_top, &st);
	/* The top level saw every event, whatever came and went beside it. */
	CHECK_EQ_INT(st.written + st.dropped - before.written - before.dropped, total);
	CHECK(total > 0);
	CHECK_EQ_STR(rd("instances"), "(null)");
	CHECK(slim_event_sample_second.targets == NULL);
	slim_ctl_write("buffer_size_kb", "1024");
}

int main(void)
{
	check_watchdog("instances", 300);
	test_listing_empty();
	test_mkdir_rmdir();
	test_listing();
	test_shared_files();
	test_independent();
	test_own_settings();
	test_pipe_busy();
	test_reg_refcount();
	test_nothing_lost();
	CHECK_EQ_INT(slim_ctl_rmdir("instances/a"), 0);
	test_churn();
	return check_done("instances");
}
