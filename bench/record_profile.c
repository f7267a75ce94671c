// SPDX-License-Identifier: MIT
/*
 * record_profile: record_bench's profile mode with the public API only,
 * so that it links against the shared library exactly as a user's
 * program does (pkg-config --libs slimtrace).  `make bench-profile` runs
 * both under callgrind: the record path must cost no more here.
 *
 *   record_profile profile 2int N [TRACE_CLOCK]	(record_bench's, and the clock)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slimtrace/ctl.h>
#include "record_events.h"

static __attribute__((noinline)) void fire_2int(long n)
{
	long i;

	for (i = 0; i < n; i++) {
		trace_bench_2int((int)i, i);
		__asm__ __volatile__("" ::: "memory");
	}
}

int main(int argc, char **argv)
{
	long n;
	int ret;

	if (argc < 4 || argc > 5 || strcmp(argv[1], "profile") != 0 ||
	    strcmp(argv[2], "2int") != 0) {
		fprintf(stderr, "usage: record_profile profile 2int N [TRACE_CLOCK]\n");
		return 2;
	}
	n = atol(argv[3]);
	ret = argc == 5 ? slim_ctl_write("trace_clock", argv[4]) : 0;
	if (ret < 0) {
		fprintf(stderr, "record_profile: trace_clock %s: %s\n", argv[4], strerror(-ret));
		return 1;
	}
	ret = slim_ctl_write("events/bench/bench_2int/enable", "1");
	if (ret < 0) {
		fprintf(stderr, "record_profile: events/bench/bench_2int/enable: %s\n",
			strerror(-ret));
		return 1;
	}
	fire_2int(10);	/* the thread's first event claims its buffer */
	fire_2int(n);
	printf("slim profile ev=2int events=%ld (shared library)\n", n);
	return 0;
}
