// SPDX-License-Identifier: MIT
/*
 * Pages into the staging area, on their way to the sink.  A page is
 * written as the ring handed it out unless its time stamps are counter
 * cycles (they are converted to ns) or its lost count needs room (it is
 * split); then its events are re-encoded into new pages: page time
 * stamp = the first event's ns, deltas in ns, a time extend when a delta
 * passes 27 bits, a new page when one is full or a gap passes 59 bits.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "record/rec.h"

#define PAGE		SLIM_PAGE_SIZE
#define DATA		SLIM_PAGE_DATA
/* Entries in a page: every one but the end's padding takes 8 bytes or more. */
#define MAX_FIX		(DATA / 8 + 1)

/* ---- cycles to ns --------------------------------------------------------- */

/* Stamps went back (a new page) or past the segment: find theirs. */
static uint64_t conv_search(struct slim_record_conv *cv, uint64_t raw)
{
	const struct slim_clock_calib *tab = cv->tab;
	size_t lo = 0, hi = cv->n;

	if (cv->i < cv->n && raw >= tab[cv->i].tsc_base)
		lo = cv->i;	/* forward: a few steps at most */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (tab[mid].tsc_base <= raw)
			lo = mid;
		else
			hi = mid;
	}
	cv->i = lo;
	return slim_clock_seg_ns(&tab[lo], raw);
}

static inline uint64_t conv_ns(struct slim_record_conv *cv, uint64_t raw)
{
	const struct slim_clock_calib *c = cv->tab + cv->i;

	if (cv->i < cv->n && raw >= c->tsc_base &&
	    (cv->i + 1 == cv->n || raw < c[1].tsc_base))
		return c->ns_base + slim_clock_mul_shift(raw - c->tsc_base, c->mult, c->shift);
	return cv->n ? conv_search(cv, raw) : raw;
}

uint64_t slim_record_conv_ns(struct slim_record_conv *cv, uint64_t raw)
{
	return conv_ns(cv, raw);
}

/* ---- the staging area ------------------------------------------------------ */

int rec_stage_init(struct rec_stage *st, int clock_id)
{
	memset(st, 0, sizeof(*st));
	st->pages = malloc((size_t)REC_BATCH * PAGE);
	st->scratch = malloc(PAGE);
	st->fix = malloc(MAX_FIX * sizeof(*st->fix));
	st->tab = calloc(SLIM_CLOCK_CALIB_MAX, sizeof(*st->tab));
	st->convert = clock_id == SLIM_CLOCK_MONO && slim_clock_raw_is_cycles(clock_id);
	return st->pages && st->scratch && st->fix && st->tab ? 0 : -ENOMEM;
}

void rec_stage_free(struct rec_stage *st)
{
	free(st->pages);
	free(st->scratch);
	free(st->fix);
	free(st->tab);
	memset(st, 0, sizeof(*st));
}

void rec_stage_calibrate(struct rec_stage *st)
{
	if (!st->convert)
		return;
	slim_clock_tick();
	st->ntab = slim_clock_calib_snapshot(st->tab, SLIM_CLOCK_CALIB_MAX);
}

unsigned char *rec_stage_slot(struct rec_stage *st)
{
	return st->used < REC_BATCH ? st->pages + (size_t)st->used * PAGE : NULL;
}

int rec_stage_flush(struct rec_put *p)
{
	struct rec_stage *st = p->st;
	int ret;

	if (!st->used)
		return 0;
	ret = p->sink->ops->page(p->sink, p->cpu, st->pages, (size_t)st->used);
	st->used = 0;
	return ret;
}

/* ---- re-encoding ------------------------------------------------------------ */

struct enc {
	struct rec_put *p;
	unsigned char *pg;	/* the page being filled, or NULL */
	uint32_t off;		/* its data bytes */
	uint32_t limit;		/* its room (less the lost count it carries) */
	uint64_t ts;		/* the time of its last event */
	uint64_t owed;		/* lost events for the next page opened */
	uint64_t carried;	/* lost events the page being filled carries */
};

