// SPDX-License-Identifier: MIT
/*
 * The second consumer path (<slimtrace/consumer.h>): callbacks that take
 * an event's records with no buffer in between.  Counting events per
 * thread, a metrics callback that sums a field, a consumer and two
 * instances taking the same event at once with exact counts, consumer
 * filters, bad input, hand-written classes (their own reg(), their own
 * perf_probe), and attach/detach while threads fire.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <slimtrace/consumer.h>
#include <slimtrace/ctl.h>
#include "buffers/buffer.h"
#include "check.h"
#include "counted_class.h"
#include "kprobe_class.h"
#include "sample_events.h"
#include "session/instance.h"

static char *rd(const char *path)
{
	static char *last;

	free(last);
	last = slim_ctl_read(path);
	return last ? last : "(null)";
}

/* ---- per-thread counts ------------------------------------------------- */

#define THREADS	4
#define PER_THREAD 20000

struct per_thread {
	int32_t tid[THREADS];
	long n[THREADS];
	pthread_mutex_t lock;
};

static void count_by_thread(const struct slim_event *ev, const void *rec,
			    unsigned int len, uint64_t ts, void *data)
{
	const struct slim_trace_entry *e = rec;
	struct per_thread *pt = data;
	int i;

	(void)ev, (void)len, (void)ts;
	pthread_mutex_lock(&pt->lock);
	for (i = 0; i < THREADS && pt->tid[i] && pt->tid[i] != e->pid; i++)
		;
	if (i < THREADS) {
		pt->tid[i] = e->pid;
		pt->n[i]++;
	}
	pthread_mutex_unlock(&pt->lock);
}

static void *fire_first(void *arg)
{
	long i, n = (long)arg;

	for (i = 0; i < n; i++)
		trace_sample_first((int)(i % 100), i);
	return NULL;
}

static void test_per_thread(void)
{
	struct per_thread pt = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct slim_consumer_stats st;
	pthread_t t[THREADS];
	int i;

	CHECK_EQ_INT(slim_consumer_attach(&slim_event_sample_first, count_by_thread,
					  &pt, NULL), 0);
	CHECK(slim_event_sample_first.flags & SLIM_EVENT_FL_CONSUMER);
	/* Consumed, not recorded: the event is enabled in no instance. */
	CHECK_EQ_STR(rd("events/sample/sample_first/enable"), "0\n");
	for (i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, fire_first, (void *)(long)PER_THREAD);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < THREADS; i++) {
		CHECK(pt.tid[i] != 0);
		CHECK_EQ_INT(pt.n[i], PER_THREAD);
	}
	CHECK_EQ_INT(slim_consumer_stats(&slim_event_sample_first, count_by_thread, &pt, &st), 0);
	CHECK_EQ_INT(st.hits, THREADS * PER_THREAD);
	CHECK_EQ_INT(st.passed, THREADS * PER_THREAD);
	CHECK_EQ_INT(st.lost, 0);
	CHECK_EQ_INT(slim_consumer_detach(&slim_event_sample_first, count_by_thread, &pt), 0);
	CHECK(!(slim_event_sample_first.flags & SLIM_EVENT_FL_CONSUMER));
	CHECK(!trace_sample_first_enabled());
}

/* ---- a metrics callback ------------------------------------------------ */

struct metric {
	unsigned int off;	/* of the summed field, from the event's format */
	long sum, calls;
	uint64_t last_ts;
	int ts_ok;
};

static void sum_field(const struct slim_event *ev, const void *rec, unsigned int len,
		      uint64_t ts, void *data)
{
	struct metric *m = data;
	long v;

	(void)ev;
	if (m->off + sizeof(v) <= len) {
		memcpy(&v, (const char *)rec + m->off, sizeof(v));
		m->sum += v;
	}
	if (ts < m->last_ts)
		m->ts_ok = 0;
	m->last_ts = ts;
	m->calls++;
}

static void test_metrics(void)
{
	const struct slim_field_table *t = slim_event_fields(&slim_event_sample_second);
	struct metric m = { .ts_ok = 1 };
	struct timespec before;
	long i, want = 0;

	m.off = slim_field_find(t, "b")->offset;
	clock_gettime(CLOCK_MONOTONIC, &before);
	CHECK_EQ_INT(slim_consumer_attach_name("sample:sample_second", sum_field, &m,
					       "a != 3"), 0);
	for (i = 0; i < 1000; i++) {
		trace_sample_second((int)(i % 10), i);
		if (i % 10 != 3)
			want += i;
	}
	CHECK_EQ_INT(m.sum, want);
	CHECK_EQ_INT(m.calls, 900);
	CHECK(m.ts_ok);
	/* CLOCK_MONOTONIC ns: after the reading taken before. */
	CHECK(m.last_ts >= (uint64_t)before.tv_sec * 1000000000u + (uint64_t)before.tv_nsec);
	CHECK_EQ_INT(slim_consumer_detach_name("sample_second", sum_field, &m), 0);
}

