// SPDX-License-Identifier: MIT
/*
 * What a trigger with a filter that never fires costs an event: the
 * same enabled event with and without "traceoff if a == -1", in ns per
 * event (median of runs).  Built by make bench; run by hand:
 *   build/bench/trigger_bench
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <slimtrace/ctl.h>
#include "sample_events.h"

#define N	2000000
#define RUNS	7

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double run(void)
{
	double t[RUNS];
	int r, i;

	for (r = 0; r < RUNS; r++) {
		slim_ctl_write("trace", "");
		t[r] = now();
		for (i = 0; i < N; i++)
			trace_sample_first(i, i);
		t[r] = (now() - t[r]) / N;
	}
	qsort(t, RUNS, sizeof(t[0]), cmp);
	return t[RUNS / 2];
}

int main(void)
{
	double plain, trig;

	slim_ctl_write("trace_options", "overwrite");
	slim_ctl_write("events/sample/sample_first/enable", "1");
	plain = run();
	slim_ctl_write("events/sample/sample_first/trigger", "traceoff if a == -1");
	trig = run();
	printf("enabled event:                       %6.1f ns/event\n", plain);
	printf("same, with 'traceoff if a == -1':    %6.1f ns/event (+%.1f)\n",
	       trig, trig - plain);
	return 0;
}
