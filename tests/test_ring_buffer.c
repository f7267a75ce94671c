// SPDX-License-Identifier: MIT
/*
 * Ring buffer: page encoding (checked by a decoder written here from the
 * kernel's documented format, not the library's), lost accounting in both
 * modes, discard, nested reservations, time extends, payload limits, and a
 * writer racing a reader of each kind with exact accounting.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ring/ring_buffer.h"

/* ---- an independent decoder of one kernel ring-buffer page ---- */

#define PG_SIZE		4096
#define PG_DATA		16
#define MISSED		(1ull << 31)
#define STORED		(1ull << 30)

struct dec_ev {
	const unsigned char *payload;
	unsigned int len;
	uint64_t ts;
};

struct dec_page {
	uint64_t ts;
	uint64_t size;		/* commit without flags */
	int missed, stored;
	uint64_t missed_count;
	int nr;			/* data events */
	int extends;		/* time-extend events */
	struct dec_ev ev[512];
};

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Returns 0, or -1 (with a message) if the page breaks the format. */
static int decode_page(const unsigned char *page, struct dec_page *d)
{
	const unsigned char *data = page + PG_DATA;
	uint64_t commit = get64(page + 8);
	uint64_t pos = 0, ts = get64(page);

	memset(d, 0, sizeof(*d));
	d->ts = ts;
	d->missed = !!(commit & MISSED);
	d->stored = !!(commit & STORED);
	d->size = commit & ~(MISSED | STORED);
	if (d->size > PG_SIZE - PG_DATA) {
		fprintf(stderr, "decode: commit %llu too large\n", (unsigned long long)commit);
		return -1;
	}
	while (pos < d->size) {
		uint32_t h = get32(data + pos);
		unsigned int type = h & 0x1f;
		uint32_t delta = h >> 5;
		uint32_t arr = pos + 8 <= d->size ? get32(data + pos + 4) : 0;

		if (type == 0) {		/* length word, then payload */
			if (arr < 4 || pos + 4 + arr > d->size)
				return -1;
			ts += delta;
			d->ev[d->nr].payload = data + pos + 8;
			d->ev[d->nr].len = arr - 4;
			d->ev[d->nr].ts = ts;
			d->nr++;
			pos += 4 + ((arr + 3) & ~3u);
		} else if (type <= 28) {	/* type * 4 bytes of payload */
			ts += delta;
			d->ev[d->nr].payload = data + pos + 4;
			d->ev[d->nr].len = type * 4;
			d->ev[d->nr].ts = ts;
			d->nr++;
			pos += 4 + type * 4;
		} else if (type == 29) {	/* padding */
			if (delta == 0)
				break;
			ts += delta;
			pos += 4 + arr;
		} else if (type == 30) {	/* time extend */
			ts += ((uint64_t)arr << 27) + delta;
			d->extends++;
			pos += 8;
		} else {			/* absolute time stamp */
			ts = ((uint64_t)arr << 27) | delta;
			pos += 8;
		}
		if (d->nr >= 512)
			return -1;
	}
	if (pos > d->size) {
		fprintf(stderr, "decode: event runs past commit\n");
		return -1;
	}
	if (d->stored)
		d->missed_count = get64(data + d->size);
	return 0;
}

/*
 * If tracefs is readable, the running kernel's own description of its pages
 * and event headers must agree with ours.  Skipped (no checks) without it.
 */
static int read_text(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, size - 1, f);
	buf[n] = 0;
	fclose(f);
	return n ? 0 : -1;
}

static void test_kernel_headers(void)
{
	char page[2048], event[2048], want[128];

	if (read_text("/sys/kernel/tracing/events/header_page", page, sizeof(page)) ||
	    read_text("/sys/kernel/tracing/events/header_event", event, sizeof(event)))
		return;
	CHECK(strstr(page, "u64 timestamp;\toffset:0;\tsize:8;"));
	CHECK(strstr(page, "commit;\toffset:8;\tsize:8;"));
	snprintf(want, sizeof(want), "char data;\toffset:%zu;\tsize:%u;",
		 offsetof(struct slim_rb_page, data), SLIM_RB_DATA_SIZE);
	CHECK(strstr(page, want));
	CHECK(strstr(event, "type_len    :    5 bits"));
	snprintf(want, sizeof(want), "time_delta  :   %u bits", SLIM_RB_DELTA_BITS);
	CHECK(strstr(event, want));
	snprintf(want, sizeof(want), "padding     : type == %u", SLIM_RB_TYPE_PADDING);
	CHECK(strstr(event, want));
	snprintf(want, sizeof(want), "time_extend : type == %u", SLIM_RB_TYPE_TIME_EXTEND);
	CHECK(strstr(event, want));
	snprintf(want, sizeof(want), "data max type_len  == %u", SLIM_RB_TYPE_DATA_MAX);
	CHECK(strstr(event, want));
}

