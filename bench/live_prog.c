// SPDX-License-Identifier: MIT
/*
 * live_prog: the program bench/live_bench.c measures live control on.
 * It turns nothing on by itself: recording comes from its environment
 * (SLIMTRACE_OUTPUT at start-up) or from outside (slimtrace record -p).
 *
 *   live_prog [-s SECONDS] [-r RATE] [-t THREADS]
 *   live_prog -x [-m T0_NS]
 *
 * Waits for a line on standard input, then its threads (2) fire
 * bench_2int (int a; long b: bench/record_events.h) for SECONDS (2),
 * paced together to RATE events per second (0: as fast as they can),
 * prints "fired=N seconds=S" and exits from main, which finishes the
 * recording.  End of input before the line: exits at once, firing
 * nothing (the latency rounds use it idle).
 *
 * -x exits at once, for the start-up figure; with -m, first prints
 * "main_ns=N", the CLOCK_MONOTONIC time at main() less T0_NS (taken by
 * the parent just before exec).
 *
 * LIVE_PROG_FLOOR=1 in the environment: a constructor creates one idle
 * thread (default attributes, blocked in poll() until the exit ends it),
 * the least any thread-based endpoint could cost; the start-up figure
 * runs it with SLIMTRACE_CONTROL=0 as the floor the endpoint is held to.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "paced_worker.h"
#include "record_events.h"

#define MAX_THREADS	8

static double num(const char *s, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < 0) {
		fprintf(stderr, "live_prog: %s '%s': not a number\n", what, s);
		exit(2);
	}
	return v;
}

static void *idle(void *arg)
{
	(void)arg;
	for (;;)
		poll(NULL, 0, -1);
	return NULL;
}

__attribute__((constructor)) static void floor_ctor(void)
{
	const char *v = getenv("LIVE_PROG_FLOOR");
	pthread_t t;

	if (v && strcmp(v, "1") == 0 && pthread_create(&t, NULL, idle, NULL) == 0)
		pthread_detach(t);
}

int main(int argc, char **argv)
{
	double t_main = paced_now_ns(), seconds = 2, rate = 0, t0, t1;
	struct paced_worker w[MAX_THREADS];
	pthread_barrier_t start;
	long nthreads = 2, fired = 0, i;
	const char *t_exec = NULL;
	char line[64];
	int opt, quick = 0, ret;

	while ((opt = getopt(argc, argv, "s:r:t:xm:")) != -1) {
		switch (opt) {
		case 's': seconds = num(optarg, "SECONDS"); break;
		case 'r': rate = num(optarg, "RATE"); break;
		case 't': nthreads = (long)num(optarg, "THREADS"); break;
		case 'x': quick = 1; break;
		case 'm': t_exec = optarg; break;
		default:
			fprintf(stderr, "usage: live_prog [-s SECONDS] [-r RATE] [-t THREADS] | "
				"-x [-m T0_NS]\n");
			return 2;
		}
	}
	if (quick) {
		if (t_exec)
			printf("main_ns=%.0f\n", t_main - num(t_exec, "T0_NS"));
		return 0;
	}
	if (nthreads < 1 || nthreads > MAX_THREADS)
		return 2;
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	pthread_barrier_init(&start, NULL, (unsigned int)nthreads + 1);
	t0 = paced_now_ns();
	for (i = 0; i < nthreads; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].start = &start;
		w[i].deadline = t0 + seconds * 1e9;
		w[i].rate = rate / nthreads;
		ret = pthread_create(&w[i].tid, NULL, paced_worker_main, &w[i]);
		if (ret) {
			fprintf(stderr, "live_prog: pthread_create: %s\n", strerror(ret));
			return 1;
		}
	}
	pthread_barrier_wait(&start);
	t0 = t1 = paced_now_ns();
	for (i = 0; i < nthreads; i++) {
		pthread_join(w[i].tid, NULL);
		fired += w[i].fired;
		if (w[i].t1 > t1)
			t1 = w[i].t1;
	}
	printf("fired=%ld seconds=%.3f\n", fired, (t1 - t0) / 1e9);
	return 0;
}
