// SPDX-License-Identifier: MIT
/*
 * The recorder's staging of ring pages (src/record/encode.c): a page whose
 * stamps are counter cycles gets them in ns where it lies when every step
 * fits its entry, and is re-encoded (time extends added) when one does
 * not; a page in ns is left as it is.  Each output page is walked by a
 * decoder written here, its times compared with the calibration's
 * conversion of each event's raw time.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "record/rec.h"

#define PG		4096u
#define HDR		16u
#define MAX_OUT		8
#define MAX_EV		256

/* ---- a sink that keeps the pages it is given ---- */

static unsigned char out[MAX_OUT][PG];
static int nr_out;

static int keep_pages(struct rec_sink *s, int cpu, const void *pages, size_t n)
{
	(void)s;
	(void)cpu;
	while (n-- && nr_out < MAX_OUT) {
		memcpy(out[nr_out++], pages, PG);
		pages = (const unsigned char *)pages + PG;
	}
	return 0;
}

static const struct rec_sink_ops keep_ops = { .name = "keep", .page = keep_pages };

/* ---- a page in the ring's format, built by hand ---- */

struct build {
	unsigned char *pg;
	uint32_t off;
};

static void put32(struct build *b, uint32_t v)
{
	memcpy(b->pg + HDR + b->off, &v, 4);
	b->off += 4;
}

/* An event with a length word (as the record path writes), payload 16 bytes. */
static void put_event(struct build *b, uint32_t delta, int32_t pid, uint32_t tag)
{
	put32(b, delta << 5);
	put32(b, 4 + 16);
	put32(b, 7);			/* type 7, flags, preempt_count */
	put32(b, (uint32_t)pid);
	put32(b, tag);
	put32(b, 0);
}

/* The same event in the 4-byte header form: type_len 6 (24 bytes). */
static void put_event_tl(struct build *b, uint32_t delta, int32_t pid, uint32_t tag)
{
	put32(b, delta << 5 | 6);
	put32(b, 7);
	put32(b, (uint32_t)pid);
	put32(b, tag);
	put32(b, 0);
	put32(b, 0);
	put32(b, 0);
}

/* A time extend of d (type_len 30): low 27 bits in the header. */
static void put_extend(struct build *b, uint64_t d)
{
	put32(b, (uint32_t)(d & ((1u << 27) - 1)) << 5 | 30);
	put32(b, (uint32_t)(d >> 27));
}

static void page_start(struct build *b, unsigned char *pg, uint64_t ts)
{
	memset(pg, 0, PG);
	memcpy(pg, &ts, 8);
	b->pg = pg;
	b->off = 0;
}

static void page_end(struct build *b)
{
	uint64_t commit = b->off;

	memcpy(b->pg + 8, &commit, 8);
}

/* ---- decoding what the sink got ---- */

struct got {
	uint64_t ts[MAX_EV];
	uint32_t tag[MAX_EV];
	int n, extends;
};

static void decode(struct got *g)
{
	int i;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < nr_out; i++) {
		const unsigned char *pg = out[i];
		uint64_t t, commit;
		uint32_t off = 0, len, h, type, w;

		memcpy(&t, pg, 8);
		memcpy(&commit, pg + 8, 8);
		len = (uint32_t)(commit & ((1u << 27) - 1));
		while (off + 4 <= len) {
			memcpy(&h, pg + HDR + off, 4);
			type = h & 31;
			if (type == 30) {
				memcpy(&w, pg + HDR + off + 4, 4);
				t += (uint64_t)w << 27 | h >> 5;
				g->extends++;
				off += 8;
				continue;
			}
			if (type > 28 || g->n == MAX_EV)
				break;
			t += h >> 5;
			g->ts[g->n] = t;
			if (type) {	/* type_len words, the payload after the header */
				memcpy(&g->tag[g->n], pg + HDR + off + 12, 4);
				off += 4 + 4 * type;
			} else {
				memcpy(&w, pg + HDR + off + 4, 4);
				memcpy(&g->tag[g->n], pg + HDR + off + 16, 4);
				off += 4 + w;
			}
			g->n++;
		}
	}
}

/* ---- the cases ---- */

static struct rec_stage st;
static struct rec_threads th;
static struct rec_sink sink = { .ops = &keep_ops };

/* ns = 5000 + (raw - 1000) * mult >> shift */
static uint64_t want_ns(const struct slim_clock_calib *c, uint64_t raw)
{
	return c->ns_base + (uint64_t)(((unsigned __int128)(raw - c->tsc_base) * c->mult) >> c->shift);
}

static void stage(const struct slim_clock_calib *cal, int convert, uint64_t *last)
{
	struct rec_put p = {
		.st = &st, .sink = &sink, .th = &th, .cpu = 0, .last_ts = last,
		.cv = { .tab = cal, .n = 1, .i = 0 }, .may_grow = 1,
	};

	st.convert = convert;
	CHECK_EQ_INT(rec_stage_put(&p, rec_stage_slot(&st), 0), 0);
	CHECK_EQ_INT(rec_stage_flush(&p), 0);
	CHECK_EQ_INT((int)p.left, 0);
}