static void enc_close(struct enc *e)
{
	slim_page_finish(e->pg, e->off, e->carried);
	e->pg = NULL;
}

static int enc_open(struct enc *e, uint64_t ts, uint32_t size)
{
	struct rec_stage *st = e->p->st;
	int ret;

	if (st->used == REC_BATCH) {
		ret = rec_stage_flush(e->p);
		if (ret)
			return ret;
	}
	e->pg = st->pages + (size_t)st->used++ * PAGE;
	memcpy(e->pg, &ts, sizeof(ts));
	e->off = 0;
	e->ts = ts;
	e->carried = e->owed;
	e->owed = 0;
	/* An event too big to leave room for the count: flag the loss only. */
	e->limit = e->carried && size + 8 <= DATA ? DATA - 8 : DATA;
	return 0;
}

/* Events are a few words long: a call to memcpy() would cost more. */
static inline void copy_words(unsigned char *to, const unsigned char *from, uint32_t n)
{
	uint32_t i, w;

	for (i = 0; i < n; i += 4) {
		memcpy(&w, from + i, 4);
		memcpy(to + i, &w, 4);
	}
}

/* Append one data event (its bytes at ev->off of data) at time ts. */
static int enc_event(struct enc *e, uint64_t ts, const unsigned char *data,
		     const struct slim_page_entry *ev)
{
	uint64_t d = 0;
	uint32_t ext = 0, hdr;
	unsigned char *p;
	int ret;

	if (e->pg) {
		d = ts - e->ts;
		ext = d > SLIM_PAGE_DELTA_MAX ? 8 : 0;
		if (d > SLIM_PAGE_EXTEND_MAX || e->off + ext + ev->size > e->limit)
			enc_close(e);
	}
	if (!e->pg) {
		ret = enc_open(e, ts, ev->size);
		if (ret)
			return ret;
		d = 0;
		ext = 0;
	}
	p = e->pg + SLIM_PAGE_HDR + e->off;
	if (ext) {
		slim_page_put_extend(p, d);
		p += 8;
		d = 0;
	}
	hdr = slim_page_hdr(ev->type, (uint32_t)d);
	memcpy(p, &hdr, 4);
	copy_words(p + 4, data + ev->off + 4, ev->size - 4);
	e->off += ext + ev->size;
	e->ts = ts;
	return 0;
}

/*
 * Rewrite the events of page `in` (n data bytes) into new pages: times in
 * ns when converting, and a split when the lost count needs room.  Lost
 * events left over (a page with no event) stay in p->left.
 */
static int reencode(struct rec_put *p, const unsigned char *in, uint32_t n, uint64_t owed)
{
	struct enc e = { .p = p, .owed = owed };
	const unsigned char *data = in + SLIM_PAGE_HDR;
	struct slim_page_entry ev;
	uint32_t off = 0;
	uint64_t t, ns;
	int ret = 0;

	memcpy(&t, in, sizeof(t));
	while (!ret && slim_page_next(&slim_page_host, data, n, &off, &ev, NULL) > 0) {
		t = slim_page_time(&ev, t);
		if (!slim_page_is_data(&ev))
			continue;
		ns = p->st->convert ? conv_ns(&p->cv, t) : t;
		if (ns < *p->last_ts)
			ns = *p->last_ts;	/* a new calibration point moved it */
		*p->last_ts = ns;
		rec_threads_note(p->th, &ev, p->may_grow);
		ret = enc_event(&e, ns, data, &ev);
	}
	if (e.pg)
		enc_close(&e);
	p->left += e.owed;
	return ret;
}

/* The first writer's thread id in a page, for the cmdlines. */
static void note_first_pid(struct rec_put *p, const unsigned char *page, uint32_t n)
{
	struct slim_page_entry ev;
	uint32_t off = 0;

	while (slim_page_next(&slim_page_host, page + SLIM_PAGE_HDR, n, &off, &ev, NULL) > 0) {
		if (slim_page_is_data(&ev)) {
			rec_threads_note(p->th, &ev, p->may_grow);
			return;
		}
	}
}

