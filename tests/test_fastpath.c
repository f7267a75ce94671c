// SPDX-License-Identifier: MIT
/*
 * The record path inlined into class probes (include/slimtrace/static/
 * record.h): which events take it, which leave it for
 * slim_event_reserve() or, for a clock other than the counter, for the
 * library's copy slim_record_fast_clock() (both counted here by
 * wrapping them), and that all write the same records and count every
 * event: written + dropped == fired, a signal handler's events included.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <unistd.h>
#include <slimtrace/ctl.h>
#include "buffers/buffer.h"
#include "core/clock.h"
#include "check.h"
#include "sample_events.h"

static unsigned long slow_calls;

void *__real_slim_event_reserve(struct slim_reserve *r, struct slim_event *ev,
				unsigned int size);

void *__wrap_slim_event_reserve(struct slim_reserve *r, struct slim_event *ev,
				unsigned int size)
{
	__atomic_fetch_add(&slow_calls, 1, __ATOMIC_RELAXED);
	return __real_slim_event_reserve(r, ev, size);
}

static unsigned long clock_calls;

struct slim_record_room __real_slim_record_fast_clock(struct slim_event *ev,
						      unsigned int esize);

struct slim_record_room __wrap_slim_record_fast_clock(struct slim_event *ev,
						      unsigned int esize)
{
	__atomic_fetch_add(&clock_calls, 1, __ATOMIC_RELAXED);
	return __real_slim_record_fast_clock(ev, esize);
}

static char *last_text;

static const char *rd(const char *path)
{
	free(last_text);
	last_text = slim_ctl_read(path);
	return last_text ? last_text : "";
}

static void wr(const char *path, const char *text)
{
	int ret = slim_ctl_write(path, text);

	if (ret < 0)
		fprintf(stderr, "write '%s' to %s: %s\n", text, path, strerror(-ret));
	CHECK_EQ_INT(ret, 0);
}

static uint64_t written_top(void)
{
	struct slim_rb_stats st;

	slim_bufset_stats(&slim_bufset_top, &st);
	return st.written;
}

/* Fire n events; how many left the fast path. */
static unsigned long fire(int n)
{
	unsigned long before = slow_calls;
	int i;

	for (i = 0; i < n; i++)
		trace_sample_first(i, 1000L + i);
	return slow_calls - before;
}

/* One instance, no filter: only a buffer's first event and page switches go slow. */
static void test_fast(void)
{
	char want[64];
	uint64_t w0;
	unsigned long slow;

	wr("trace", "");
	wr("events/sample/sample_first/enable", "1");
	w0 = written_top();
	slow = fire(1000);
	CHECK_EQ_INT(written_top() - w0, 1000);
	/*
	 * 28 bytes an event, 4080 a page: about 7 page switches, and one
	 * more for each time the thread waited long enough (~45 ms of
	 * cycles) to need a time extend: a busy machine.  Without the fast
	 * path, every event.
	 */
	CHECK(slow >= 1);
	CHECK(slow <= 100);
	snprintf(want, sizeof(want), "-%d ", (int)gettid());
	CHECK(strstr(rd("trace"), want) != NULL);
	CHECK(strstr(rd("trace"), "a=999 b=1999") != NULL);
	CHECK(strstr(rd("trace"), "a=0 b=1000") != NULL);
}

/*
 * The fast path writes the kernel's layout: a 2-int record (24 bytes) in
 * 28, a 4-byte header with type_len 6, payloads 4-byte aligned.  Read
 * from this thread's ring, every page the 100 events went to.
 */
static void test_layout(void)
{
	static unsigned char page[4096];
	struct slim_buffer *b;
	int events = 0, tl6 = 1, other = 0;

	wr("trace", "");
	wr("events/sample/sample_first/enable", "1");
	fire(100);
	b = slim_bufset_buffer(&slim_bufset_top);
	if (!CHECK(b != NULL))
		return;
	while (slim_rb_read_page(b->rb, page, 0) == 1) {
		uint64_t commit;
		uint32_t off = 0, h, n;

		memcpy(&commit, page + 8, 8);
		n = (uint32_t)(commit & ((1u << 27) - 1));
		while (off + 4 <= n) {
			memcpy(&h, page + 16 + off, 4);
			if ((h & 31) == 30) {	/* a time extend on a busy machine */
				off += 8;
				continue;
			}
			tl6 &= (h & 31) == 6;
			other += (h & 31) == 0;
			events++;
			off += (h & 31) ? 4 + 4 * (h & 31) : 8;
		}
	}
	CHECK_EQ_INT(events, 100);
	CHECK(tl6);
	CHECK_EQ_INT(other, 0);
}

/* Are the trace's time stamps in order?  A discard must roll time back too. */
static int stamps_ordered(const char *text)
{
	double last = 0, ts;
	const char *p = text;

	while ((p = strstr(p, "]")) != NULL) {
		const char *q = p + 1;

		while (*q == ' ' || (*q >= 'a' && *q <= 'z') || *q == '.')
			q++;
		if (sscanf(q, "%lf:", &ts) == 1) {
			if (ts < last)
				return 0;
			last = ts;
		}
		p = q;
	}
	return last > 0;
}

