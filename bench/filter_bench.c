// SPDX-License-Identifier: MIT
/*
 * What a filter adds to an event: nanoseconds per slim_filter_match() on
 * a record of two ints, for a one-predicate and a five-predicate filter,
 * and on a __data_loc string for a prefix glob and a full glob. Each
 * figure is the median of 15 runs of 2M matches each.
 *
 *   make build/plain/libslimtrace.a
 *   cc -std=gnu11 -O2 -D_GNU_SOURCE -Iinclude -Isrc bench/filter_bench.c \
 *      build/plain/libslimtrace.a -lpthread -ldl -o build/filter_bench && build/filter_bench
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slimtrace/field.h>

#include "filter/filter.h"

#define RUNS	15
#define ITERS	2000000

static const char strings[] = "int\0a\0b\0__data_loc char[]\0s";
static const struct slim_field fields[] = {
	{ 0, 4, 8, 4, 1, SLIM_FILTER_AUTO },	/* int a */
	{ 0, 6, 12, 4, 1, SLIM_FILTER_AUTO },	/* int b */
	{ 8, 26, 16, 4, 0, SLIM_FILTER_AUTO },	/* __data_loc char[] s */
};
static const struct slim_field_table table = { strings, fields, 3, 20 };

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

/* Median ns per match; *hits keeps the loop from being thrown away. */
static double bench(const struct slim_filter *f, const void *rec, unsigned int len,
		    long *hits)
{
	struct slim_filter_ctx ctx = { "bench", 0 };
	double t[RUNS];
	int r;

	for (r = 0; r < RUNS; r++) {
		double t0 = now_ns();
		long i, n = 0;

		for (i = 0; i < ITERS; i++)
			n += f ? slim_filter_match(f, rec, len, &ctx) : 1;
		t[r] = (now_ns() - t0) / ITERS;
		*hits += n;
	}
	qsort(t, RUNS, sizeof(t[0]), cmp_double);
	return t[RUNS / 2];
}

static void run(const char *label, const char *expr, const void *rec,
		unsigned int len, double base, long *hits)
{
	struct slim_filter *f;
	struct slim_filter_error err;
	double ns;

	if (slim_filter_compile(&table, expr, &f, &err)) {
		fprintf(stderr, "%s: %s at %d\n", expr, err.msg, err.pos);
		exit(1);
	}
	ns = bench(f, rec, len, hits);
	printf("%-14s %6.2f ns/match  (%5.2f over the empty loop)  %s\n",
	       label, ns, ns - base, expr);
	slim_filter_free(f);
}

int main(void)
{
	unsigned char rec[64];
	struct slim_trace_entry ent = { 1, 0, 0, 1234 };
	int32_t a = 5, b = 42;
	const char *s = "nginx-worker";
	uint32_t loc = (uint32_t)((strlen(s) + 1) << 16) | 20;
	unsigned int len = 20 + (unsigned int)strlen(s) + 1;
	long hits = 0;
	double base;

	memcpy(rec, &ent, sizeof(ent));
	memcpy(rec + 8, &a, 4);
	memcpy(rec + 12, &b, 4);
	memcpy(rec + 16, &loc, 4);
	memcpy(rec + 20, s, strlen(s) + 1);

	base = bench(NULL, rec, len, &hits);
	printf("%-14s %6.2f ns/iteration\n", "empty loop", base);
	run("1 predicate", "a == 5", rec, len, base, &hits);
	run("5 predicates", "a == 5 && b > 3 && a != 7 && b < 100 && common_pid > 0",
	    rec, len, base, &hits);
	run("prefix glob", "s ~ \"ngin*\"", rec, len, base, &hits);
	run("full glob", "s ~ \"n?in[x-z]-*er\"", rec, len, base, &hits);
	return hits == 0;
}
