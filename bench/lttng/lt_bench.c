/*
 * LTTng-UST 2.13 recording cost per event, the peer of slimtrace's own
 * benchmark.  bench/lttng/run.sh owns the session; this program only fires.
 *
 *   lt_bench clock    EVENTS RUNS          cost of clock_gettime and rdtsc
 *   lt_bench empty    EVENTS RUNS          an empty loop
 *   lt_bench disabled EVENTS RUNS          the 2int tracepoint, no session
 *   lt_bench 2int|str16 EVENTS RUNS THREADS  events recorded by a session
 *
 * Each run times EVENTS iterations per thread with CLOCK_MONOTONIC around
 * the loop; the line printed holds medians over RUNS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_RDTSC 1
#endif

#include "lt_bench_tp.h"

#define MAX_THREADS 16
#define MAX_RUNS 64

enum mode { MODE_CLOCK, MODE_EMPTY, MODE_DISABLED, MODE_2INT, MODE_STR16 };

static const char *const mode_names[] = {
	"clock", "empty", "disabled", "2int", "str16",
};

struct worker {
	pthread_t tid;
	enum mode mode;
	long events;
	pthread_barrier_t *start;
	double t0, t1;
};

/* Sixteen characters: the string payload slimtrace's benchmark uses too. */
static const char str16[] = "0123456789abcdef";

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The loops are kept apart so each compiles to exactly what a user gets. */
static void fire(enum mode mode, long n)
{
	long i;

	switch (mode) {
	case MODE_EMPTY:
		for (i = 0; i < n; i++)
			__asm__ __volatile__("" : : "r"(i));
		break;
	case MODE_DISABLED:
	case MODE_2INT:
		for (i = 0; i < n; i++)
			lttng_ust_tracepoint(slimbench, two_int, (int)i, i);
		break;
	case MODE_STR16:
		for (i = 0; i < n; i++)
			lttng_ust_tracepoint(slimbench, str16, str16);
		break;
	case MODE_CLOCK:
		break;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(w->start);
	w->t0 = now_ns();
	fire(w->mode, w->events);
	w->t1 = now_ns();
	return NULL;
}

/* One run: per-thread ns/event (mean over threads) and total Mevents/s. */
static void run_once(enum mode mode, long events, int nthreads,
		    double *ns_per_event, double *mev_per_s)
{
	struct worker w[MAX_THREADS];
	pthread_barrier_t start;
	double first = 0, last = 0, sum = 0;
	int i, err;

	pthread_barrier_init(&start, NULL, nthreads);
	for (i = 0; i < nthreads; i++) {
		w[i].mode = mode;
		w[i].events = events;
		w[i].start = &start;
		err = pthread_create(&w[i].tid, NULL, worker_main, &w[i]);
		if (err) {
			fprintf(stderr, "lt_bench: pthread_create: %s\n",
				strerror(err));
			exit(1);
		}
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(w[i].tid, NULL);
		sum += (w[i].t1 - w[i].t0) / events;
		if (i == 0 || w[i].t0 < first)
			first = w[i].t0;
		if (i == 0 || w[i].t1 > last)
			last = w[i].t1;
	}
	pthread_barrier_destroy(&start);
	*ns_per_event = sum / nthreads;
	*mev_per_s = nthreads * events / (last - first) * 1e3;
}

static double clock_cost(long n)
{
	struct timespec ts;
	double t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return (now_ns() - t0) / n;
}

static double rdtsc_cost(long n)
{
#ifdef HAVE_RDTSC
	volatile unsigned long long sink;
	double t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		sink = __rdtsc();
	(void)sink;
	return (now_ns() - t0) / n;
#else
	(void)n;
	return -1;
#endif
}

static void bench_clock(long events, int runs)
{
	double c[MAX_RUNS], r[MAX_RUNS];
	int i;

	for (i = 0; i < runs; i++) {
		c[i] = clock_cost(events);
		r[i] = rdtsc_cost(events);
	}
	printf("lttng clock clock_gettime_ns=%.1f", median(c, runs));
	if (r[0] < 0)
		printf(" rdtsc_ns=na\n");
	else
		printf(" rdtsc_ns=%.1f\n", median(r, runs));
}

static int tp_enabled(enum mode mode)
{
	if (mode == MODE_STR16)
		return !!lttng_ust_tracepoint_enabled(slimbench, str16);
	return !!lttng_ust_tracepoint_enabled(slimbench, two_int);
}

/*
 * A session enables the tracepoint asynchronously to our start-up; give it
 * five seconds, then insist, so a registration failure cannot pass for a
 * fast tracer (nor a stray session for a slow disabled tracepoint).
 */
static int check_state(enum mode mode)
{
	int tries;

	if (mode == MODE_EMPTY)
		return 0;
	if (mode == MODE_DISABLED) {
		if (!tp_enabled(mode))
			return 0;
		fprintf(stderr, "lt_bench: slimbench:two_int is enabled by "
			"some session; the disabled case needs none\n");
		return -1;
	}
	for (tries = 0; tries < 500; tries++) {
		if (tp_enabled(mode))
			return 0;
		usleep(10000);
	}
	fprintf(stderr, "lt_bench: slimbench:%s still disabled after 5 s: "
		"did the application register with the session daemon?\n",
		mode == MODE_STR16 ? "str16" : "two_int");
	return -1;
}

static int parse_mode(const char *s, enum mode *mode)
{
	size_t i;

	for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++) {
		if (!strcmp(s, mode_names[i])) {
			*mode = i;
			return 0;
		}
	}
	return -EINVAL;
}

static long parse_num(const char *s, const char *what, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 1 || v > max) {
		fprintf(stderr, "lt_bench: bad %s '%s' (1..%ld)\n", what, s, max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	double ns[MAX_RUNS], mev[MAX_RUNS], best;
	enum mode mode;
	long events;
	int runs, nthreads = 1, i;

	if (argc < 4 || argc > 5 || parse_mode(argv[1], &mode)) {
		fprintf(stderr, "usage: lt_bench clock|empty|disabled|2int|str16 "
			"EVENTS RUNS [THREADS]\n");
		return 2;
	}
	events = parse_num(argv[2], "EVENTS", 1000000000L);
	runs = parse_num(argv[3], "RUNS", MAX_RUNS);
	if (argc == 5)
		nthreads = parse_num(argv[4], "THREADS", MAX_THREADS);

	if (mode == MODE_CLOCK) {
		bench_clock(events, runs);
		return 0;
	}
	if (check_state(mode))
		return 3;
	for (i = 0; i < runs; i++)
		run_once(mode, events, nthreads, &ns[i], &mev[i]);
	best = ns[0];
	for (i = 1; i < runs; i++)
		if (ns[i] < best)
			best = ns[i];
	printf("lttng %s %dthr ns_per_event=%.2f ns_per_event_min=%.2f "
	       "mev_per_s=%.2f fired=%ld\n", mode_names[mode], nthreads,
	       median(ns, runs), best, median(mev, runs),
	       events * runs * nthreads);
	return 0;
}