/* ---- payloads that check themselves ---- */

#define PLEN	24

static void fill(void *p, unsigned int len, uint64_t seq)
{
	unsigned char *b = p;
	unsigned int i;

	if (len >= 8) {
		memcpy(b, &seq, 8);
		for (i = 8; i < len; i++)
			b[i] = (unsigned char)(seq * 31 + i);
	} else {
		for (i = 0; i < len; i++)
			b[i] = (unsigned char)(seq * 31 + i);
	}
}

/* Returns the sequence number, or -1 if the payload is damaged. */
static int64_t verify(const void *p, unsigned int len)
{
	const unsigned char *b = p;
	uint64_t seq;
	unsigned int i;

	if (len < 8)
		return -1;
	memcpy(&seq, b, 8);
	for (i = 8; i < len; i++)
		if (b[i] != (unsigned char)(seq * 31 + i))
			return -1;
	return (int64_t)seq;
}

/* Does p hold what fill() wrote? */
static int same(const void *p, unsigned int len, uint64_t seq)
{
	unsigned char want[SLIM_RB_MAX_PAYLOAD];

	fill(want, len, seq);
	return memcmp(p, want, len) == 0;
}

static unsigned int round4(unsigned int n)
{
	return (n + 3) & ~3u;
}

/* The kernel's layout: a 4-byte header up to 112 bytes, else a length word too. */
#define EV_BYTES	(PLEN + 4)	/* a PLEN payload's event */
#define PER_PAGE	(4080 / EV_BYTES)

static int record(struct slim_rb *rb, unsigned int len, uint64_t ts, uint64_t seq)
{
	void *p = slim_rb_reserve(rb, len, ts);

	if (!p)
		return 0;
	fill(p, len, seq);
	slim_rb_commit(rb);
	return 1;
}

static void check_invariant(struct slim_rb *rb)
{
	struct slim_rb_stats st;

	slim_rb_stats(rb, &st);
	CHECK_EQ_INT(st.written, st.entries + st.overwritten + st.consumed);
	CHECK_EQ_INT(st.lost, st.overwritten + st.dropped);
}

/* Events left in the buffer, counted by walking it without consuming. */
static uint64_t iter_count(struct slim_rb *rb, int64_t *first, int64_t *last)
{
	struct slim_rb_iter it;
	const void *p;
	unsigned int len;
	uint64_t ts, n = 0;
	int64_t seq, prev = -1;
	int bad = 0;

	CHECK_EQ_INT(slim_rb_iter_start(rb, &it), 0);
	while (slim_rb_iter_next(&it, &p, &len, &ts)) {
		seq = verify(p, len);
		if (seq <= prev)
			bad++;
		if (!n && first)
			*first = seq;
		prev = seq;
		n++;
	}
	slim_rb_iter_end(&it);
	if (last)
		*last = prev;
	CHECK_EQ_INT(bad, 0);
	return n;
}

/* ---- single-threaded tests ---- */

static void test_encoding(void)
{
	static const unsigned int lens[] = { 0, 1, 4, 8, 12, 24, 100, 112, 113, 200, 1000, 3000 };
	unsigned int n = sizeof(lens) / sizeof(lens[0]), i, got = 0, pages = 0;
	static unsigned char page[PG_SIZE];
	struct slim_rb *rb = slim_rb_create(8, 0);
	struct dec_page d;
	int misaligned = 0;

	for (i = 0; i < n; i++) {
		void *p = slim_rb_reserve(rb, lens[i], 1000 + 10 * i);

		CHECK(p != NULL);
		if ((uintptr_t)p & 3)
			misaligned++;
		fill(p, lens[i], i);
		slim_rb_commit(rb);
	}
	CHECK_EQ_INT(misaligned, 0);
	CHECK_EQ_INT(slim_rb_read_page(rb, page, 1), 1);	/* 3000 did not fit */

	/*
	 * Raw bits of the first events: an empty payload takes a word, as
	 * in the kernel (type_len 1, delta 0); one of 1 byte type_len 1,
	 * delta 10; 113 bytes type_len 0 and a length word of 4 + 116.
	 */
	CHECK_EQ_INT(get64(page), 1000);
	CHECK_EQ_INT(get32(page + 16) & 0x1f, 1);
	CHECK_EQ_INT(get32(page + 16) >> 5, 0);
	CHECK_EQ_INT(get32(page + 24) & 0x1f, 1);
	CHECK_EQ_INT(get32(page + 24) >> 5, 10);
	{
		/* 0, 1, 4, 8, 12, 24, 100, 112: 8 + 8 + 8 + 12 + 16 + 28 + 104 + 116 */
		const unsigned char *e113 = page + 16 + 300;

		CHECK_EQ_INT(get32(e113) & 0x1f, 0);
		CHECK_EQ_INT(get32(e113 + 4), 4 + 116);
	}
	do {
		CHECK_EQ_INT(decode_page(page, &d), 0);
		CHECK(d.size % 4 == 0);
		for (int k = 0; k < d.nr; k++, got++) {
			CHECK_EQ_INT(d.ev[k].len, lens[got] ? round4(lens[got]) : 4);
			CHECK_EQ_INT(d.ev[k].ts, 1000 + 10 * got);
			CHECK(same(d.ev[k].payload, lens[got], got));
		}
		pages++;
	} while (slim_rb_read_page(rb, page, 0) == 1);
	CHECK_EQ_INT(got, n);
	CHECK_EQ_INT(pages, 2);
	check_invariant(rb);
	slim_rb_destroy(rb);
}

