/* SPDX-License-Identifier: MIT */
/*
 * A thread that fires bench:bench_2int in batches, for a number of
 * events or until a deadline, paced to a rate by spinning on the clock:
 * the firing loop of the file and live-control benches.
 */
#ifndef BENCH_PACED_WORKER_H
#define BENCH_PACED_WORKER_H

#include <pthread.h>

struct paced_worker {
	pthread_t tid;
	long limit;		/* events to fire, or 0: until the deadline */
	double rate;		/* events/s for this thread, or 0: unpaced */
	double deadline;	/* CLOCK_MONOTONIC ns */
	pthread_barrier_t *start;
	long fired;
	double t0, t1;		/* first and last clock read of the loop */
};

double paced_now_ns(void);
/* pthread_create's start routine; ARG is a struct paced_worker. */
void *paced_worker_main(void *arg);

#endif
