// SPDX-License-Identifier: MIT
/*
 * Trace clocks: names, the list text, monotonic readings, and that a
 * converted "mono" stamp lands where CLOCK_MONOTONIC was when it was
 * taken (within a loose tolerance: this checks the arithmetic and the
 * calibration, not speed).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "core/clock.h"

/* Far above calibration error (~50 ns), far below any unit mix-up. */
#define TOL_NS	50000ull
#define NSAMPLES 300

struct sample {
	uint64_t before, raw, after;
};

static uint64_t now_ns(clockid_t id)
{
	return slim_clock_gettime_ns(id);
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* The clock under test, as an instance's trace_clock would hold it. */
static _Atomic int cur = SLIM_CLOCK_MONO;

static int set_clock(const char *name)
{
	int id = slim_clock_lookup(name);

	if (id < 0)
		return id;
	atomic_store(&cur, id);
	return 0;
}

static struct sample take(clockid_t ref)
{
	struct sample s;

	s.before = now_ns(ref);
	s.raw = slim_clock_now(atomic_load(&cur));
	s.after = now_ns(ref);
	return s;
}

/* The converted stamp lies within the reference readings around it. */
static int in_window(const struct sample *s)
{
	uint64_t ns = slim_clock_to_ns(atomic_load(&cur), s->raw);

	return ns + TOL_NS >= s->before && ns <= s->after + TOL_NS;
}

static void test_names(void)
{
	char buf[64];

	CHECK_EQ_STR(slim_clock_id_name(atomic_load(&cur)), "mono");
	CHECK_EQ_INT(atomic_load(&cur), SLIM_CLOCK_MONO);
	CHECK_EQ_INT(slim_clock_list(atomic_load(&cur), buf, sizeof(buf)), 19);
	CHECK_EQ_STR(buf, "[mono] mono_raw tsc");

	CHECK_EQ_INT(set_clock("mono_raw"), 0);
	CHECK_EQ_STR(slim_clock_id_name(atomic_load(&cur)), "mono_raw");
	slim_clock_list(atomic_load(&cur), buf, sizeof(buf));
	CHECK_EQ_STR(buf, "mono [mono_raw] tsc");

	CHECK_EQ_INT(set_clock("tsc"), 0);
	CHECK_EQ_STR(slim_clock_id_name(atomic_load(&cur)), "tsc");
	CHECK_EQ_INT(atomic_load(&cur), SLIM_CLOCK_TSC);
	slim_clock_list(atomic_load(&cur), buf, sizeof(buf));
	CHECK_EQ_STR(buf, "mono mono_raw [tsc]");

	/* Unknown names fail and leave the clock alone. */
	CHECK_EQ_INT(set_clock("bogus"), -EINVAL);
	CHECK_EQ_INT(set_clock(""), -EINVAL);
	CHECK_EQ_INT(set_clock("  \n"), -EINVAL);
	CHECK_EQ_INT(set_clock(NULL), -EINVAL);
	CHECK_EQ_INT(set_clock("mon"), -EINVAL);
	CHECK_EQ_INT(set_clock("mono_raw2"), -EINVAL);
	CHECK_EQ_INT(set_clock("MONO"), -EINVAL);
	CHECK_EQ_INT(set_clock("mono raw"), -EINVAL);
	CHECK_EQ_STR(slim_clock_id_name(atomic_load(&cur)), "tsc");

	/* What `echo mono > trace_clock` writes. */
	CHECK_EQ_INT(set_clock(" mono\n"), 0);
	CHECK_EQ_STR(slim_clock_id_name(atomic_load(&cur)), "mono");
}

static void test_list_sizes(void)
{
	char buf[32];
	int len;

	memset(buf, 'x', sizeof(buf));
	len = slim_clock_list(atomic_load(&cur), buf, sizeof(buf));
	CHECK_EQ_INT(len, (int)strlen("[mono] mono_raw tsc"));
	CHECK_EQ_INT(slim_clock_list(atomic_load(&cur), buf, (size_t)len + 1), len);
	CHECK_EQ_STR(buf, "[mono] mono_raw tsc");

	memset(buf, 'x', sizeof(buf));
	CHECK_EQ_INT(slim_clock_list(atomic_load(&cur), buf, (size_t)len), -ENOSPC);
	CHECK_EQ_INT(buf[0], '\0');
	CHECK_EQ_INT(slim_clock_list(atomic_load(&cur), buf, 3), -ENOSPC);
	CHECK_EQ_INT(slim_clock_list(atomic_load(&cur), NULL, 0), -ENOSPC);
	CHECK_EQ_INT(slim_clock_list(atomic_load(&cur), NULL, 10), -EINVAL);
}

/* Raw stamps and their conversions never go back, on every clock. */
static void test_monotonic(const char *name)
{
	uint64_t prev, prev_ns, v, ns;
	int i, raw_ok = 1, ns_ok = 1;

	CHECK_EQ_INT(set_clock(name), 0);
	prev = slim_clock_now(atomic_load(&cur));
	prev_ns = slim_clock_to_ns(atomic_load(&cur), prev);
	for (i = 0; i < 200000; i++) {
		v = slim_clock_now(atomic_load(&cur));
		if (v < prev)
			raw_ok = 0;
		if (i % 64 == 0) {
			ns = slim_clock_to_ns(atomic_load(&cur), v);
			if (ns < prev_ns)
				ns_ok = 0;
			prev_ns = ns;
		}
		prev = v;
	}
	if (!CHECK(raw_ok) || !CHECK(ns_ok))
		fprintf(stderr, "     clock %s\n", name);
}

static void test_conversion(const char *name, clockid_t ref)
{
	struct sample s[NSAMPLES];
	int i, now_ok = 1, later_ok = 1;

	CHECK_EQ_INT(set_clock(name), 0);
	CHECK_EQ_INT(slim_clock_in_ns(atomic_load(&cur)), 1);
	for (i = 0; i < NSAMPLES; i++) {
		s[i] = take(ref);
		if (!in_window(&s[i]))
			now_ok = 0;
		if (i % 10 == 0)
			sleep_us(2000);
	}
	/* Again, now that later calibration points surround them. */
	for (i = 0; i < NSAMPLES; i++)
		if (!in_window(&s[i]))
			later_ok = 0;
	if (!CHECK(now_ok) || !CHECK(later_ok))
		fprintf(stderr, "     clock %s (mono_tsc %d)\n", name,
			slim_clock_mono_is_tsc());
}

static void test_tsc(void)
{
	uint64_t v;

	CHECK_EQ_INT(set_clock("tsc"), 0);
	v = slim_clock_now(atomic_load(&cur));
	CHECK_EQ_INT(slim_clock_to_ns(atomic_load(&cur), v), v);
	CHECK_EQ_INT(slim_clock_in_ns(atomic_load(&cur)), !SLIM_CLOCK_HAVE_COUNTER);
	CHECK_EQ_INT(set_clock("mono"), 0);
}

/* The table arithmetic, on a table whose answers follow from its slopes. */
static void test_table_math(void)
{
	/* 0.5 ns per tick from tick 1000, then 0.75 from tick 3000. */
	struct slim_clock_calib t[2] = {
		{ .mult = 1u << 31, .shift = 32, .tsc_base = 1000, .ns_base = 5000 },
		{ .mult = 3u << 30, .shift = 32, .tsc_base = 3000, .ns_base = 6000 },
	};
	/* 40 ns per tick (a 25 MHz counter) needs a smaller shift. */
	struct slim_clock_calib slow = {
		.mult = 40u << 26, .shift = 26, .tsc_base = 0, .ns_base = 7,
	};

	CHECK_EQ_INT(slim_clock_calib_to_ns(t, 2, 1000), 5000);
	CHECK_EQ_INT(slim_clock_calib_to_ns(t, 2, 2000), 5500);
	CHECK_EQ_INT(slim_clock_calib_to_ns(t, 2, 2999), 5999);
	CHECK_EQ_INT(slim_clock_calib_to_ns(t, 2, 3000), 6000);
	CHECK_EQ_INT(slim_clock_calib_to_ns(t, 2, 3400), 6300);
	CHECK_EQ_INT(slim_clock_calib_to_ns(t, 2, 0), 4500);
	CHECK_EQ_INT(slim_clock_calib_to_ns(t, 1, 3400), 6200);
	CHECK_EQ_INT(slim_clock_calib_to_ns(t, 2, 3000 + (1ull << 40)),
		     6000 + 3 * (1ull << 38));
	CHECK_EQ_INT(slim_clock_calib_to_ns(t, 0, 12345), 12345);
	CHECK_EQ_INT(slim_clock_calib_to_ns(&slow, 1, 1000000), 40000007);
	/* Before the first point, clamped rather than wrapped. */
	t[0].ns_base = 100;
	CHECK_EQ_INT(slim_clock_calib_to_ns(t, 2, 0), 0);
}

static void check_table(void)
{
	static struct slim_clock_calib tab[SLIM_CLOCK_CALIB_MAX];
	size_t n = slim_clock_calib_snapshot(tab, SLIM_CLOCK_CALIB_MAX);
	size_t i;
	int order_ok = 1, joint_ok = 1;

	CHECK(n >= 2 && n <= SLIM_CLOCK_CALIB_MAX);
	for (i = 0; i + 1 < n && i + 1 < SLIM_CLOCK_CALIB_MAX; i++) {
		const struct slim_clock_calib *a = &tab[i], *b = &tab[i + 1];

		if (b->tsc_base <= a->tsc_base || b->ns_base < a->ns_base ||
		    !a->mult)
			order_ok = 0;
		/* No step back where one segment hands over to the next. */
		if (slim_clock_calib_to_ns(tab, n, b->tsc_base - 1) > b->ns_base ||
		    slim_clock_calib_to_ns(tab, n, b->tsc_base) != b->ns_base)
			joint_ok = 0;
	}
	CHECK(order_ok);
	CHECK(joint_ok);
}

/* Enough points to fill the table, so it thins; old stamps stay right. */
static void test_recalibrate(void)
{
	static struct sample s[700];
	int i, ok = 1, first;

	CHECK_EQ_INT(set_clock("mono"), 0);
	if (!slim_clock_mono_is_tsc()) {
		CHECK_EQ_INT(slim_clock_recalibrate(), -ENODEV);
		return;
	}
	check_table();
	sleep_us(1500);
	first = slim_clock_recalibrate();
	CHECK(first == 0 || first == -EAGAIN);
	/* Points under 1 ms apart are refused. */
	CHECK_EQ_INT(slim_clock_recalibrate(), -EAGAIN);
	for (i = 0; i < 700; i++) {
		s[i] = take(CLOCK_MONOTONIC);
		sleep_us(1100);
		if (slim_clock_recalibrate() != 0)
			sleep_us(1100);
	}
	check_table();
	for (i = 0; i < 700; i++)
		if (!in_window(&s[i]))
			ok = 0;
	CHECK(ok);
}

static void test_mono_source(void)
{
	int had = slim_clock_mono_is_tsc();
	struct sample s;

	CHECK_EQ_INT(set_clock("mono"), 0);
	CHECK_EQ_INT(slim_clock_mono_use_tsc(0), 0);
	CHECK_EQ_INT(slim_clock_mono_is_tsc(), 0);
	CHECK_EQ_INT(slim_clock_srcs[SLIM_CLOCK_MONO], CLOCK_MONOTONIC);
	s = take(CLOCK_MONOTONIC);
	CHECK(s.raw >= s.before && s.raw <= s.after);
	CHECK_EQ_INT(slim_clock_to_ns(atomic_load(&cur), s.raw), s.raw);
	test_conversion("mono", CLOCK_MONOTONIC);
	if (had) {
		CHECK_EQ_INT(slim_clock_mono_use_tsc(1), 0);
		CHECK_EQ_INT(slim_clock_srcs[SLIM_CLOCK_MONO], SLIM_CLOCK_SRC_COUNTER);
	} else {
		CHECK_EQ_INT(slim_clock_mono_use_tsc(1), -ENODEV);
	}
	CHECK_EQ_INT(slim_clock_mono_is_tsc(), had);
	CHECK_EQ_STR(slim_clock_id_name(atomic_load(&cur)), "mono");
}

/* Readers convert while the table is rewritten under them. */
static _Atomic int stop;
static _Atomic int reader_bad;

static void *reader(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		struct sample s = take(CLOCK_MONOTONIC);

		if (!in_window(&s))
			atomic_store(&reader_bad, 1);
	}
	return NULL;
}