/* The header words an entry gets for a time step of d ns; 0: too wide. */
static uint32_t fix_words(const struct slim_page_entry *ev, uint64_t d, uint64_t ns,
			  uint32_t w[2])
{
	switch (ev->type) {
	case SLIM_PAGE_TYPE_EXTEND:
		if (d > SLIM_PAGE_EXTEND_MAX)
			return 0;
		w[0] = slim_page_hdr(ev->type, (uint32_t)(d & SLIM_PAGE_DELTA_MAX));
		w[1] = (uint32_t)(d >> SLIM_PAGE_DELTA_BITS);
		return 2;
	case SLIM_PAGE_TYPE_STAMP:	/* absolute: its low 59 bits */
		w[0] = slim_page_hdr(ev->type, (uint32_t)(ns & SLIM_PAGE_DELTA_MAX));
		w[1] = (uint32_t)((ns & SLIM_PAGE_EXTEND_MAX) >> SLIM_PAGE_DELTA_BITS);
		return 2;
	default:			/* data, and padding that took time */
		if (d > SLIM_PAGE_DELTA_MAX)
			return 0;
		w[0] = slim_page_hdr(ev->type, (uint32_t)d);
		return 1;
	}
}

/*
 * Cycles to ns where the page lies, header by header: on a counter of
 * 1 GHz or more a step in ns is no wider than the step in cycles it
 * replaces, so every entry keeps its size and the page its layout.  The
 * new words are worked out first; if one does not fit (a calibration
 * step forward), the page is left as it was and the caller re-encodes.
 * 1: converted.
 */
static int to_ns_in_place(struct rec_put *p, unsigned char *page, uint32_t n)
{
	unsigned char *data = page + SLIM_PAGE_HDR;
	struct rec_fix *fix = p->st->fix;
	struct slim_page_entry ev;
	uint64_t t, ns, prev, base;
	uint32_t off = 0, nr = 0, i;

	memcpy(&t, page, sizeof(t));
	prev = conv_ns(&p->cv, t);
	if (prev < *p->last_ts)
		prev = *p->last_ts;
	base = prev;
	while (slim_page_next_host(data, n, &off, &ev) > 0) {
		t = slim_page_time(&ev, t);
		ns = conv_ns(&p->cv, t);
		if (ns < prev)
			ns = prev;	/* a new calibration point moved it */
		if (nr == MAX_FIX)
			return 0;
		fix[nr].off = ev.off;
		fix[nr].words = fix_words(&ev, ns - prev, ns, fix[nr].w);
		if (!fix[nr].words)
			return 0;
		nr++;
		prev = ns;
		if (slim_page_is_data(&ev))
			rec_threads_note(p->th, &ev, p->may_grow);
	}
	memcpy(page, &base, sizeof(base));
	for (i = 0; i < nr; i++)
		memcpy(data + fix[i].off, fix[i].w, fix[i].words * 4);
	*p->last_ts = prev;
	return 1;
}

/*
 * When the count fits, the page stays where the ring put it: as it is
 * when its times are ns, its headers rewritten when they are cycles.
 */
int rec_stage_put(struct rec_put *p, unsigned char *page, uint64_t missed)
{
	struct rec_stage *st = p->st;
	uint64_t commit;
	uint32_t n;

	memcpy(&commit, page + 8, sizeof(commit));
	n = (uint32_t)(commit & SLIM_PAGE_COMMIT_MASK);
	if (n > DATA)
		return 0;	/* cannot happen: ignore the page */
	if (!missed || slim_page_count_fits(n)) {
		if (!st->convert) {
			note_first_pid(p, page, n);
		} else if (!to_ns_in_place(p, page, n)) {
			memcpy(st->scratch, page, PAGE);
			return reencode(p, st->scratch, n, missed);
		}
		slim_page_finish(page, n, missed);
		st->used++;
		return 0;
	}
	memcpy(st->scratch, page, PAGE);
	return reencode(p, st->scratch, n, missed);
}
