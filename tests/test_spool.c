// SPDX-License-Identifier: MIT
/*
 * The recorder's spool (src/record/spool.c): pages of several CPUs, given
 * in one order, reach the sink in that order per CPU, whole, through the
 * writer thread while it is slow (the pool wraps, the filler waits for
 * room), written at once without a thread, after a halt (a fatal signal
 * handler's way), and a write error is kept and stops the rest.
 * Under a watchdog: a lost wake-up would hang.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "check.h"
#include "record/rec.h"

#define PG	SLIM_PAGE_SIZE
#define NCPU	3
#define MAX_PAGES	200000

/* ---- a sink that checks what it is given ---- */

static uint64_t seen[NCPU];		/* pages of each CPU, in order */
static int out_of_order, calls, pieces, slow_every, fail_at = -1;
static struct timespec slow = { 0, 2000000 };

static int check_pages(struct rec_sink *s, int cpu, const struct iovec *iov, int nr)
{
	const unsigned char *p;
	uint64_t tag;
	size_t n;

	(void)s;
	if (calls++ == fail_at)
		return -ENOSPC;
	if (slow_every && calls % slow_every == 0)
		nanosleep(&slow, NULL);
	pieces += nr;
	for (; nr--; iov++) {
		p = iov->iov_base;
		for (n = iov->iov_len / PG; n--; p += PG) {
			memcpy(&tag, p, sizeof(tag));
			if (cpu < 0 || cpu >= NCPU || tag != ((uint64_t)cpu << 40 | seen[cpu]))
				out_of_order++;
			else
				seen[cpu]++;
		}
	}
	return 0;
}

static const struct rec_sink_ops check_ops = { .name = "check", .page = check_pages };
static struct rec_sink sink = { .ops = &check_ops };
static struct rec_spool sp;
static uint64_t given[NCPU];

static void reset(void)
{
	memset(seen, 0, sizeof(seen));
	memset(given, 0, sizeof(given));
	out_of_order = calls = pieces = slow_every = 0;
	fail_at = -1;
}

/* n pages of cpu, tagged with their place in that CPU's sequence. */
static int give(int cpu, uint32_t n)
{
	unsigned char *p = rec_spool_reserve(&sp);
	uint64_t tag;
	uint32_t i;

	if (!p)
		return -EIO;
	for (i = 0; i < n; i++) {
		tag = (uint64_t)cpu << 40 | given[cpu]++;
		memcpy(p + (size_t)i * PG, &tag, sizeof(tag));
	}
	return rec_spool_put(&sp, cpu, n);
}

static int all_seen(void)
{
	int i, ok = 1;

	for (i = 0; i < NCPU; i++)
		ok &= seen[i] == given[i];
	return ok;
}

/* Through a slow writer: the pool wraps many times, records are merged. */
static void test_threaded(void)
{
	uint64_t total = 0;
	int i, records = 0, ret = 0;

	reset();
	slow_every = 16;
	CHECK_EQ_INT(rec_spool_init(&sp, &sink), 0);
	CHECK_EQ_INT(rec_spool_start(&sp), 0);
	for (i = 0; total < MAX_PAGES && !ret; i++) {
		uint32_t n = 1 + (uint32_t)(rand() % REC_BATCH);

		ret = give(i % NCPU, n);
		total += n;
		records++;
	}
	CHECK_EQ_INT(ret, 0);
	CHECK_EQ_INT(rec_spool_sync(&sp), 0);
	CHECK(all_seen());
	CHECK_EQ_INT(rec_spool_stop(&sp), 0);
	CHECK_EQ_INT(out_of_order, 0);
	CHECK(total > 4 * REC_SPOOL_PAGES);	/* wrapped */
	CHECK(calls < records);			/* one CPU's records in one call */
	rec_spool_free(&sp);
}

/* No writer thread: each record is written when it is given. */
static void test_direct(void)
{
	int ok = 1, i;

	reset();
	CHECK_EQ_INT(rec_spool_init(&sp, &sink), 0);
	for (i = 0; i < 3 * REC_SPOOL_PAGES / REC_BATCH; i++) {
		ok &= give(i % NCPU, REC_BATCH) == 0;
		ok &= all_seen();
	}
	CHECK(ok);
	CHECK_EQ_INT(out_of_order, 0);
	CHECK_EQ_INT(rec_spool_stop(&sp), 0);
	rec_spool_free(&sp);
}

/* A halt while the writer is in a slow write: the rest in order, here. */
static void test_halt(void)
{
	int ok = 1, i;

	reset();
	slow_every = 1;
	slow.tv_nsec = 20000000;
	CHECK_EQ_INT(rec_spool_init(&sp, &sink), 0);
	CHECK_EQ_INT(rec_spool_start(&sp), 0);
	for (i = 0; i < 40; i++)
		ok &= give(i % NCPU, 5) == 0;
	rec_spool_halt(&sp);
	CHECK(all_seen());
	/* From now on written at once, as in a handler. */
	for (i = 0; i < 10; i++) {
		ok &= give(i % NCPU, 3) == 0;
		ok &= all_seen();
	}
	CHECK(ok);
	CHECK_EQ_INT(out_of_order, 0);
	CHECK_EQ_INT(rec_spool_stop(&sp), 0);
	slow.tv_nsec = 2000000;
	rec_spool_free(&sp);
}

/* A write that fails: the error is kept, reservations end, nothing hangs. */
static void test_error(void)
{
	int i, ret = 0;

	reset();
	fail_at = 2;
	CHECK_EQ_INT(rec_spool_init(&sp, &sink), 0);
	CHECK_EQ_INT(rec_spool_start(&sp), 0);
	for (i = 0; i < 4 * REC_SPOOL_PAGES / REC_BATCH && !ret; i++)
		ret = give(i % NCPU, REC_BATCH);
	CHECK_EQ_INT(rec_spool_sync(&sp), -ENOSPC);
	CHECK_EQ_INT(rec_spool_err(&sp), -ENOSPC);
	CHECK(rec_spool_reserve(&sp) == NULL);
	CHECK_EQ_INT(rec_spool_stop(&sp), -ENOSPC);
	CHECK(calls >= 3);
	rec_spool_free(&sp);
}

int main(void)
{
	check_watchdog("spool", 120);
	srand(12345);
	test_threaded();
	test_direct();
	test_halt();
	test_error();
	return check_done("spool");
}
