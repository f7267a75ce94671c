// SPDX-License-Identifier: MIT
/*
 * clock_bench: what a trace stamp costs on each clock, and how far a
 * calibrated "mono" stamp strays from clock_gettime(CLOCK_MONOTONIC).
 *
 *   clock_bench [SECONDS]     error run length, default 10 (600 = 10 min)
 *
 * Build: cc -std=gnu11 -O2 -D_GNU_SOURCE -Iinclude -Isrc bench/clock_bench.c \
 *            src/core/clock.c src/core/fork.c -lpthread -o clock_bench
 *
 * Costs are the median of RUNS runs of ITERS back-to-back calls.  The
 * error run samples every 10 ms: CLOCK_MONOTONIC read on both sides of
 * a slim_clock_now(cur) (tightest of 5 tries), the midpoint taken as truth
 * and half the bracket reported as the measurement's own uncertainty.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"

#define RUNS	7
#define ITERS	2000000
#define SAMPLE_NS	10000000ull

/* The clock measured, as an instance's trace_clock holds it. */
static enum slim_clock_id cur = SLIM_CLOCK_MONO;

static volatile uint64_t sink;

static uint64_t mono_ns(void)
{
	return slim_clock_gettime_ns(CLOCK_MONOTONIC);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

enum what { W_GETTIME, W_GETTIME_RAW, W_CYCLES, W_NOW, W_TO_NS };

/* One run: ns per call.  The switch sits outside the timed loops. */
static double run_once(enum what w)
{
	uint64_t t0, t1, sum = 0, raw = slim_clock_now(cur);
	int i;

	t0 = mono_ns();
	switch (w) {
	case W_GETTIME:
		for (i = 0; i < ITERS; i++)
			sum += slim_clock_gettime_ns(CLOCK_MONOTONIC);
		break;
	case W_GETTIME_RAW:
		for (i = 0; i < ITERS; i++)
			sum += slim_clock_gettime_ns(CLOCK_MONOTONIC_RAW);
		break;
	case W_CYCLES:
		for (i = 0; i < ITERS; i++)
			sum += slim_clock_cycles();
		break;
	case W_NOW:
		for (i = 0; i < ITERS; i++)
			sum += slim_clock_now(cur);
		break;
	case W_TO_NS:
		for (i = 0; i < ITERS; i++)
			sum += slim_clock_to_ns(cur, raw + (uint64_t)i);
		break;
	}
	t1 = mono_ns();
	sink += sum;
	return (double)(t1 - t0) / ITERS;
}

static void cost(const char *label, enum what w)
{
	double v[RUNS], med;
	int r;

	for (r = 0; r < RUNS; r++)
		v[r] = run_once(w);
	med = median(v, RUNS);
	printf("  %-40s %7.2f ns  (min %.2f, max %.2f)\n", label, med, v[0],
	       v[RUNS - 1]);
}

static void costs(void)
{
	printf("cost per call, median of %d runs x %d calls:\n", RUNS, ITERS);
	cost("clock_gettime(CLOCK_MONOTONIC)", W_GETTIME);
	cost("clock_gettime(CLOCK_MONOTONIC_RAW)", W_GETTIME_RAW);
	cost(SLIM_CLOCK_HAVE_COUNTER ? "raw counter read (rdtsc/cntvct)" :
	     "raw counter read (none: CLOCK_MONOTONIC)", W_CYCLES);
	cur = slim_clock_lookup("mono");
	cost(slim_clock_mono_is_tsc() ? "slim_clock_now() mono (counter)" :
	     "slim_clock_now() mono (clock_gettime)", W_NOW);
	cost("slim_clock_to_ns() mono (reader side)", W_TO_NS);
	if (slim_clock_mono_is_tsc()) {
		slim_clock_mono_use_tsc(0);
		cost("slim_clock_now() mono (clock_gettime)", W_NOW);
		slim_clock_mono_use_tsc(1);
	}
	cur = slim_clock_lookup("mono_raw");
	cost("slim_clock_now() mono_raw", W_NOW);
	cur = slim_clock_lookup("tsc");
	cost("slim_clock_now() tsc", W_NOW);
	cur = slim_clock_lookup("mono");
}

struct sample {
	uint64_t raw;
	uint64_t truth;
	int64_t live_err;
	uint32_t half_width;
};

static struct sample sample_now(void)
{
	struct sample s = { 0, 0, 0, UINT32_MAX };
	int i;

	for (i = 0; i < 5; i++) {
		uint64_t t0 = mono_ns(), raw = slim_clock_now(cur), t1 = mono_ns();

		if ((t1 - t0) / 2 < s.half_width) {
			s.half_width = (uint32_t)((t1 - t0) / 2);
			s.raw = raw;
			s.truth = t0 + (t1 - t0) / 2;
		}
	}
	return s;
}

struct stats {
	double max_abs, sum_abs;
	int64_t min, max;
	size_t n;
};

static void stat_add(struct stats *st, int64_t e)
{
	double a = e < 0 ? -(double)e : (double)e;

	if (!st->n || e < st->min)
		st->min = e;
	if (!st->n || e > st->max)
		st->max = e;
	if (a > st->max_abs)
		st->max_abs = a;
	st->sum_abs += a;
	st->n++;
}

static void stat_print(const char *label, const struct stats *st)
{
	printf("  %-44s max |err| %8.0f ns  mean |err| %6.0f ns  range [%lld, %lld]\n",
	       label, st->max_abs, st->n ? st->sum_abs / (double)st->n : 0.0,
	       (long long)st->min, (long long)st->max);
}

static int64_t diff(uint64_t a, uint64_t b)
{
	return a >= b ? (int64_t)(a - b) : -(int64_t)(b - a);
}

static void error_run(double seconds)
{
	size_t cap = (size_t)(seconds * 1e9 / SAMPLE_NS) + 16, n = 0, i;
	struct sample *s = calloc(cap, sizeof(*s));
	struct slim_clock_calib early[SLIM_CLOCK_CALIB_MAX];
	static struct slim_clock_calib tab[SLIM_CLOCK_CALIB_MAX];
	size_t early_n = 0, tab_n;
	struct stats live = { 0 }, after = { 0 }, fixed = { 0 }, line = { 0 };
	struct stats width = { 0 };
	double slope;
	uint64_t start = mono_ns(), end = start + (uint64_t)(seconds * 1e9);
	struct timespec nap = { 0, SAMPLE_NS };

	if (!s) {
		fprintf(stderr, "clock_bench: no memory for %zu samples\n", cap);
		exit(1);
	}
	cur = slim_clock_lookup("mono");
	if (!slim_clock_mono_is_tsc()) {
		printf("error run: mono reads clock_gettime here (no invariant counter): error is 0 by construction\n");
		free(s);
		return;
	}
	printf("error run: %.0f s, a sample every %llu ms\n", seconds,
	       (unsigned long long)(SAMPLE_NS / 1000000));
	while (n < cap && mono_ns() < end) {
		/* A buffer page switch would call this; so does to_ns(). */
		slim_clock_tick();
		s[n] = sample_now();
		s[n].live_err = diff(slim_clock_to_ns(cur, s[n].raw), s[n].truth);
		if (!early_n && s[n].truth - start >= 1000000000ull)
			early_n = slim_clock_calib_snapshot(early, SLIM_CLOCK_CALIB_MAX);
		n++;
		nanosleep(&nap, NULL);
	}
	tab_n = slim_clock_calib_snapshot(tab, SLIM_CLOCK_CALIB_MAX);
	if (tab_n > SLIM_CLOCK_CALIB_MAX)
		tab_n = SLIM_CLOCK_CALIB_MAX;
	if (early_n > SLIM_CLOCK_CALIB_MAX)
		early_n = SLIM_CLOCK_CALIB_MAX;
	/* One straight line from the first point to the last. */
	slope = (double)(tab[tab_n - 1].ns_base - tab[0].ns_base) /
		(double)(tab[tab_n - 1].tsc_base - tab[0].tsc_base);
	for (i = 0; i < n; i++) {
		double d = (double)s[i].raw - (double)tab[0].tsc_base;
		uint64_t ns = tab[0].ns_base + (uint64_t)(int64_t)(d * slope);

		stat_add(&line, diff(ns, s[i].truth));
		stat_add(&live, s[i].live_err);
		stat_add(&after, diff(slim_clock_calib_to_ns(tab, tab_n, s[i].raw),
				      s[i].truth));
		/* One fixed conversion, perf style: the slope known after 1 s. */
		if (early_n)
			stat_add(&fixed, diff(slim_clock_calib_to_ns(&early[early_n - 1], 1,
								     s[i].raw), s[i].truth));
		stat_add(&width, s[i].half_width);
	}
	printf("  %zu samples, %zu calibration points at the end (last gap %.2f s)\n",
	       n, tab_n, tab_n >= 2 ? (double)(tab[tab_n - 1].ns_base -
					       tab[tab_n - 2].ns_base) / 1e9 : 0.0);
	stat_print("live (converted at once, as trace_pipe)", &live);
	stat_print("after the run (final table, as a trace file)", &after);
	if (early_n)
		stat_print("one fixed calibration from the first 1 s", &fixed);
	stat_print("one line through the first and last points", &line);
	stat_print("measurement uncertainty (half bracket)", &width);
	free(s);
}

int main(int argc, char **argv)
{
	double seconds = 10;
	char list[64];

	if (argc > 1) {
		char *end;

		seconds = strtod(argv[1], &end);
		if (*end || seconds <= 0 || seconds > 86400) {
			fprintf(stderr, "clock_bench: bad duration \"%s\" (seconds, 0 < s <= 86400)\n",
				argv[1]);
			return 2;
		}
	}
	slim_clock_init();
	slim_clock_list(cur, list, sizeof(list));
	printf("clocks: %s; counter: %s; mono reads: %s\n", list,
	       SLIM_CLOCK_HAVE_COUNTER ? "yes" : "no (tsc falls back to mono)",
	       slim_clock_mono_is_tsc() ? "calibrated counter" : "clock_gettime");
	costs();
	error_run(seconds);
	return 0;
}