/* The trace time of the line that contains what, or -1. */
static double time_of(const char *text, const char *what)
{
	const char *p = strstr(text, what), *q;
	double ts;

	if (!p)
		return -1;
	for (q = p; q > text && q[-1] != '\n'; q--)
		;
	for (; q < p; q++)
		if (*q == ']')
			break;
	for (q++; q < p && !(*q >= '0' && *q <= '9'); q++)
		;
	return sscanf(q, "%lf:", &ts) == 1 ? ts : -1;
}

/*
 * Rejected events between two kept ones, 5 ms apart: the second kept
 * one's time must still be 100 ms after the first's, so a discard rolls
 * the writer's time back as well as its offset.
 */
static void test_discard_time(void)
{
	double t1, t2;
	int i;

	wr("trace", "");
	wr("events/sample/sample_first/filter", "a >= 100");
	trace_sample_first(100, 1);
	for (i = 0; i < 20; i++) {
		trace_sample_first(1, 1);
		usleep(5000);
	}
	trace_sample_first(101, 1);
	t1 = time_of(rd("trace"), "a=100 b=1");
	t2 = time_of(rd("trace"), "a=101 b=1");
	CHECK(t1 > 0);
	CHECK(t2 - t1 >= 0.099);
	wr("events/sample/sample_first/filter", "0");
}

/* A filter runs on the record in the ring, on the fast path too. */
static void test_filters(void)
{
	unsigned long slow;
	char expr[64], comm[17] = "";
	uint64_t w0;

	wr("trace", "");
	wr("events/sample/sample_first/filter", "a >= 500");
	w0 = written_top();
	slow = fire(1000);
	if (!CHECK(slow <= 100))
		fprintf(stderr, "     %lu of 1000 left the fast path\n", slow);
	CHECK_EQ_INT(written_top() - w0, 500);
	CHECK(strstr(rd("trace"), "a=499 ") == NULL);
	CHECK(strstr(rd("trace"), "a=500 b=1500") != NULL);
	CHECK(strstr(rd("trace"), "a=999 b=1999") != NULL);
	CHECK(stamps_ordered(rd("trace")));

	/* Rejects every other one: discards in the middle of pages. */
	wr("trace", "");
	wr("events/sample/sample_first/filter", "b & 1");
	w0 = written_top();
	CHECK(fire(2000) <= 200);
	CHECK_EQ_INT(written_top() - w0, 1000);
	CHECK(strstr(rd("trace"), "a=1 b=1001") != NULL);
	CHECK(strstr(rd("trace"), "a=2 b=1002") == NULL);
	CHECK(stamps_ordered(rd("trace")));

	/* Rejects all: nothing written, nothing lost, and still the fast path. */
	wr("trace", "");
	wr("events/sample/sample_first/filter", "a < 0");
	w0 = written_top();
	CHECK(fire(1000) <= 100);
	CHECK_EQ_INT(written_top() - w0, 0);

	/*
	 * After a pause longer than a delta can say, a rejected event's time
	 * extend stays: the rejected events after it keep to the fast path.
	 */
	wr("events/sample/sample_first/filter", "a == 77777");
	trace_sample_first(77777, 0);
	usleep(150000);
	w0 = written_top();
	CHECK(fire(1000) <= 100);
	CHECK_EQ_INT(written_top() - w0, 0);

	/* The filter needs the thread's name, or its CPU: found at commit. */
	/* The thread's name, as comm is (the program's, cut to 15 bytes). */
	prctl(PR_GET_NAME, comm);
	snprintf(expr, sizeof(expr), "comm == \"%s\" && a < 10", comm);
	wr("events/sample/sample_first/filter", expr);
	w0 = written_top();
	fire(100);
	CHECK_EQ_INT(written_top() - w0, 10);
	wr("events/sample/sample_first/filter", "comm == \"nobody-here\"");
	w0 = written_top();
	fire(100);
	CHECK_EQ_INT(written_top() - w0, 0);
	wr("events/sample/sample_first/filter", "cpu >= 0 && a < 7");
	w0 = written_top();
	fire(100);
	CHECK_EQ_INT(written_top() - w0, 7);

	wr("events/sample/sample_first/filter", "0");
	w0 = written_top();
	CHECK(fire(100) <= 20);
	CHECK_EQ_INT(written_top() - w0, 100);
}