/* ---- a consumer and two instances, at once ----------------------------- */

static long seen;

static void count_all(const struct slim_event *ev, const void *rec, unsigned int len,
		      uint64_t ts, void *data)
{
	(void)ev, (void)rec, (void)len, (void)ts, (void)data;
	__atomic_fetch_add(&seen, 1, __ATOMIC_RELAXED);
}

static void test_together(void)
{
	struct slim_bufset *a, *b;
	struct slim_rb_stats sa, sb, stop;
	pthread_t t[2];
	int i;

	slim_ctl_write("trace", "");
	CHECK_EQ_INT(slim_ctl_mkdir("instances/ca"), 0);
	CHECK_EQ_INT(slim_ctl_mkdir("instances/cb"), 0);
	slim_ctl_write("instances/ca/buffer_size_kb", "8192");
	slim_ctl_write("instances/cb/buffer_size_kb", "8192");
	slim_ctl_write("buffer_size_kb", "8192");
	CHECK_EQ_INT(slim_ctl_write("instances/ca/set_event", "sample_first"), 0);
	CHECK_EQ_INT(slim_ctl_write("instances/cb/set_event", "sample_first"), 0);
	CHECK_EQ_INT(slim_ctl_write("instances/cb/events/sample/sample_first/filter",
				    "a < 50"), 0);
	CHECK_EQ_INT(slim_consumer_attach(&slim_event_sample_first, count_all, NULL, NULL), 0);
	/* One probe for all three. */
	CHECK(slim_event_sample_first.tp.probes && !slim_event_sample_first.tp.probes[1].func);
	seen = 0;
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, fire_first, (void *)10000L);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ_INT(seen, 20000);
	pthread_mutex_lock(&slim_event_mutex);
	a = slim_instance_find("ca")->bufs;
	b = slim_instance_find("cb")->bufs;
	pthread_mutex_unlock(&slim_event_mutex);
	slim_bufset_stats(a, &sa);
	slim_bufset_stats(b, &sb);
	slim_bufset_stats(&slim_bufset_top, &stop);
	CHECK_EQ_INT(sa.entries + sa.lost, 20000);
	CHECK_EQ_INT(sa.lost, 0);
	CHECK_EQ_INT(sb.entries, 10000);	/* a < 50: half of i % 100 */
	CHECK_EQ_INT(stop.entries, 0);		/* not enabled at the top */
	CHECK_EQ_INT(slim_consumer_detach(&slim_event_sample_first, count_all, NULL), 0);
	CHECK_EQ_INT(slim_ctl_rmdir("instances/ca"), 0);
	CHECK_EQ_INT(slim_ctl_rmdir("instances/cb"), 0);
	CHECK(slim_event_sample_first.targets == NULL);
	slim_ctl_write("buffer_size_kb", "1024");
}

/* ---- bad input --------------------------------------------------------- */

static void test_bad_input(void)
{
	int x;

	slim_ctl_write("error_log", "");
	CHECK_EQ_INT(slim_consumer_attach_name("sample:nope", count_all, NULL, NULL), -ENOENT);
	CHECK_EQ_INT(slim_consumer_attach_name("nosys:sample_first", count_all, NULL, NULL),
		     -ENOENT);
	CHECK_EQ_INT(slim_consumer_attach_name(NULL, count_all, NULL, NULL), -ENOENT);
	CHECK_EQ_INT(slim_consumer_attach(&slim_event_sample_first, NULL, NULL, NULL), -EINVAL);
	CHECK_EQ_INT(slim_consumer_attach(&slim_event_sample_first, count_all, &x,
					  "a == "), -EINVAL);
	CHECK(strstr(rd("error_log"), "consumer filter parse error") != NULL);
	CHECK(slim_event_sample_first.targets == NULL);
	CHECK_EQ_INT(slim_consumer_attach(&slim_event_sample_first, count_all, &x,
					  "nofield > 1"), -EINVAL);
	CHECK(strstr(rd("error_log"), "Field not found") != NULL);
	CHECK_EQ_INT(slim_consumer_attach(&slim_event_sample_first, count_all, &x, ""), 0);
	CHECK_EQ_INT(slim_consumer_attach(&slim_event_sample_first, count_all, &x, NULL),
		     -EEXIST);
	/* Same fn, other data: another consumer. */
	CHECK_EQ_INT(slim_consumer_attach(&slim_event_sample_first, count_all, NULL, NULL), 0);
	CHECK_EQ_INT(slim_consumer_detach(&slim_event_sample_first, count_all, &x), 0);
	CHECK_EQ_INT(slim_consumer_detach(&slim_event_sample_first, count_all, &x), -ENOENT);
	CHECK(slim_event_sample_first.flags & SLIM_EVENT_FL_CONSUMER);
	CHECK_EQ_INT(slim_consumer_detach(&slim_event_sample_first, count_all, NULL), 0);
	CHECK_EQ_INT(slim_consumer_detach_name("sample_first", count_all, NULL), -ENOENT);
	CHECK_EQ_INT(slim_consumer_detach_name("sample:nope", count_all, NULL), -ENOENT);
	CHECK(!trace_sample_first_enabled());
}