static void test_time(void)
{
	/* deltas: fits, largest that fits, one more, huge, backwards, enormous */
	static const uint64_t ts[] = {
		5, 9, 9 + (1u << 27) - 1, 9 + (2u << 27) - 1, 1ull << 40,
		(1ull << 40) + 3, (1ull << 40) + 1, (1ull << 58), (1ull << 62), (1ull << 62) + 7,
	};
	/* what is recorded: backwards time is clamped to the previous stamp */
	static const uint64_t want[] = {
		5, 9, 9 + (1u << 27) - 1, 9 + (2u << 27) - 1, 1ull << 40,
		(1ull << 40) + 3, (1ull << 40) + 3, (1ull << 58), (1ull << 62), (1ull << 62) + 7,
	};
	unsigned int n = sizeof(ts) / sizeof(ts[0]), i, got = 0, extends = 0, pages = 0;
	static unsigned char page[PG_SIZE];
	struct slim_rb *rb = slim_rb_create(4, 1);
	struct dec_page d;
	uint64_t t;
	unsigned int len;

	for (i = 0; i < n; i++)
		CHECK(record(rb, PLEN, ts[i], i));
	/* the iterator and peek see the same times */
	{
		struct slim_rb_iter it;
		const void *p;

		slim_rb_iter_start(rb, &it);
		for (i = 0; slim_rb_iter_next(&it, &p, &len, &t); i++)
			CHECK_EQ_INT(t, want[i]);
		slim_rb_iter_end(&it);
		CHECK_EQ_INT(i, n);
		CHECK_EQ_INT(slim_rb_peek(rb, &len, &t), 1);
		CHECK_EQ_INT(t, want[0]);
	}
	while (slim_rb_read_page(rb, page, 0) == 1) {
		CHECK_EQ_INT(decode_page(page, &d), 0);
		for (int k = 0; k < d.nr; k++, got++) {
			CHECK_EQ_INT(d.ev[k].ts, want[got]);
			CHECK_EQ_INT(verify(d.ev[k].payload, d.ev[k].len), got);
		}
		extends += d.extends;
		pages++;
	}
	CHECK_EQ_INT(got, n);
	/* deltas of 2^27, ~2^40 and ~2^58 need an extend; ~2^62 a new page */
	CHECK_EQ_INT(extends, 3);
	CHECK_EQ_INT(pages, 2);
	slim_rb_destroy(rb);
}

/*
 * A stamp far behind the last (another trace clock, 170 ms behind on a
 * KVM guest for mono_raw against mono) starts a page at its own time; a
 * small step back (a counter read on another CPU) is clamped.
 */
static void test_clock_changed(void)
{
	static const uint64_t base = 1000000000ull;
	static const uint64_t ts[] = {
		base, base + 100, base + 100 - 500000,		/* 0.5 ms back: clamped */
		base - 170000000, base - 170000000 + 10,	/* 170 ms back: a new page */
	};
	static const uint64_t want[] = {
		base, base + 100, base + 100, base - 170000000, base - 170000000 + 10,
	};
	unsigned int n = sizeof(ts) / sizeof(ts[0]), i, got = 0, pages = 0;
	static unsigned char page[PG_SIZE];
	struct slim_rb *rb = slim_rb_create(4, 1);
	struct dec_page d;

	for (i = 0; i < n; i++)
		CHECK(record(rb, PLEN, ts[i], i));
	while (slim_rb_read_page(rb, page, 0) == 1) {
		CHECK_EQ_INT(decode_page(page, &d), 0);
		for (int k = 0; k < d.nr && got < n; k++, got++)
			CHECK_EQ_INT(d.ev[k].ts, want[got]);
		pages++;
	}
	CHECK_EQ_INT(got, n);
	CHECK_EQ_INT(pages, 2);
	slim_rb_destroy(rb);
}

