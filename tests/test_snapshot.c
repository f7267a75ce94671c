// SPDX-License-Identifier: MIT
/*
 * The snapshot file (1 takes, 0 frees, 2 clears, its help text when
 * empty), snapshots taken while four threads record with every event
 * accounted for, the snapshot trigger with an exact count from several
 * threads, in an instance and at the top level.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <slimtrace/ctl.h>
#include "buffers/buffer.h"
#include "check.h"
#include "ctl_read.h"
#include "sample_events.h"
#include "session/instance.h"

#define THREADS		4
#define PER_THREAD	20000
#define TRIG		"events/sample/sample_second/trigger"

/* The kernel's fixed lines; the command lines after them are ours. */
#define FREED		"# tracer: nop\n#\n#\n# * Snapshot is freed *\n#\n# Snapshot commands:\n"
#define ALLOCATED	"# tracer: nop\n#\n#\n# * Snapshot is allocated *\n#\n# Snapshot commands:\n"

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void test_file(void)
{
	CHECK(starts(rd("snapshot"), FREED));
	CHECK(strstr(rd("snapshot"), "# echo 0 > snapshot : ") != NULL);
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable", "1"), 0);
	CHECK_EQ_INT(slim_ctl_write("trace", ""), 0);
	trace_sample_first(1, 10);
	trace_sample_first(2, 20);
	/* 1: allocate and swap; what was live is the snapshot now. */
	CHECK_EQ_INT(slim_ctl_write("snapshot", "1\n"), 0);
	CHECK(strstr(rd("snapshot"), "sample_first: a=1 b=10\n") != NULL);
	CHECK(strstr(rd("snapshot"), "sample_first: a=2 b=20\n") != NULL);
	CHECK(strstr(rd("snapshot"), "# entries-in-buffer/entries-written: 2/2   #P:") != NULL);
	CHECK(strstr(rd("trace"), "sample_first") == NULL);
	trace_sample_first(3, 30);
	CHECK(strstr(rd("trace"), "sample_first: a=3 b=30\n") != NULL);
	CHECK(strstr(rd("snapshot"), "a=3") == NULL);
	/* The snapshot prints as trace does: same header, same lines. */
	{
		char *snap = strdup(rd("snapshot"));

		CHECK_EQ_INT(slim_ctl_write("snapshot", "1"), 0);
		CHECK(strstr(rd("snapshot"), "sample_first: a=3 b=30\n") != NULL);
		CHECK(strstr(rd("snapshot"), "a=1 b=10") == NULL);
		/* The spare came back cleared. */
		CHECK(strstr(rd("trace"), "sample_first") == NULL);
		CHECK(strstr(snap, "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n") != NULL);
		free(snap);
	}
	/* 2 (any number but 0 and 1): cleared, still allocated. */
	CHECK_EQ_INT(slim_ctl_write("snapshot", "2"), 0);
	CHECK(starts(rd("snapshot"), ALLOCATED));
	CHECK_EQ_INT(slim_ctl_write("snapshot", "7"), 0);
	CHECK(starts(rd("snapshot"), ALLOCATED));
	CHECK_EQ_INT(slim_ctl_write("snapshot", "x"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_write("snapshot", "-1"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_write("snapshot", ""), -EINVAL);
	CHECK(starts(rd("snapshot"), ALLOCATED));
	/* 0: freed. */
	CHECK_EQ_INT(slim_ctl_write("snapshot", "0"), 0);
	CHECK(starts(rd("snapshot"), FREED));
	CHECK_EQ_INT(slim_ctl_write("snapshot", "2"), 0);
	CHECK(starts(rd("snapshot"), FREED));
	/* The spare follows buffer_size_kb; a resize drops the snapshot's records. */
	CHECK_EQ_INT(slim_ctl_write("snapshot", "1"), 0);
	CHECK_EQ_INT(slim_ctl_write("buffer_size_kb", "64"), 0);
	CHECK(starts(rd("snapshot"), ALLOCATED));
	trace_sample_first(4, 40);
	CHECK_EQ_INT(slim_ctl_write("snapshot", "1"), 0);
	CHECK(strstr(rd("snapshot"), "sample_first: a=4 b=40\n") != NULL);
	CHECK_EQ_INT(slim_ctl_write("snapshot", "0"), 0);
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable", "0"), 0);
	CHECK_EQ_INT(slim_ctl_write("trace", ""), 0);
}

/* ---- snapshots while threads record ------------------------------------ */

static int go, stop;

static void *record(void *arg)
{
	long id = (long)arg, i;

	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		;
	for (i = 0; i < PER_THREAD; i++)
		trace_sample_first((int)id, i);
	return NULL;
}

/* Per thread: the highest b in the snapshot must be below the lowest live one. */
static void order_check(const char *snap, const char *live)
{
	long hi[THREADS], lo[THREADS];
	const char *p;
	int a, i, bad = 0;
	long b;

	for (i = 0; i < THREADS; i++) {
		hi[i] = -1;
		lo[i] = PER_THREAD;
	}
	for (p = snap; (p = strstr(p, "sample_first: a=")); p++)
		if (sscanf(p, "sample_first: a=%d b=%ld", &a, &b) == 2 && a >= 0 && a < THREADS &&
		    b > hi[a])
			hi[a] = b;
	for (p = live; (p = strstr(p, "sample_first: a=")); p++)
		if (sscanf(p, "sample_first: a=%d b=%ld", &a, &b) == 2 && a >= 0 && a < THREADS &&
		    b < lo[a])
			lo[a] = b;
	for (i = 0; i < THREADS; i++)
		bad += hi[i] >= lo[i];
	CHECK_EQ_INT(bad, 0);
}

static void test_threads(const char *dir, struct slim_bufset *bs)
{
	char path[128];
	pthread_t th[THREADS];
	struct slim_rb_stats live, snap;
	uint64_t accounted;
	char *snap_text;
	int i, swaps = 0;

	snprintf(path, sizeof(path), "%sbuffer_size_kb", dir);
	CHECK_EQ_INT(slim_ctl_write(path, "16"), 0);
	snprintf(path, sizeof(path), "%sevents/sample/sample_first/enable", dir);
	CHECK_EQ_INT(slim_ctl_write(path, "1"), 0);
	snprintf(path, sizeof(path), "%ssnapshot", dir);
	CHECK_EQ_INT(slim_ctl_write(path, "1"), 0);	/* allocate (swaps an empty buffer) */
	go = 0;
	for (i = 0; i < THREADS; i++)
		CHECK_EQ_INT(pthread_create(&th[i], NULL, record, (void *)(long)i), 0);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 50; i++) {
		CHECK_EQ_INT(slim_ctl_write(path, "1"), 0);
		swaps++;
		usleep(200);
	}
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	slim_bufset_stats(bs, &live);
	slim_bufset_snap_stats(bs, &snap);
	/*
	 * Every event fired is in the snapshot, in the live buffer, lost
	 * (overwritten or dropped, counted), or was cleared by a later swap
	 * (counted as consumed); the rings' counts survive every swap.
	 */
	accounted = live.entries + live.lost + live.consumed +
		    snap.entries + snap.lost + snap.consumed;
	CHECK_EQ_INT((long long)accounted, (long long)THREADS * PER_THREAD);
	snap_text = strdup(rd(path));
	CHECK_EQ_INT(count(snap_text, "sample_first: "), (int)snap.entries);
	snprintf(path, sizeof(path), "%strace", dir);
	CHECK_EQ_INT(count(rd(path), "sample_first: "), (int)live.entries);
	order_check(snap_text, rd(path));
	free(snap_text);
	snprintf(path, sizeof(path), "%sevents/sample/sample_first/enable", dir);
	CHECK_EQ_INT(slim_ctl_write(path, "0"), 0);
	snprintf(path, sizeof(path), "%ssnapshot", dir);
	CHECK_EQ_INT(slim_ctl_write(path, "0"), 0);
	CHECK(starts(rd(path), FREED));
	snprintf(path, sizeof(path), "%strace", dir);
	CHECK_EQ_INT(slim_ctl_write(path, ""), 0);
	CHECK(swaps == 50);
}

/* ---- the snapshot trigger ---------------------------------------------- */

static void test_trigger_forms(void)
{
	CHECK_EQ_STR(rd(TRIG), "# Available triggers:\n"
			       "# traceon traceoff snapshot stacktrace enable_event disable_event\n");
	CHECK_EQ_INT(slim_ctl_write(TRIG, "snapshot"), 0);
	CHECK_EQ_STR(rd(TRIG), "snapshot:unlimited\n");
	/* Set, the trigger has allocated the spare, as the kernel's does. */
	CHECK(starts(rd("snapshot"), ALLOCATED));
	CHECK_EQ_INT(slim_ctl_append(TRIG, "snapshot:2"), -EEXIST);
	CHECK_EQ_INT(slim_ctl_append(TRIG, "traceon:3 if a == 1"), 0);
	CHECK_EQ_STR(rd(TRIG), "traceon:count=3 if a == 1\nsnapshot:unlimited\n");
	CHECK_EQ_INT(slim_ctl_append(TRIG, "!snapshot"), 0);
	CHECK_EQ_STR(rd(TRIG), "traceon:count=3 if a == 1\n");
	CHECK_EQ_INT(slim_ctl_append(TRIG, "!traceon"), 0);
	CHECK_EQ_INT(slim_ctl_write(TRIG, "snapshot:2 if b > 5"), 0);
	CHECK_EQ_STR(rd(TRIG), "snapshot:count=2 if b > 5\n");
	CHECK_EQ_INT(slim_ctl_append(TRIG, "snapshot:x"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_append(TRIG, "snapshot:1:2"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_append(TRIG, "!snapshot"), 0);
	CHECK_EQ_STR(rd(TRIG), "# Available triggers:\n"
			       "# traceon traceoff snapshot stacktrace enable_event disable_event\n");
	CHECK_EQ_INT(slim_ctl_write("snapshot", "0"), 0);
}

static void *fire(void *arg)
{
	long id = (long)arg;

	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		trace_sample_second((int)id, 1);
	return NULL;
}

/*
 * snapshot:3 fired from four threads at once takes exactly three.
 * Without a filter it fires before its event is reserved, as the
 * kernel's: the last one may find nothing new to take.  With a filter
 * it fires on the record in the ring, which the swap takes along: the
 * snapshot has at least that event.
 */
static void test_trigger_threads(const char *dir, struct slim_bufset *bs, const char *text)
{
	char trig[128], path[128], done[64];
	pthread_t th[THREADS];
	uint64_t before;
	int i, spins;

	snprintf(trig, sizeof(trig), "%s" TRIG, dir);
	snprintf(path, sizeof(path), "%sevents/sample/sample_second/enable", dir);
	CHECK_EQ_INT(slim_ctl_write(path, "1"), 0);
	CHECK_EQ_INT(slim_ctl_write(trig, text), 0);
	snprintf(done, sizeof(done), "snapshot:count=0%s\n", text + strlen("snapshot:3"));
	before = __atomic_load_n(&bs->snapshots, __ATOMIC_RELAXED);
	go = stop = 0;
	for (i = 0; i < THREADS; i++)
		CHECK_EQ_INT(pthread_create(&th[i], NULL, fire, (void *)(long)i), 0);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	for (spins = 0; spins < 2000 && strcmp(rd(trig), done); spins++)
		usleep(1000);
	usleep(20000);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	CHECK_EQ_STR(rd(trig), done);
	CHECK_EQ_INT((int)(__atomic_load_n(&bs->snapshots, __ATOMIC_RELAXED) - before), 3);
	snprintf(path, sizeof(path), "%ssnapshot", dir);
	if (strchr(text, ' '))
		CHECK(strstr(rd(path), "sample_second: a=") != NULL);
	CHECK_EQ_INT(slim_ctl_write(trig, "!snapshot"), 0);
	CHECK_EQ_INT(slim_ctl_write(path, "0"), 0);
	snprintf(path, sizeof(path), "%sevents/sample/sample_second/enable", dir);
	CHECK_EQ_INT(slim_ctl_write(path, "0"), 0);
	snprintf(path, sizeof(path), "%strace", dir);
	CHECK_EQ_INT(slim_ctl_write(path, ""), 0);
}

int main(void)
{
	check_watchdog("snapshot", 120);
	test_file();
	test_threads("", &slim_bufset_top);
	test_trigger_forms();
	test_trigger_threads("", &slim_bufset_top, "snapshot:3");
	test_trigger_threads("", &slim_bufset_top, "snapshot:3 if b == 1");
	CHECK_EQ_INT(slim_ctl_mkdir("instances/s"), 0);
	CHECK(starts(rd("instances/s/snapshot"), FREED));
	test_threads("instances/s/", slim_instance_find("s")->bufs);
	test_trigger_threads("instances/s/", slim_instance_find("s")->bufs, "snapshot:3");
	test_trigger_threads("instances/s/", slim_instance_find("s")->bufs,
			     "snapshot:3 if b == 1");
	CHECK_EQ_INT(slim_ctl_rmdir("instances/s"), 0);
	return check_done("snapshot");
}