/* What the fast path does not take goes slow, and records the same. */
static void test_slow_cases(void)
{
	uint64_t w0;
	uint32_t mono_bit;

	/* tracing_on 0: nothing recorded. */
	w0 = written_top();
	wr("tracing_on", "0");
	fire(100);
	CHECK_EQ_INT(written_top() - w0, 0);
	wr("tracing_on", "1");

	/* Two instances: the generic loop writes each. */
	CHECK_EQ_INT(slim_ctl_mkdir("instances/fp"), 0);
	wr("instances/fp/events/sample/sample_first/enable", "1");
	w0 = written_top();
	CHECK_EQ_INT(fire(300), 300);
	CHECK_EQ_INT(written_top() - w0, 300);
	CHECK(strstr(rd("instances/fp/trace"), "a=299 b=1299") != NULL);
	wr("events/sample/sample_first/enable", "0");
	/* The instance alone: fast again, into its own buffers. */
	CHECK(fire(300) <= 40);
	CHECK(strstr(rd("instances/fp/trace"), "a=299 b=1299") != NULL);
	CHECK_EQ_INT(slim_ctl_rmdir("instances/fp"), 0);
	wr("events/sample/sample_first/enable", "1");

	/*
	 * A clock other than the cycle counter: the library's copy of the
	 * fast path (slim_record_fast_clock()), recorded, stamps in order.
	 */
	wr("trace_clock", "mono_raw");
	wr("trace", "");
	w0 = written_top();
	clock_calls = 0;
	CHECK(fire(200) <= 30);
	CHECK_EQ_INT(written_top() - w0, 200);
	CHECK(clock_calls >= 200);
	CHECK(strstr(rd("trace"), "a=199 b=1199") != NULL);
	CHECK(stamps_ordered(rd("trace")));
	wr("trace_clock", "mono");
	wr("trace", "");
	CHECK(fire(200) <= 30);

	/*
	 * One word says all three: the slot's gen, tracing_on, the clock.
	 * mono is the counter unless the kernel's clocksource is not the TSC
	 * (kvm-clock on some guests): then it is a POSIX clock, and says so.
	 */
	mono_bit = slim_clock_mono_is_tsc() ? 0 : SLIM_ABI_FAST_CLOCK;
	CHECK_EQ_INT(SLIM_READ_ONCE(slim_bufset_top.fast), slim_bufset_top.gen | mono_bit);
	wr("tracing_on", "0");
	CHECK(SLIM_READ_ONCE(slim_bufset_top.fast) & SLIM_ABI_FAST_OFF);
	CHECK_EQ_STR(rd("tracing_on"), "0\n");
	wr("tracing_on", "1");
	CHECK_EQ_INT(SLIM_READ_ONCE(slim_bufset_top.fast), slim_bufset_top.gen | mono_bit);
	wr("trace_clock", "mono_raw");
	CHECK(SLIM_READ_ONCE(slim_bufset_top.fast) & SLIM_ABI_FAST_CLOCK);
	wr("trace_clock", "mono");
	/* mono leaves the counter: every set's clock bit follows. */
	if (slim_clock_mono_is_tsc()) {
		CHECK_EQ_INT(slim_clock_mono_use_tsc(0), 0);
		CHECK(SLIM_READ_ONCE(slim_bufset_top.fast) & SLIM_ABI_FAST_CLOCK);
		w0 = written_top();
		CHECK(fire(100) <= 30);
		CHECK_EQ_INT(written_top() - w0, 100);
		CHECK_EQ_INT(slim_clock_mono_use_tsc(1), 0);
		CHECK_EQ_INT(SLIM_READ_ONCE(slim_bufset_top.fast), slim_bufset_top.gen);
		wr("trace", "");
		CHECK(fire(200) <= 30);
	}
}

/* ---- a signal handler's events land in the middle of the fast path ---- */

static volatile sig_atomic_t handler_fired;

static void on_alarm(int sig)
{
	(void)sig;
	trace_sample_second(-1, -1);
	handler_fired++;
}

static void test_signals(void)
{
	struct itimerval it = { { 0, 50 }, { 0, 50 } };
	struct slim_rb_stats st0, st;
	long main_fired = 0;
	int round;

	wr("trace", "");
	wr("buffer_size_kb", "8192");
	wr("events/sample/sample_second/enable", "1");
	slim_bufset_stats(&slim_bufset_top, &st0);
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
	/* Past 200 rounds until a handler ran: a fast machine is done in a few ms. */
	for (round = 0; (round < 200 || !handler_fired) && round < 200000 && handler_fired < 200;
	     round++) {
		int i;

		for (i = 0; i < 2000; i++)
			trace_sample_first(i, i);
		main_fired += 2000;
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	signal(SIGALRM, SIG_DFL);
	slim_bufset_stats(&slim_bufset_top, &st);
	CHECK(handler_fired > 0);
	/* Every event is written or dropped (a nested one), none uncounted. */
	CHECK_EQ_INT((st.written - st0.written) + (st.dropped - st0.dropped),
		     main_fired + handler_fired);
	wr("events/sample/sample_second/enable", "0");
}

int main(void)
{
	check_watchdog("fastpath", 120);
	test_fast();
	test_layout();
	test_filters();
	test_discard_time();
	test_slow_cases();
	test_signals();
	wr("events/sample/sample_first/enable", "0");
	free(last_text);
	return check_done("fastpath");
}
