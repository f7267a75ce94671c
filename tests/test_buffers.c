// SPDX-License-Identifier: MIT
/*
 * Per-thread buffers seen from the control files: records outlive their
 * thread, buffers are reused, and every fired event is either recorded
 * or counted lost, exactly, in both modes and with a concurrent reader.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <slimtrace/ctl.h>
#include "check.h"
#include "records.h"
#include "sample_events.h"

static int fire_n;
static int stop_reader;
static long consumed_lines;

static void *fire(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < fire_n; i++)
		trace_sample_first(i, (long)gettid());
	return NULL;
}

static void run_threads(int nr, int n)
{
	pthread_t th[4];
	int i;

	fire_n = n;
	for (i = 0; i < nr; i++)
		pthread_create(&th[i], NULL, fire, NULL);
	for (i = 0; i < nr; i++)
		pthread_join(th[i], NULL);
}

static void stats(struct slim_rb_stats *st)
{
	slim_bufset_stats(&slim_bufset_top, st);
}

static void test_exited_thread(void)
{
	char *t;
	int buffers;

	slim_ctl_write("trace", "");
	slim_ctl_write("set_event", "sample_first");
	run_threads(1, 3);
	buffers = slim_bufset_count(&slim_bufset_top);
	t = slim_ctl_read("trace");
	/* The thread is gone; what it recorded is not. */
	CHECK(t && strstr(t, "sample_first: a=0 ") && strstr(t, "sample_first: a=2 "));
	free(t);
	/* The next thread continues in the buffer the first one handed back. */
	run_threads(1, 1);
	CHECK_EQ_INT(slim_bufset_count(&slim_bufset_top), buffers);
	t = slim_ctl_read("trace");
	CHECK(t && strstr(t, "sample_first: a=2 "));
	free(t);
}

static void test_exact_accounting(const char *mode)
{
	struct slim_rb_stats before, after;
	long fired = 4 * 20000;

	slim_ctl_write("trace_options", mode);
	slim_ctl_write("buffer_size_kb", "8");	/* two pages: most events lost */
	slim_ctl_write("trace", "");
	stats(&before);
	run_threads(4, 20000);
	stats(&after);
	/* Recorded + lost == fired, exactly. */
	CHECK_EQ_INT((after.written - before.written) + (after.dropped - before.dropped), fired);
	CHECK(after.lost > before.lost);
	if (strcmp(mode, "overwrite") == 0) {
		CHECK_EQ_INT(after.dropped, before.dropped);
		CHECK(after.entries > 0);
	} else {
		CHECK_EQ_INT(after.overwritten, before.overwritten);
	}
	CHECK_EQ_INT(after.entries + (after.overwritten - before.overwritten) +
		     (after.consumed - before.consumed),
		     after.written - before.written + (before.entries));
}

static void *reader(void *arg)
{
	char *t, *p;

	(void)arg;
	while (!__atomic_load_n(&stop_reader, __ATOMIC_ACQUIRE)) {
		t = slim_ctl_read("trace_pipe");
		for (p = t; p && (p = strstr(p, "sample_first:")); p++)
			consumed_lines++;
		free(t);
	}
	return NULL;
}

static void test_concurrent_reader(void)
{
	struct slim_rb_stats before, after;
	pthread_t rd;
	char *t, *p;

	slim_ctl_write("trace_options", "nooverwrite");
	slim_ctl_write("buffer_size_kb", "16");
	slim_ctl_write("trace", "");
	stats(&before);
	pthread_create(&rd, NULL, reader, NULL);
	run_threads(2, 30000);
	__atomic_store_n(&stop_reader, 1, __ATOMIC_RELEASE);
	pthread_join(rd, NULL);
	t = slim_ctl_read("trace_pipe");
	for (p = t; p && (p = strstr(p, "sample_first:")); p++)
		consumed_lines++;
	free(t);
	stats(&after);
	/* Every event was read out or counted lost, none twice. */
	CHECK_EQ_INT(consumed_lines + (after.dropped - before.dropped), 60000);
	CHECK_EQ_INT(after.entries, 0);
	slim_ctl_write("trace_options", "overwrite");
}

static void test_resize_keeps_records(void)
{
	char *t;

	slim_ctl_write("buffer_size_kb", "64");
	slim_ctl_write("trace", "");
	trace_sample_first(111, 1);
	CHECK_EQ_INT(slim_ctl_write("buffer_size_kb", "128"), 0);
	trace_sample_first(222, 2);
	t = slim_ctl_read("trace");
	CHECK(t && strstr(t, "a=111 b=1") && strstr(t, "a=222 b=2"));
	CHECK(t && strstr(t, "a=111") < strstr(t, "a=222"));
	free(t);
}

/*
 * A replaced ring gives its memory back once read or cleared: 100 resizes
 * with records in the buffers neither keep 100 rings nor add 100 buffers,
 * and every event stays counted.
 */