static void test_drop_mode(void)
{
	struct slim_rb *rb = slim_rb_create(4, 0);
	struct slim_rb_stats st;
	uint64_t fired = 2000, rec = 0, i, n;
	int64_t first, last;
	unsigned char buf[64];
	unsigned int len;
	uint64_t ts;

	for (i = 0; i < fired; i++)
		rec += record(rb, PLEN, i, i);
	slim_rb_stats(rb, &st);
	CHECK(rec < fired);
	CHECK_EQ_INT(st.written, rec);
	CHECK_EQ_INT(st.dropped, fired - rec);
	CHECK_EQ_INT(st.overwritten, 0);
	CHECK_EQ_INT(st.entries + st.lost, fired);
	/* 4 pages of 145 events of 28 bytes */
	CHECK_EQ_INT(rec, 4 * PER_PAGE);
	n = iter_count(rb, &first, &last);
	CHECK_EQ_INT(n, st.entries);
	CHECK_EQ_INT(first, 0);				/* drop mode keeps the oldest */
	CHECK_EQ_INT(last, (int64_t)rec - 1);
	check_invariant(rb);

	/* consuming frees pages for the writer */
	for (i = 0; i < 200; i++) {
		CHECK_EQ_INT(slim_rb_consume(rb, buf, sizeof(buf), &len, &ts), 1);
		CHECK_EQ_INT(verify(buf, len), i);
		CHECK_EQ_INT(ts, i);
	}
	CHECK(record(rb, PLEN, fired, fired));
	slim_rb_stats(rb, &st);
	CHECK_EQ_INT(st.consumed, 200);
	CHECK_EQ_INT(st.entries, rec - 200 + 1);
	check_invariant(rb);
	slim_rb_destroy(rb);
}

static void test_overwrite_mode(void)
{
	struct slim_rb *rb = slim_rb_create(4, 1);
	struct slim_rb_stats st;
	uint64_t fired = 2000, rec = 0, i, n, consumed = 0;
	int64_t first, last;
	unsigned char buf[64];
	unsigned int len;
	uint64_t ts;

	for (i = 0; i < fired; i++)
		rec += record(rb, PLEN, i, i);
	slim_rb_stats(rb, &st);
	CHECK_EQ_INT(rec, fired);
	CHECK_EQ_INT(st.dropped, 0);
	CHECK_EQ_INT(st.entries + st.lost, fired);
	n = iter_count(rb, &first, &last);
	CHECK_EQ_INT(n, st.entries);
	CHECK_EQ_INT(last, (int64_t)fired - 1);		/* overwrite keeps the newest */
	CHECK_EQ_INT(first, (int64_t)(fired - n));
	check_invariant(rb);

	/* consume part of the oldest page, then let the writer overwrite it:
	 * only the unread part may count as lost */
	for (i = 0; i < 10; i++, consumed++) {
		CHECK_EQ_INT(slim_rb_consume(rb, buf, sizeof(buf), &len, &ts), 1);
		CHECK_EQ_INT(verify(buf, len), first + (int64_t)i);
	}
	for (i = fired; i < fired + 300; i++)
		CHECK(record(rb, PLEN, i, i));
	fired += 300;
	slim_rb_stats(rb, &st);
	CHECK_EQ_INT(st.consumed, consumed);
	n = iter_count(rb, &first, &last);
	CHECK_EQ_INT(n, st.entries);
	CHECK_EQ_INT(n + st.lost + consumed, fired);
	CHECK_EQ_INT(last, (int64_t)fired - 1);
	/* the reader follows the writer past what was overwritten */
	CHECK_EQ_INT(slim_rb_consume(rb, buf, sizeof(buf), &len, &ts), 1);
	CHECK_EQ_INT(verify(buf, len), first);
	check_invariant(rb);
	slim_rb_destroy(rb);
}

/*
 * A discarded event that needed a time extend leaves the extend: the
 * next event's delta is small again, and its time still right.
 */
