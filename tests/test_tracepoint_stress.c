// SPDX-License-Identifier: MIT
/*
 * Probes come and go while other threads fire: nothing a firing thread
 * may still read is freed.  Meant for the ASan and TSan builds, where a
 * use-after-free or a race fails the test; the plain build checks the
 * counts.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include "check.h"
#include "tracepoint/tp_defs.h"

#define FIRERS		2
#define ROUNDS		3000

struct counter {
	long hits;
	long magic;
};

static int stop, started;
static long fired[FIRERS];
static long bad_magic;

static void probe_count(int a, long b, void *data)
{
	struct counter *c = data;

	(void)a;
	(void)b;
	/* Freed memory would show here (ASan) or as a race (TSan). */
	if (__atomic_load_n(&c->magic, __ATOMIC_RELAXED) != 0x5eed)
		__atomic_fetch_add(&bad_magic, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->hits, 1, __ATOMIC_RELAXED);
}

/* Detaches itself from inside the probe: the array it runs from must live on. */
static void probe_self_remove(int a, long b, void *data)
{
	(void)a;
	(void)b;
	unregister_trace_tp_two_data(probe_self_remove, data);
}

static void *firer(void *arg)
{
	long i = (long)arg;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		trace_tp_two((int)i, 1);
		if (!fired[i]++)
			__atomic_fetch_add(&started, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[FIRERS];
	struct counter *c[4];
	int self_data;
	long i, round, hits = 0, reg_errors = 0;

	check_watchdog("tracepoint_stress", 120);
	for (i = 0; i < FIRERS; i++)
		pthread_create(&th[i], NULL, firer, (void *)i);
	/*
	 * The rounds take a few ms when no reader is inside a section:
	 * start them when both firers fire, and go on past ROUNDS until a
	 * probe was hit (a firer's CPU can be away that long on a VM), so
	 * that "hits" tells whether probes run, not how the threads were
	 * scheduled.
	 */
	while (__atomic_load_n(&started, __ATOMIC_RELAXED) < FIRERS)
		sched_yield();
	for (round = 0; round < ROUNDS || (!hits && round < 100 * ROUNDS); round++) {
		for (i = 0; i < 4; i++) {
			c[i] = calloc(1, sizeof(*c[i]));
			c[i]->magic = 0x5eed;
			reg_errors += register_trace_tp_two_data(probe_count, c[i]) != 0;
		}
		if (round % 16 == 0)
			register_trace_tp_two_data(probe_self_remove, &self_data);
		for (i = 0; i < 4; i++) {
			reg_errors += unregister_trace_tp_two_data(probe_count, c[i]) != 0;
			/* After unregister returns, no thread still uses c[i]. */
			hits += __atomic_load_n(&c[i]->hits, __ATOMIC_RELAXED);
			c[i]->magic = 0;
			free(c[i]);
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < FIRERS; i++)
		pthread_join(th[i], NULL);
	unregister_trace_tp_two_data(probe_self_remove, &self_data);

	CHECK_EQ_INT(reg_errors, 0);
	CHECK_EQ_INT(bad_magic, 0);
	CHECK(hits > 0);
	CHECK(!trace_tp_two_enabled());
	CHECK(fired[0] > 0 && fired[1] > 0);
	/* Firing with nothing attached after the end changes nothing. */
	trace_tp_two(0, 0);
	printf("fired %ld + %ld, probe hits %ld over %ld rounds\n",
	       fired[0], fired[1], hits, round);
	return check_done("tracepoint_stress");
}
