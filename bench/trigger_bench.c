// SPDX-License-Identifier: MIT
/*
 * What a trigger with a filter that never fires costs an event: the
 * same enabled event with and without "traceoff if a == -1", in ns per
 * event (median of runs), and through bench/trigger_ir.sh in
 * callgrind instructions.  Run by make bench (make bench-trigger).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/*
 * trigger_bench plain|trigger N: one phase of N events, untimed, for
 * callgrind (bench/trigger_ir.sh: the difference of the two phases'
 * instructions, over N, is what the trigger adds to an event).
 */
static int one_phase(const char *mode, long n)
{
	long i;

	if (strcmp(mode, "plain") && strcmp(mode, "trigger"))
		return 2;
	if (!strcmp(mode, "trigger"))
		slim_ctl_write("events/sample/sample_first/trigger", "traceoff if a == -1");
	for (i = 0; i < n; i++)
		trace_sample_first((int)i, (int)i);
	return 0;
}

int main(int argc, char **argv)
{
	double plain, trig;

	slim_ctl_write("trace_options", "overwrite");
	slim_ctl_write("events/sample/sample_first/enable", "1");
	if (argc == 3)
		return one_phase(argv[1], atol(argv[2]));
	plain = run();
	slim_ctl_write("events/sample/sample_first/trigger", "traceoff if a == -1");
	trig = run();
	printf("enabled event:                       %6.1f ns/event\n", plain);
	printf("same, with 'traceoff if a == -1':    %6.1f ns/event (+%.1f)\n",
	       trig, trig - plain);
	return 0;
}
