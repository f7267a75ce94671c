// SPDX-License-Identifier: MIT
/*
 * A running program for the live-control tests and benchmarks: threads
 * fire events until the time is up, a signal arrives or its input
 * closes.  Nothing here turns tracing on: that is done from outside.
 *
 *   live_target [-t THREADS] [-i USECS] [-d SECONDS] [-F] [-E] [-K]
 *
 *   -t  threads firing (default 1)
 *   -i  pause between rounds of events, in microseconds (default 1000;
 *       0 fires as fast as it can: the benchmark)
 *   -d  stop after this long and exit from main (default: never)
 *   -F  fork first: parent and child both fire
 *   -E  stop when standard input reaches its end
 *   -K  at the end, drain what is recorded (slim_record_sync) and die by
 *       SIGKILL: a recording left unfinished
 *   -L  fork this many milliseconds after starting: the child (which
 *       prints its "pid N" then) fires with threads of its own, its
 *       parent's settings, instances included, copied into it
 *
 * Built with -DLIVE_TARGET_EXTRA (live_target_extra) it has one more
 * event, live_extra, and every other event under another id.
 *
 * It prints "pid N" when its threads run, and at exit, on stderr, how
 * many rounds each process fired ("fired N").
 */
#define CREATE_TRACE_POINTS
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include <slimtrace/record.h>
#include "target_events.h"

static int interval_us = 1000;
static volatile int stop;
static unsigned long long fired[64];

static void *fire(void *arg)
{
	long t = (long)arg;
	unsigned long long n = 0;
	struct timespec ts = { 0, interval_us * 1000L };

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		trace_live_tick((int)t, (int)n);
#ifdef LIVE_TARGET_EXTRA
		trace_live_extra((int)n);
#endif
		if (interval_us) {
			trace_live_parse((int)n, (long)(n % 20));
			trace_live_reply((int)n, (long)(n % 7) * 3);
			if (n % 16 == 0)
				trace_live_msg("sixteen rounds");
			nanosleep(&ts, NULL);
		}
		n++;
	}
	fired[t] = n;
	return NULL;
}

static void wait_end(double seconds, int on_eof)
{
	struct pollfd p = { 0, POLLIN, 0 };
	long long left = seconds > 0 ? (long long)(seconds * 1000) : -1;
	char buf[256];

	while (left != 0) {
		int step = left < 0 || left > 100 ? 100 : (int)left;

		if (on_eof && poll(&p, 1, step) > 0) {
			if (read(0, buf, sizeof(buf)) <= 0)
				return;
		} else if (!on_eof) {
			poll(NULL, 0, step);
		}
		if (left > 0)
			left -= step;
	}
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	unsigned long long total = 0;
	double seconds = 0;
	int threads = 1, do_fork = 0, on_eof = 0, killed = 0, late_ms = 0, c;
	long i;

	while ((c = getopt(argc, argv, "t:i:d:FEKL:")) != -1) {
		switch (c) {
		case 't':
			threads = atoi(optarg);
			break;
		case 'i':
			interval_us = atoi(optarg);
			break;
		case 'd':
			seconds = atof(optarg);
			break;
		case 'F':
			do_fork = 1;
			break;
		case 'E':
			on_eof = 1;
			break;
		case 'K':
			killed = 1;
			break;
		case 'L':
			late_ms = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (threads < 1 || threads > 64)
		return 2;
	if (do_fork) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		/* The child goes with its parent: a test kills only the one it started. */
		if (pid == 0)
			prctl(PR_SET_PDEATHSIG, SIGTERM);
	}
	for (i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, fire, (void *)i);
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	if (late_ms > 0) {
		pid_t pid;

		wait_end(late_ms / 1000.0, 0);
		seconds = seconds > late_ms / 1000.0 ? seconds - late_ms / 1000.0 : seconds;
		fflush(NULL);
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			/* The threads stayed with the parent: the child starts its own. */
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			for (i = 0; i < threads; i++)
				pthread_create(&th[i], NULL, fire, (void *)i);
			printf("pid %d\n", (int)getpid());
			fflush(stdout);
		}
	}
	wait_end(seconds, on_eof);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < threads; i++) {
		pthread_join(th[i], NULL);
		total += fired[i];
	}
	fprintf(stderr, "fired %llu\n", total);
	if (killed) {
		slim_record_sync();
		raise(SIGKILL);
	}
	return 0;
}