static void test_discard_keeps_extend(void)
{
	static unsigned char page[PG_SIZE];
	struct slim_rb *rb = slim_rb_create(4, 0);
	uint64_t far = 100 + 3ull * SLIM_RB_DELTA_MAX;
	struct dec_page d;
	uint32_t off;
	void *p;

	CHECK(record(rb, PLEN, 100, 1));
	off = rb->w.off;
	p = slim_rb_reserve(rb, PLEN, far);
	CHECK(p != NULL);
	slim_rb_discard(rb);
	CHECK_EQ_INT(rb->w.off, off + 8);
	CHECK_EQ_INT(rb->w.ts, far);
	CHECK(record(rb, PLEN, far + 10, 2));
	CHECK_EQ_INT(rb->w.off, off + 8 + slim_rb_event_size(PLEN));
	CHECK_EQ_INT(slim_rb_read_page(rb, page, 0), 1);
	CHECK_EQ_INT(decode_page(page, &d), 0);
	CHECK_EQ_INT(d.nr, 2);
	CHECK_EQ_INT(d.ev[0].ts, 100);
	CHECK_EQ_INT(d.ev[1].ts, far + 10);
	CHECK_EQ_INT(verify(d.ev[1].payload, d.ev[1].len), 2);
	slim_rb_destroy(rb);
}

static void test_discard_nested_limits(void)
{
	static unsigned char page[PG_SIZE];
	struct slim_rb *rb = slim_rb_create(4, 0);
	struct slim_rb_stats st;
	struct dec_page d;
	unsigned int i, fill_n = PER_PAGE;
	void *p, *q;

	/* discard: nothing recorded, nothing lost, time chain intact */
	p = slim_rb_reserve(rb, PLEN, 100);
	CHECK(p != NULL);
	slim_rb_discard(rb);
	CHECK(record(rb, PLEN, 150, 1));
	/* nested: the second reservation is refused and counted */
	p = slim_rb_reserve(rb, PLEN, 200);
	q = slim_rb_reserve(rb, PLEN, 201);
	CHECK(p != NULL);
	CHECK(q == NULL);
	fill(p, PLEN, 2);
	slim_rb_commit(rb);
	/* fill the page, then discard the event that started a new page */
	for (i = 3; i < fill_n + 1; i++)
		CHECK(record(rb, PLEN, 200 + i, i));
	p = slim_rb_reserve(rb, PLEN, 1000);
	CHECK(p != NULL);
	slim_rb_discard(rb);
	CHECK(record(rb, PLEN, 1005, 500));
	/* limits: the largest payload fits a page alone, one more byte never */
	CHECK(slim_rb_reserve(rb, SLIM_RB_MAX_PAYLOAD + 1, 1010) == NULL);
	CHECK(slim_rb_reserve(rb, ~0u, 1010) == NULL);
	CHECK(record(rb, SLIM_RB_MAX_PAYLOAD, 1020, 501));

	slim_rb_stats(rb, &st);
	CHECK_EQ_INT(st.written, fill_n + 2);
	CHECK_EQ_INT(st.dropped, 3);			/* nested + two too big */

	CHECK_EQ_INT(slim_rb_read_page(rb, page, 1), 1);
	CHECK_EQ_INT(decode_page(page, &d), 0);
	CHECK_EQ_INT(d.missed, 0);	/* refused events are not "missed" pages */
	CHECK_EQ_INT(d.nr, fill_n);
	/* The discarded first event's stamp stays the page's: times count from it. */
	CHECK_EQ_INT(d.ts, 100);
	CHECK_EQ_INT(d.ev[0].ts, 150);
	for (i = 0; i < fill_n; i++)
		CHECK_EQ_INT(verify(d.ev[i].payload, d.ev[i].len), i + 1);
	CHECK_EQ_INT(d.ev[1].ts, 200);
	CHECK_EQ_INT(slim_rb_read_page(rb, page, 1), 1);
	CHECK_EQ_INT(decode_page(page, &d), 0);
	CHECK_EQ_INT(d.nr, 1);
	CHECK_EQ_INT(d.ev[0].ts, 1005);
	CHECK_EQ_INT(verify(d.ev[0].payload, d.ev[0].len), 500);
	CHECK_EQ_INT(d.missed, 0);
	CHECK_EQ_INT(slim_rb_read_page(rb, page, 0), 1);
	CHECK_EQ_INT(decode_page(page, &d), 0);
	CHECK_EQ_INT(d.nr, 1);
	CHECK_EQ_INT(d.ev[0].len, SLIM_RB_MAX_PAYLOAD);
	CHECK_EQ_INT(d.ev[0].ts, 1020);
	CHECK_EQ_INT(verify(d.ev[0].payload, d.ev[0].len), 501);
	CHECK_EQ_INT(d.missed, 0);
	CHECK_EQ_INT(d.size, 4080);
	CHECK_EQ_INT(slim_rb_read_page(rb, page, 0), 0);
	check_invariant(rb);
	slim_rb_destroy(rb);
}

