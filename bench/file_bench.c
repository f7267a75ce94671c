// SPDX-License-Identifier: MIT
/*
 * file_bench: recording to a trace.dat file, the program behind
 * `make bench-file` (bench/file_bench.sh runs it and reads the files).
 *
 *   file_bench [-k KB] [-s SECONDS | -n EVENTS] [-r RATE] [-t THREADS] PATH
 *
 *   -k KB       buffer_size_kb for every buffer (default: the library's)
 *   -s SECONDS  fire for this long (default 10)
 *   -n EVENTS   instead: fire this many events in all, then stop
 *   -r RATE     pace all threads together to RATE events per second
 *               (default: as fast as they can)
 *   -t THREADS  recording threads (default 2)
 *
 * Each thread fires bench_2int (int a; long b: bench/record_events.h, the
 * shape LTTng's two_int has) between slim_record_start(PATH) and
 * slim_record_stop().  Prints one line:
 *
 *   file fired=N seconds=S stop_seconds=T consumer_cpu_s=C pass_max_ms=M passes=P
 *
 * seconds is the firing time, stop_seconds what slim_record_stop() took
 * (the final drain and the file's assembly); C, M and P are
 * slim_record_get_stats(): the consumer thread's CPU time, its longest pass
 * over the buffers (the longest the buffers went undrained: a stall),
 * and how many passes it made.  What reached the file, and
 * what was lost, is for `slimtrace stat PATH` to say.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slimtrace/ctl.h>
#include <slimtrace/record.h>

#include "paced_worker.h"
#include "record_events.h"

#define MAX_THREADS	8

static void die(const char *what, int err)
{
	fprintf(stderr, "file_bench: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static void ctl(const char *path, const char *text)
{
	int ret = slim_ctl_write(path, text);

	if (ret) {
		char *log = slim_ctl_read("error_log");

		fprintf(stderr, "file_bench: write '%s' to %s: %s\n%s", text,
			path, strerror(-ret), log ? log : "");
		free(log);
		exit(1);
	}
}

static long parse_num(const char *s, const char *what, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > max) {
		fprintf(stderr, "file_bench: %s '%s': want 1..%ld\n", what, s, max);
		exit(2);
	}
	return v;
}

static void usage(void)
{
	fprintf(stderr, "usage: file_bench [-k KB] [-s SECONDS | -n EVENTS] "
		"[-r RATE] [-t THREADS] PATH\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct paced_worker w[MAX_THREADS];
	struct slim_record_stats st;
	pthread_barrier_t start;
	long seconds = 10, events = 0, rate = 0, nthreads = 2, fired = 0;
	const char *kb = NULL;
	double t0, t1, t_stop;
	int opt, ret, i;

	while ((opt = getopt(argc, argv, "k:s:n:r:t:")) != -1) {
		switch (opt) {
		case 'k': parse_num(optarg, "KB", 4194304); kb = optarg; break;
		case 's': seconds = parse_num(optarg, "SECONDS", 3600); break;
		case 'n': events = parse_num(optarg, "EVENTS", 4000000000L); break;
		case 'r': rate = parse_num(optarg, "RATE", 1000000000L); break;
		case 't': nthreads = parse_num(optarg, "THREADS", MAX_THREADS); break;
		default: usage();
		}
	}
	if (optind != argc - 1)
		usage();

	if (kb)
		ctl("buffer_size_kb", kb);
	ctl("events/bench/bench_2int/enable", "1");
	ret = slim_record_start(argv[optind]);
	if (ret)
		die(argv[optind], ret);

	pthread_barrier_init(&start, NULL, (unsigned)nthreads + 1);
	t0 = paced_now_ns();
	for (i = 0; i < nthreads; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].start = &start;
		w[i].deadline = t0 + seconds * 1e9;
		w[i].rate = rate ? (double)rate / nthreads : 0;
		if (events)
			w[i].limit = events / nthreads + (i < events % nthreads);
		ret = pthread_create(&w[i].tid, NULL, paced_worker_main, &w[i]);
		if (ret)
			die("pthread_create", ret);
	}
	pthread_barrier_wait(&start);
	t0 = paced_now_ns();
	t1 = t0;
	for (i = 0; i < nthreads; i++) {
		pthread_join(w[i].tid, NULL);
		fired += w[i].fired;
		if (w[i].t1 > t1)
			t1 = w[i].t1;
	}
	t_stop = paced_now_ns();
	ret = slim_record_stop();
	if (ret)
		die("slim_record_stop", ret);
	t_stop = paced_now_ns() - t_stop;
	/* The consumer's numbers, the final pass (the stop) included. */
	ret = slim_record_get_stats(&st);
	if (ret)
		die("slim_record_get_stats", ret);
	printf("file fired=%ld seconds=%.3f stop_seconds=%.3f consumer_cpu_s=%.3f"
	       " pass_max_ms=%.3f passes=%llu\n", fired, (t1 - t0) / 1e9, t_stop / 1e9,
	       st.consumer_cpu_ns / 1e9, st.pass_max_ns / 1e6, (unsigned long long)st.passes);
	return 0;
}
