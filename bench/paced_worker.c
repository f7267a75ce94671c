// SPDX-License-Identifier: MIT
#include <time.h>

#include "paced_worker.h"
#include "record_events.h"

/* Events between two clock reads: the read costs ~25 ns, an event ~100. */
#define BATCH		64

double paced_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static __attribute__((noinline)) void fire_batch(long base, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		trace_bench_2int(i, base + i);
		__asm__ __volatile__("" ::: "memory");
	}
}

/* Spin until the events fired so far are due: pacing without sleeping. */
static double pace(const struct paced_worker *w, double now)
{
	double due = w->t0 + w->fired * 1e9 / w->rate;

	while (now < due)
		now = paced_now_ns();
	return now;
}

void *paced_worker_main(void *arg)
{
	struct paced_worker *w = arg;
	double now;
	int n;

	pthread_barrier_wait(w->start);
	w->t0 = now = paced_now_ns();
	for (;;) {
		n = BATCH;
		if (w->limit) {
			if (w->fired >= w->limit)
				break;
			if (w->limit - w->fired < n)
				n = (int)(w->limit - w->fired);
		} else if (now >= w->deadline) {
			break;
		}
		fire_batch(w->fired, n);
		w->fired += n;
		now = paced_now_ns();
		if (w->rate > 0)
			now = pace(w, now);
	}
	w->t1 = now;
	return NULL;
}