static void test_readers(void)
{
	static unsigned char page[PG_SIZE];
	struct slim_rb *rb = slim_rb_create(3, 1);
	struct slim_rb_stats st;
	struct dec_page d;
	unsigned char buf[64];
	unsigned int len, i;
	uint64_t ts, lost;

	CHECK_EQ_INT(slim_rb_consume(rb, buf, sizeof(buf), &len, &ts), 0);
	CHECK_EQ_INT(slim_rb_peek(rb, &len, &ts), 0);
	CHECK_EQ_INT(slim_rb_read_page(rb, page, 0), 0);

	/* a page read in pieces: each piece is a page of its own */
	for (i = 0; i < 3; i++)
		CHECK(record(rb, PLEN, 10 + i, i));
	CHECK_EQ_INT(slim_rb_read_page(rb, page, 1), 0);
	CHECK_EQ_INT(slim_rb_read_page(rb, page, 0), 1);
	CHECK_EQ_INT(decode_page(page, &d), 0);
	CHECK_EQ_INT(d.nr, 3);
	CHECK_EQ_INT(d.ts, 10);
	for (i = 3; i < 5; i++)
		CHECK(record(rb, PLEN, 100 + i, i));
	CHECK_EQ_INT(slim_rb_read_page(rb, page, 0), 1);
	CHECK_EQ_INT(decode_page(page, &d), 0);
	CHECK_EQ_INT(d.nr, 2);
	CHECK_EQ_INT(d.ts, 12);				/* time before its first event */
	CHECK_EQ_INT(d.ev[0].ts, 103);
	CHECK_EQ_INT(verify(d.ev[1].payload, d.ev[1].len), 4);

	/* consume: too small a buffer leaves the event in place */
	CHECK(record(rb, PLEN, 200, 5));
	CHECK_EQ_INT(slim_rb_consume(rb, buf, 8, &len, &ts), -ENOSPC);
	CHECK_EQ_INT(len, PLEN);
	CHECK_EQ_INT(slim_rb_peek(rb, &len, &ts), 1);
	CHECK_EQ_INT(ts, 200);
	CHECK_EQ_INT(slim_rb_consume(rb, buf, sizeof(buf), &len, &ts), 1);
	CHECK_EQ_INT(verify(buf, len), 5);

	/* overwrite while nobody reads: the next page says so */
	for (i = 6; i < 1000; i++)
		CHECK(record(rb, PLEN, 300 + i, i));
	slim_rb_stats(rb, &st);
	lost = st.overwritten;
	CHECK(lost > 0);
	CHECK_EQ_INT(st.dropped, 0);
	CHECK_EQ_INT(slim_rb_read_page(rb, page, 1), 1);
	CHECK_EQ_INT(decode_page(page, &d), 0);
	CHECK_EQ_INT(d.missed, 1);
	CHECK_EQ_INT(d.stored, 1);
	CHECK_EQ_INT(d.missed_count, lost);
	CHECK_EQ_INT(verify(d.ev[0].payload, d.ev[0].len), 1000 - st.entries);
	CHECK_EQ_INT(slim_rb_read_page(rb, page, 1), 1);
	CHECK_EQ_INT(decode_page(page, &d), 0);
	CHECK_EQ_INT(d.missed, 0);
	check_invariant(rb);

	/* reset clears what is there; recording goes on */
	slim_rb_reset(rb);
	slim_rb_stats(rb, &st);
	CHECK_EQ_INT(st.entries, 0);
	CHECK_EQ_INT(iter_count(rb, NULL, NULL), 0);
	CHECK_EQ_INT(slim_rb_consume(rb, buf, sizeof(buf), &len, &ts), 0);
	check_invariant(rb);
	CHECK(record(rb, PLEN, 5000, 7000));
	CHECK_EQ_INT(slim_rb_consume(rb, buf, sizeof(buf), &len, &ts), 1);
	CHECK_EQ_INT(verify(buf, len), 7000);
	CHECK_EQ_INT(ts, 5000);
	check_invariant(rb);
	slim_rb_destroy(rb);

	rb = slim_rb_create(0, 0);			/* raised to the minimum */
	slim_rb_stats(rb, &st);
	CHECK_EQ_INT(st.pages, 2);
	slim_rb_destroy(rb);
}

/*
 * The writer wants the page a reader is copying: it must drop the event
 * and leave the page readable.  The reader's presence is faked here by
 * setting the flag it publishes (white box: the race tests hit this path
 * only by chance).
 */