static void *namer(void *arg)
{
	char buf[64];
	int bad = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		const char *open, *close;

		(void)slim_clock_id_name(atomic_load(&cur));
		if (slim_clock_list(atomic_load(&cur), buf, sizeof(buf)) < 0)
			bad = 1;
		/* Exactly one clock is bracketed, whatever the switches. */
		open = strchr(buf, '[');
		close = strchr(buf, ']');
		if (!open || !close || close < open ||
		    strchr(open + 1, '[') || strchr(close + 1, ']'))
			bad = 1;
		(void)slim_clock_now(atomic_load(&cur));
	}
	return (void *)(long)bad;
}

static void test_threads(void)
{
	pthread_t r[2], nm;
	void *nbad;
	int i;

	CHECK_EQ_INT(set_clock("mono"), 0);
	atomic_store(&stop, 0);
	for (i = 0; i < 2; i++)
		pthread_create(&r[i], NULL, reader, NULL);
	for (i = 0; i < 150; i++) {
		sleep_us(1100);
		slim_clock_recalibrate();
		slim_clock_tick();
	}
	atomic_store(&stop, 1);
	for (i = 0; i < 2; i++)
		pthread_join(r[i], NULL);
	CHECK_EQ_INT(atomic_load(&reader_bad), 0);

	/* Switching clocks while others read the name, list and stamp. */
	atomic_store(&stop, 0);
	pthread_create(&nm, NULL, namer, NULL);
	for (i = 0; i < 3000; i++)
		set_clock(i % 3 == 0 ? "mono_raw" : i % 3 == 1 ? "tsc" : "mono");
	atomic_store(&stop, 1);
	pthread_join(nm, &nbad);
	CHECK(nbad == NULL);
	CHECK_EQ_INT(set_clock("mono"), 0);
}

int main(void)
{
	test_names();
	test_list_sizes();
	test_monotonic("mono");
	test_monotonic("mono_raw");
	test_monotonic("tsc");
	test_tsc();
	test_conversion("mono", CLOCK_MONOTONIC);
	test_conversion("mono_raw", CLOCK_MONOTONIC_RAW);
	test_table_math();
	test_recalibrate();
	test_mono_source();
	test_threads();
	CHECK_EQ_INT(set_clock("mono"), 0);
	return check_done("clock");
}