/* Raw times: 1000 + steps; the third step is past 27 bits at 2 ns a cycle. */
static const uint64_t steps[] = { 0, 10, 3000, 100000000, 7, 0, 123456 };
#define NR_STEPS	(sizeof(steps) / sizeof(steps[0]))

static void build_steps(uint64_t raw_out[])
{
	struct build b;
	uint64_t t = 1000;
	unsigned int i;

	page_start(&b, rec_stage_slot(&st), 1000);
	/* Both header forms the record path writes, alternately. */
	for (i = 0; i < NR_STEPS; i++) {
		t += steps[i];
		raw_out[i] = t;
		if (i & 1)
			put_event_tl(&b, (uint32_t)steps[i], 42, i);
		else
			put_event(&b, (uint32_t)steps[i], 42, i);
	}
	page_end(&b);
}

static void check_times(const struct slim_clock_calib *c, const uint64_t raw[], int extends)
{
	struct got g;
	unsigned int i;
	int same = 1;

	decode(&g);
	if (!CHECK(g.n == (int)NR_STEPS))
		return;
	for (i = 0; i < NR_STEPS; i++)
		same &= g.ts[i] == want_ns(c, raw[i]) && g.tag[i] == i;
	CHECK(same);
	CHECK_EQ_INT(g.extends, extends);
}

/* Half a ns a cycle: every step narrower in ns, converted where it lies. */
static void test_in_place(void)
{
	struct slim_clock_calib c = { .mult = 1u << 31, .shift = 32, .tsc_base = 1000, .ns_base = 5000 };
	uint64_t raw[NR_STEPS], last = 0;
	uint32_t len;

	nr_out = 0;
	build_steps(raw);
	stage(&c, 1, &last);
	CHECK_EQ_INT(nr_out, 1);
	memcpy(&len, out[0] + 8, 4);
	CHECK_EQ_INT((int)(len & ((1u << 27) - 1)), (int)((NR_STEPS + 1) / 2 * 24 + NR_STEPS / 2 * 28));
	check_times(&c, raw, 0);
	CHECK(last == want_ns(&c, raw[NR_STEPS - 1]));
}

/* Two ns a cycle: the 100 M cycle step needs a time extend: re-encoded. */
static void test_reencoded(void)
{
	struct slim_clock_calib c = { .mult = 1u << 31, .shift = 30, .tsc_base = 1000, .ns_base = 5000 };
	uint64_t raw[NR_STEPS], last = 0;

	nr_out = 0;
	build_steps(raw);
	stage(&c, 1, &last);
	CHECK_EQ_INT(nr_out, 1);
	check_times(&c, raw, 1);
}

/* A time extend in the ring's page keeps its place, its step in ns. */
static void test_extend_in_place(void)
{
	struct slim_clock_calib c = { .mult = 1u << 31, .shift = 32, .tsc_base = 1000, .ns_base = 5000 };
	uint64_t big = 1ull << 30, last = 0;
	struct build b;
	struct got g;

	nr_out = 0;
	page_start(&b, rec_stage_slot(&st), 1000);
	put_event(&b, 0, 42, 0);
	put_extend(&b, big);
	put_event(&b, 5, 42, 1);
	page_end(&b);
	stage(&c, 1, &last);
	decode(&g);
	CHECK_EQ_INT(nr_out, 1);
	CHECK_EQ_INT(g.n, 2);
	CHECK_EQ_INT(g.extends, 1);
	CHECK(g.ts[0] == 5000);
	CHECK(g.ts[1] == want_ns(&c, 1000 + big + 5));
}

/* Times that went back (a new calibration point) are held at the last. */
static void test_clamped(void)
{
	struct slim_clock_calib c = { .mult = 1u << 31, .shift = 32, .tsc_base = 1000, .ns_base = 5000 };
	uint64_t raw[NR_STEPS], last = 1ull << 40;
	struct got g;
	int i, held = 1;

	nr_out = 0;
	build_steps(raw);
	stage(&c, 1, &last);
	decode(&g);
	CHECK_EQ_INT(g.n, (int)NR_STEPS);
	for (i = 0; i < g.n; i++)
		held &= g.ts[i] == 1ull << 40;
	CHECK(held);
}

/* Stamps already in ns: the page goes out byte for byte. */
static void test_ns_untouched(void)
{
	struct slim_clock_calib c = { .mult = 1u << 31, .shift = 32, .tsc_base = 1000, .ns_base = 5000 };
	uint64_t raw[NR_STEPS], last = 0;
	unsigned char copy[PG];

	nr_out = 0;
	build_steps(raw);
	memcpy(copy, rec_stage_slot(&st), PG);
	stage(&c, 0, &last);
	CHECK_EQ_INT(nr_out, 1);
	CHECK(memcmp(out[0], copy, HDR + (NR_STEPS + 1) / 2 * 24 + NR_STEPS / 2 * 28) == 0);
}

int main(void)
{
	if (!CHECK(rec_stage_init(&st, SLIM_CLOCK_MONO) == 0) ||
	    !CHECK(rec_threads_init(&th) == 0))
		return check_done("encode");
	test_in_place();
	test_reencoded();
	test_extend_in_place();
	test_clamped();
	test_ns_untouched();
	rec_threads_free(&th);
	rec_stage_free(&st);
	return check_done("encode");
}