static void test_conflict(void)
{
	struct slim_rb *rb = slim_rb_create(2, 1);
	unsigned int per_page = PER_PAGE, i;
	struct slim_rb_stats st;
	unsigned char buf[64];
	unsigned int len;
	uint64_t ts;

	for (i = 0; i < 2 * per_page; i++)
		CHECK(record(rb, PLEN, i, i));
	for (i = 0; i < 3; i++)
		CHECK_EQ_INT(slim_rb_consume(rb, buf, sizeof(buf), &len, &ts), 1);
	__atomic_store_n(&rb->reader_busy, 0 + 1, __ATOMIC_SEQ_CST);	/* in page 0 */
	for (i = 0; i < 5; i++)
		CHECK(!record(rb, PLEN, 1000 + i, 1000 + i));
	__atomic_store_n(&rb->reader_busy, 0, __ATOMIC_SEQ_CST);
	slim_rb_stats(rb, &st);
	CHECK_EQ_INT(st.dropped, 5);
	CHECK_EQ_INT(st.overwritten, 0);
	CHECK_EQ_INT(st.entries, 2 * per_page - 3);
	/* the page was not given up */
	CHECK_EQ_INT(slim_rb_consume(rb, buf, sizeof(buf), &len, &ts), 1);
	CHECK_EQ_INT(verify(buf, len), 3);
	/* with the reader gone the writer takes it; only the unread part is lost */
	CHECK(record(rb, PLEN, 2000, 2000));
	slim_rb_stats(rb, &st);
	CHECK_EQ_INT(st.overwritten, per_page - 4);
	CHECK_EQ_INT(slim_rb_consume(rb, buf, sizeof(buf), &len, &ts), 1);
	CHECK_EQ_INT(verify(buf, len), per_page);
	check_invariant(rb);
	slim_rb_destroy(rb);
}

/* ---- a writer racing a reader ---- */

enum reader_kind { READ_CONSUME, READ_ITER, READ_PAGES, READ_RESET };

struct race {
	struct slim_rb *rb;
	uint64_t events;	/* to fire */
	enum reader_kind kind;
	int done;		/* writer finished */
	uint64_t fired;		/* reserve attempts not discarded */
	uint64_t received;	/* consumed by the reader */
	uint64_t cleared;	/* thrown away by slim_rb_reset() */
	uint64_t bad;		/* damaged, out of order or mistimed events */
	uint64_t missed;	/* sum of the pages' stored missed counts */
	int unstored;		/* a page flagged missed without a count */
	int drained;		/* pages read after the writer finished */
	uint64_t snapshots;
};

/* Every 997th event jumps far ahead, so extends race the reader too. */
static uint64_t ts_of(uint64_t seq)
{
	return seq * 3 + (seq / 997) * (3ull << 28);
}

static void *writer(void *arg)
{
	struct race *r = arg;
	uint64_t seq, fired = 0;

	for (seq = 0; seq < r->events; seq++) {
		void *p = slim_rb_reserve(r->rb, PLEN, ts_of(seq));

		if (p && seq % 11 == 5) {		/* filtered out */
			slim_rb_discard(r->rb);
			continue;
		}
		fired++;	/* recorded or lost */
		if (!p)
			continue;
		fill(p, PLEN, seq);
		slim_rb_commit(r->rb);
	}
	r->fired = fired;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* One event seen by a consuming reader: in order, whole, on time. */
static void race_event(struct race *r, const void *p, unsigned int len,
		       uint64_t ts, int64_t *prev)
{
	int64_t seq = verify(p, len);

	if (seq < 0 || seq <= *prev || seq % 11 == 5 || len != PLEN ||
	    ts != ts_of(seq))
		r->bad++;
	*prev = seq;
	r->received++;
}

static int race_consume(struct race *r, int64_t *prev)
{
	unsigned char buf[64];
	unsigned int len;
	uint64_t ts;
	int n = 0;

	while (slim_rb_consume(r->rb, buf, sizeof(buf), &len, &ts) == 1) {
		race_event(r, buf, len, ts, prev);
		n++;
	}
	return n;
}

static int race_pages(struct race *r, int64_t *prev, int full_only)
{
	static unsigned char page[PG_SIZE];
	struct dec_page d;
	int n = 0;

	while (slim_rb_read_page(r->rb, page, full_only) == 1) {
		if (decode_page(page, &d)) {
			r->bad++;
			continue;
		}
		if (d.missed && !d.stored)
			r->unstored = 1;
		r->missed += d.missed_count;
		for (int k = 0; k < d.nr; k++)
			race_event(r, d.ev[k].payload, d.ev[k].len, d.ev[k].ts, prev);
		n++;
	}
	return n;
}

static void race_iter(struct race *r)
{
	struct slim_rb_iter it;
	const void *p;
	unsigned int len;
	uint64_t ts;
	int64_t prev = -1, seq;

	if (slim_rb_iter_start(r->rb, &it))
		return;
	while (slim_rb_iter_next(&it, &p, &len, &ts)) {
		seq = verify(p, len);
		if (seq < 0 || seq <= prev || seq % 11 == 5 || len != PLEN ||
		    ts != ts_of(seq))
			r->bad++;
		prev = seq;
	}
	slim_rb_iter_end(&it);
	r->snapshots++;
}

/* Read a little, clear the rest: what reset clears shows as consumed. */
static void race_reset(struct race *r, int64_t *prev)
{
	unsigned char buf[64];
	struct slim_rb_stats before, after;
	unsigned int len;
	uint64_t ts;
	int i;

	for (i = 0; i < 50; i++)
		if (slim_rb_consume(r->rb, buf, sizeof(buf), &len, &ts) == 1)
			race_event(r, buf, len, ts, prev);
	slim_rb_stats(r->rb, &before);
	slim_rb_reset(r->rb);
	slim_rb_stats(r->rb, &after);
	r->cleared += after.consumed - before.consumed;
}

static void *reader(void *arg)
{
	struct race *r = arg;
	int64_t prev = -1;

	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
		switch (r->kind) {
		case READ_CONSUME:
			race_consume(r, &prev);
			break;
		case READ_ITER:
			race_iter(r);
			break;
		case READ_PAGES:
			race_pages(r, &prev, 1);
			break;
		case READ_RESET:
			race_reset(r, &prev);
			break;
		}
	}
	/* the writer is done: drain what is left */
	if (r->kind == READ_CONSUME || r->kind == READ_RESET)
		race_consume(r, &prev);
	else if (r->kind == READ_PAGES)
		r->drained = race_pages(r, &prev, 0);
	return NULL;
}