static void test_resize_frees_old_rings(void)
{
	struct slim_rb_stats before, after;
	int i, buffers;
	char *t;

	slim_ctl_write("trace", "");
	slim_ctl_write("buffer_size_kb", "1024");
	stats(&before);
	trace_sample_first(1, 1);
	buffers = slim_bufset_count(&slim_bufset_top);
	for (i = 0; i < 100; i++) {
		trace_sample_first(i, 2);
		CHECK_EQ_INT(slim_ctl_write("buffer_size_kb", i & 1 ? "1024" : "1028"), 0);
		/* Reading trace_pipe empties the old ring: it goes. */
		if (i % 10 == 9)
			free(slim_ctl_read("trace_pipe"));
	}
	trace_sample_first(100, 2);
	t = slim_ctl_read("trace");
	if (!CHECK(t && strstr(t, "a=100 b=2")))
		fprintf(stderr, "%s\n", t ? t : "(null)");
	free(t);
	slim_ctl_write("trace", "");
	/* At most the ten rings replaced between two reads were kept at once. */
	if (!CHECK(slim_bufset_count(&slim_bufset_top) <= buffers + 10))
		fprintf(stderr, "     %d buffers, %d before\n",
			slim_bufset_count(&slim_bufset_top), buffers);
	stats(&after);
	/* The live rings' pages: one 1 MiB ring per buffer, not 100 more. */
	CHECK(after.pages <= (uint64_t)buffers * 257);
	CHECK_EQ_INT(after.written - before.written, 102);
	CHECK_EQ_INT(after.entries, 0);
	CHECK_EQ_INT(after.lost - before.lost, 0);
}

/*
 * A resize refused for want of memory changes nothing: the size read
 * back stays, and a thread that starts after it still gets a buffer of
 * that size (before, it was given the refused size, failed, and its
 * events were lost).  In a child with an address-space limit; the
 * sanitizers' shadow memory cannot live under one, so only plain builds.
 */
static int refused_resize_child(void)
{
	struct rlimit rl = { 512ul << 20, 512ul << 20 };
	struct slim_rb_stats before, after;
	int bad = 0;
	char *t;

	slim_ctl_write("buffer_size_kb", "64");
	stats(&before);
	if (setrlimit(RLIMIT_AS, &rl))
		return 2;
	bad |= slim_ctl_write("buffer_size_kb", "4194304") != -ENOMEM;
	t = slim_ctl_read("buffer_size_kb");
	bad |= !t || strcmp(t, "64\n") != 0;
	free(t);
	run_threads(4, 200);
	stats(&after);
	bad |= after.written - before.written != 800;
	bad |= after.lost != before.lost;
	bad |= slim_bufset_lost_nobuf(&slim_bufset_top) != 0;
	return bad;
}

static void test_refused_resize(void)
{
	const char *build = getenv("SLIM_TEST_BUILD");
	pid_t pid;
	int st = -1;

	if (build && strcmp(build, "plain") && strcmp(build, "clang")) {
		printf("test_refused_resize: not in the %s build (RLIMIT_AS)\n", build);
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(refused_resize_child());
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	if (!CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		fprintf(stderr, "     refused resize: child status %#x\n", st);
}

static void test_counter_clock(void)
{
	char *t;

	CHECK_EQ_INT(slim_ctl_write("trace_clock", "tsc"), 0);
	trace_sample_first(5, 5);
	t = slim_ctl_read("trace");
	/* A counter clock prints its count: no seconds.micros. */
	CHECK(t && strstr(t, "..... "));
	CHECK(t && strstr(t, "sample_first: a=5 b=5"));
	if (t) {
		char *line = strstr(t, "sample_first: a=5");
		char *colon = line - 2;

		while (colon > t && *colon != ' ')
			colon--;
		CHECK(!memchr(colon, '.', line - colon));
	}
	free(t);
	/* On to a clock read in ns: stamps follow it at once. */
	CHECK_EQ_INT(slim_ctl_write("trace_clock", "mono_raw"), 0);
	trace_sample_first(6, 6);
	t = slim_ctl_read("trace");
	if (CHECK(t && strstr(t, "sample_first: a=6 b=6"))) {
		struct timespec now;
		char *line = strstr(t, "sample_first: a=6");
		char *p = line - 2;

		while (p > t && *p != ' ')
			p--;
		clock_gettime(CLOCK_MONOTONIC_RAW, &now);
		CHECK(fabs(strtod(p, NULL) - (now.tv_sec + now.tv_nsec / 1e9)) < 10.0);
	}
	free(t);
	slim_ctl_write("trace_clock", "mono");
}

int main(void)
{
	test_exited_thread();
	test_exact_accounting("overwrite");
	test_exact_accounting("nooverwrite");
	test_concurrent_reader();
	test_resize_keeps_records();
	test_resize_frees_old_rings();
	test_refused_resize();
	test_counter_clock();
	return check_done("buffers");
}