/* ---- hand-written classes --------------------------------------------- */

static void test_own_reg(void)
{
	counted_reset();
	seen = 0;
	CHECK_EQ_INT(slim_consumer_attach(&slim_event_counted_one, count_all, NULL, NULL), 0);
	CHECK_EQ_INT(slim_consumer_attach(&slim_event_counted_one, count_all, &seen, NULL), 0);
	CHECK_EQ_INT(counted_reg_calls[SLIM_REG_PERF_REGISTER], 1);
	counted_fire(1);
	CHECK_EQ_INT(seen, 2);
	CHECK_EQ_INT(slim_consumer_detach(&slim_event_counted_one, count_all, NULL), 0);
	CHECK_EQ_INT(counted_reg_calls[SLIM_REG_PERF_UNREGISTER], 0);
	CHECK_EQ_INT(slim_consumer_detach(&slim_event_counted_one, count_all, &seen), 0);
	CHECK_EQ_INT(counted_reg_calls[SLIM_REG_PERF_UNREGISTER], 1);
}

/* A class with a perf_probe of its own: each path through its own probe. */
static void test_own_perf_probe(void)
{
	struct slim_rb_stats st;

	kprobe_reset();
	seen = 0;
	slim_ctl_write("trace", "");
	CHECK_EQ_INT(slim_ctl_write("events/kprobes/kp_open/enable", "1"), 0);
	CHECK_EQ_INT(slim_consumer_attach_name("kprobes:kp_open", count_all, NULL, "fd > 2"), 0);
	CHECK_EQ_INT(kprobe_reg_calls[SLIM_REG_REGISTER], 1);
	CHECK_EQ_INT(kprobe_reg_calls[SLIM_REG_PERF_REGISTER], 1);
	kprobe_fire(1);
	kprobe_fire(5);
	CHECK_EQ_INT(kprobe_probe_calls, 2);
	CHECK_EQ_INT(kprobe_perf_calls, 2);
	CHECK_EQ_INT(seen, 1);
	slim_bufset_stats(&slim_bufset_top, &st);
	CHECK_EQ_INT(st.entries, 2);
	CHECK(strstr(rd("trace"), "kp_open: fd=5") != NULL);
	CHECK_EQ_INT(slim_consumer_detach_name("kp_open", count_all, NULL), 0);
	CHECK_EQ_INT(kprobe_reg_calls[SLIM_REG_PERF_UNREGISTER], 1);
	kprobe_fire(6);
	CHECK_EQ_INT(kprobe_perf_calls, 2);
	CHECK_EQ_INT(slim_ctl_write("events/kprobes/kp_open/enable", "0"), 0);
	CHECK_EQ_INT(kprobe_reg_calls[SLIM_REG_UNREGISTER], 1);
}

/* ---- attach and detach while threads fire ------------------------------ */

static int stop;

static void *firer(void *arg)
{
	long i = 0;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		trace_sample_first((int)(i % 100), i);
		i++;
	}
	return NULL;
}

static void test_churn(void)
{
	struct slim_consumer_stats st;
	pthread_t t[2];
	long data[4];
	int i, j, ok = 1;

	slim_ctl_write("set_event", "sample_first");
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, firer, NULL);
	for (i = 0; i < 200; i++) {
		j = i % 4;
		if (slim_consumer_attach(&slim_event_sample_first, count_all, &data[j],
					 j & 1 ? "a < 20" : NULL) != 0)
			ok = 0;
		if (i >= 2) {
			j = (i - 2) % 4;
			if (slim_consumer_stats(&slim_event_sample_first, count_all,
						&data[j], &st) || st.passed > st.hits)
				ok = 0;
			if (slim_consumer_detach(&slim_event_sample_first, count_all,
						 &data[j]) != 0)
				ok = 0;
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CHECK(ok);
	slim_consumer_detach(&slim_event_sample_first, count_all, &data[198 % 4]);
	slim_consumer_detach(&slim_event_sample_first, count_all, &data[199 % 4]);
	slim_ctl_write("set_event", "");
	CHECK(slim_event_sample_first.targets == NULL);
	CHECK(!trace_sample_first_enabled());
}

int main(void)
{
	check_watchdog("consumer", 300);
	test_per_thread();
	test_metrics();
	test_together();
	test_bad_input();
	test_own_reg();
	test_own_perf_probe();
	test_churn();
	return check_done("consumer");
}