static void test_race(int overwrite, enum reader_kind kind, uint64_t events)
{
	static const char *const names[] = { "consume", "iter", "pages", "reset" };
	struct race r = { .events = events, .kind = kind };
	struct slim_rb_stats st;
	pthread_t tw, tr;
	uint64_t left;

	r.rb = slim_rb_create(4, overwrite);
	pthread_create(&tr, NULL, reader, &r);
	pthread_create(&tw, NULL, writer, &r);
	pthread_join(tw, NULL);
	pthread_join(tr, NULL);

	slim_rb_stats(r.rb, &st);
	left = iter_count(r.rb, NULL, NULL);
	if (r.bad || st.written + st.dropped != r.fired || left != st.entries ||
	    r.received + r.cleared + left + st.lost != r.fired)
		fprintf(stderr, "race %s/%s: fired %llu received %llu left %llu "
			"lost %llu (over %llu drop %llu) bad %llu\n",
			overwrite ? "overwrite" : "drop", names[kind],
			(unsigned long long)r.fired, (unsigned long long)r.received,
			(unsigned long long)left, (unsigned long long)st.lost,
			(unsigned long long)st.overwritten,
			(unsigned long long)st.dropped, (unsigned long long)r.bad);
	CHECK_EQ_INT(r.bad, 0);
	CHECK_EQ_INT(st.written + st.dropped, r.fired);
	CHECK_EQ_INT(left, st.entries);
	CHECK_EQ_INT(st.consumed, r.received + r.cleared);
	/* every event fired is accounted for exactly once */
	CHECK_EQ_INT(r.received + r.cleared + left + st.lost, r.fired);
	if (kind != READ_ITER)
		CHECK_EQ_INT(left, 0);
	/* the last page read came after the last overwrite */
	if (kind == READ_PAGES && !r.unstored && r.drained)
		CHECK_EQ_INT(r.missed, st.overwritten);
	check_invariant(r.rb);
	slim_rb_destroy(r.rb);
}

int main(void)
{
	const char *build = getenv("SLIM_TEST_BUILD");
	/* sanitizers run the race at a fraction of the speed */
	uint64_t events = build && strcmp(build, "plain") ? 300000 : 1000000;

	test_kernel_headers();
	test_encoding();
	test_time();
	test_clock_changed();
	test_drop_mode();
	test_overwrite_mode();
	test_discard_nested_limits();
	test_discard_keeps_extend();
	test_readers();
	test_conflict();
	for (int overwrite = 0; overwrite <= 1; overwrite++) {
		test_race(overwrite, READ_CONSUME, events);
		test_race(overwrite, READ_ITER, events);
		test_race(overwrite, READ_PAGES, events);
		test_race(overwrite, READ_RESET, events);
	}
	return check_done("ring_buffer");
}
