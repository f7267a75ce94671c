// SPDX-License-Identifier: MIT
/*
 * Per-thread ring buffer: one writer (the owning thread), one reader at a
 * time.  The design and the argument for its safety are in
 * docs/ring-buffer.md; the comments here point at the steps it names.
 */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/clock.h"
#include "ring/ring_buffer.h"

_Static_assert(sizeof(struct slim_rb_page) == SLIM_RB_PAGE_SIZE,
	       "a page is exactly the kernel's 4096 bytes");
_Static_assert(offsetof(struct slim_rb_page, commit) == 8,
	       "commit follows the 8-byte time stamp");

#define EXTEND_SIZE	8u
#define EXTEND_MAX	SLIM_PAGE_EXTEND_MAX

#define SEQ_CST		__ATOMIC_SEQ_CST

/* How long a reader waits for a writer's claim on a page: see rb_enter(). */
#define ENTER_SPINS	64
#define ENTER_TRIES	(ENTER_SPINS + 1000)

static inline struct slim_rb_page *rb_page(struct slim_rb *rb, uint64_t seq)
{
	return &rb->pages[seq % rb->nr_pages];
}

/*
 * One mapping: the ring's state, its pages, its slots.  mmap(2), not
 * malloc: a thread's first event may come from a signal handler.
 */
static size_t map_size(unsigned int nr_pages, size_t *pages_at, size_t *slots_at)
{
	size_t head = (sizeof(struct slim_rb) + SLIM_RB_PAGE_SIZE - 1) &
		      ~(size_t)(SLIM_RB_PAGE_SIZE - 1);

	*pages_at = head;
	*slots_at = head + (size_t)nr_pages * SLIM_RB_PAGE_SIZE;
	return *slots_at + (size_t)nr_pages * sizeof(struct slim_rb_slot);
}

struct slim_rb *slim_rb_create(unsigned int nr_pages, int overwrite)
{
	size_t size, pages_at, slots_at;
	struct slim_rb *rb;
	char *m;

	/* The writer must always have a page other than the one it fills. */
	if (nr_pages < 2)
		nr_pages = 2;
	size = map_size(nr_pages, &pages_at, &slots_at);
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	rb = (struct slim_rb *)m;
	rb->pages = (struct slim_rb_page *)(m + pages_at);
	rb->slots = (struct slim_rb_slot *)(m + slots_at);
	rb->nr_pages = nr_pages;
	rb->overwrite = !!overwrite;
	/* Page 0 is current and empty; the first event stamps it (limit 0). */
	rb->w.page = &rb->pages[0];
	rb->w.limit = 0;
	return rb;
}

void slim_rb_destroy(struct slim_rb *rb)
{
	size_t pages_at, slots_at;

	if (!rb)
		return;
	munmap(rb, map_size(rb->nr_pages, &pages_at, &slots_at));
}

/* ---- writer, cold path ---- */

static void rb_count_dropped(struct slim_rb *rb)
{
	SLIM_WRITE_ONCE(rb->w.dropped, rb->w.dropped + 1);
}

/*
 * The slot the writer wants next still holds page `victim`, which the
 * reader has not read to the end.  Take it over (overwrite mode) unless the
 * reader is copying it right now: the handshake of docs/ring-buffer.md,
 * step W.  On a conflict the claim is withdrawn, so the page stays
 * readable and nothing is counted twice or never.
 */
static int rb_take_victim(struct slim_rb *rb, uint64_t victim)
{
	struct slim_rb_slot *slot = &rb->slots[victim % rb->nr_pages];
	uint64_t prev = rb->claim_seq;

	if (!rb->overwrite)
		return -ENOSPC;
	__atomic_store_n(&rb->claim_seq, victim + 1, SEQ_CST);
	if (__atomic_load_n(&rb->reader_busy, SEQ_CST) == victim + 1) {
		__atomic_store_n(&rb->claim_seq, prev, SEQ_CST);
		return -EBUSY;
	}
	/* The reader is out of the page for good: its count is final. */
	SLIM_WRITE_ONCE(rb->w.overwritten, rb->w.overwritten + slot->entries -
			SLIM_READ_ONCE(slot->consumed));
	slim_store_release(&rb->overrun_seq, victim + 1);
	return 0;
}

/* Is the page in the slot the writer wants next still needed? */
static int rb_claim_slot(struct slim_rb *rb, uint64_t next)
{
	uint64_t victim;

	if (next < rb->nr_pages)
		return 0;	/* never used */
	victim = next - rb->nr_pages;
	/*
	 * The reader skips only pages below overrun_seq, which victim is
	 * not: read_seq > victim means it read the page to the end.
	 */
	if (slim_load_acquire(&rb->read_seq) > victim)
		return 0;
	return rb_take_victim(rb, victim);
}

static int rb_next_page(struct slim_rb *rb, uint64_t ts)
{
	struct slim_rb_writer *w = &rb->w;
	uint64_t next = w->seq + 1;
	struct slim_rb_slot *slot = &rb->slots[next % rb->nr_pages];
	struct slim_rb_page *page = rb_page(rb, next);

	rb->slots[w->seq % rb->nr_pages].entries = w->written - w->page_first;
	if (rb_claim_slot(rb, next))
		return -ENOSPC;
	/* Once a page: keep the TSC calibration fresh while nobody reads. */
	slim_clock_tick();
	slot->entries = 0;
	SLIM_WRITE_ONCE(slot->consumed, 0);
	SLIM_WRITE_ONCE(page->commit, 0);
	page->time_stamp = ts;
	w->page = page;
	w->off = 0;
	w->limit = SLIM_RB_DATA_SIZE;
	w->ts = ts;
	w->seq = next;
	w->page_first = w->written;
	slim_store_release(&rb->cur_seq, next);
	return 0;
}

void *slim_rb__nested(struct slim_rb *rb)
{
	/* May interrupt the writer anywhere: the only counter it may touch. */
	__atomic_fetch_add(&rb->nested, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void *rb_fail(struct slim_rb *rb)
{
	rb_count_dropped(rb);
	__atomic_signal_fence(SEQ_CST);
	rb->w.busy = 0;
	return NULL;
}

/*
 * A stamp this far behind the last one (~1 ms) comes from another clock:
 * a counter read on another CPU is behind by ns, not ms.  It was 4.3 s,
 * and clocks closer than that (mono_raw runs 170 ms behind mono on a KVM
 * guest) kept every event on the slow path until the new clock caught up.
 */
#define RB_CLOCK_CHANGED	(1ull << 20)

/*
 * Everything the inline fast path does not handle: a page switch, a delta
 * wider than 27 bits, time going backwards, a payload too large.
 */
void *slim_rb__reserve_slow(struct slim_rb *rb, unsigned int len, uint64_t ts)
{
	struct slim_rb_writer *w = &rb->w;
	uint64_t size = slim_rb_event_size(len);
	uint32_t extend = 0;
	uint64_t delta;
	uint32_t *ev;

	if (len > SLIM_RB_MAX_PAYLOAD)
		return rb_fail(rb);
	/*
	 * Time never goes back inside a buffer: an earlier stamp (a counter
	 * read after a migration) is clamped.  One far behind means the
	 * trace clock was changed: a new page starts at it.
	 */
	if (ts < w->ts) {
		if (w->ts - ts > RB_CLOCK_CHANGED && w->off && rb_next_page(rb, ts))
			return rb_fail(rb);
		if (w->off)
			ts = w->ts;
	}
	/*
	 * Readers look at a page's time stamp only once something is
	 * committed in it, so an empty page can take this event's time.
	 */
	if (w->off == 0) {
		w->page->time_stamp = ts;
		w->ts = ts;
		w->limit = SLIM_RB_DATA_SIZE;
	}
	delta = ts - w->ts;
	if (delta > SLIM_RB_DELTA_MAX)
		extend = EXTEND_SIZE;
	if (delta > EXTEND_MAX || w->off + extend + size > SLIM_RB_DATA_SIZE) {
		if (rb_next_page(rb, ts))
			return rb_fail(rb);
		delta = 0;
		extend = 0;
	}

	ev = (uint32_t *)(w->page->data + w->off);
	if (extend) {
		slim_page_put_extend(ev, delta);
		ev += 2;
		delta = 0;
	}
	w->resv_off = w->off;
	w->resv_ts = w->ts;
	w->off += extend + (uint32_t)size;
	w->ts = ts;
	return slim_page_put_data(ev, (uint32_t)size, (uint32_t)delta);
}

/* ---- decoding (reader side) ---- */

struct rb_event {
	const unsigned char *payload;
	uint32_t len;
	uint64_t ts;
};

/*
 * Walk from *off towards end, adding time deltas to *ts, to the next data
 * event.  Returns 1 with *off past it, or 0 at the end of the data; a
 * malformed event also ends the data rather than crash.
 */
static int rb_walk(const unsigned char *data, uint32_t *off, uint32_t end,
		   uint64_t *ts, struct rb_event *e)
{
	struct slim_page_entry en;

	while (slim_page_next(&slim_page_host, data, end, off, &en, NULL) > 0) {
		*ts = slim_page_time(&en, *ts);
		if (!slim_page_is_data(&en))
			continue;
		e->payload = en.payload;
		e->len = en.len;
		e->ts = *ts;
		return 1;
	}
	*off = end;
	return 0;
}

/* ---- reader sessions (docs/ring-buffer.md, step R) ---- */

/* Follow the writer if it overwrote the page the reader was in. */
static void rb_sync(struct slim_rb *rb)
{
	uint64_t ov = slim_load_acquire(&rb->overrun_seq);

	if (ov > rb->r.seq) {
		rb->r.seq = ov;
		rb->r.off = 0;
		rb->r.count = 0;
	}
}

/* Announce that page seq is being read; fails while the writer claims it. */
static int rb_try_enter(struct slim_rb *rb, uint64_t seq)
{
	__atomic_store_n(&rb->reader_busy, seq + 1, SEQ_CST);
	if (__atomic_load_n(&rb->claim_seq, SEQ_CST) > seq) {
		__atomic_store_n(&rb->reader_busy, 0, SEQ_CST);
		return -EAGAIN;
	}
	return 0;
}

/*
 * Enter page seq: 0, -ESTALE if it was overwritten, -EAGAIN if the writer
 * kept claiming it.  A claim lasts a few instructions (the writer either
 * takes the page or withdraws), unless the writer is preempted right
 * there: the reader waits a little, then gives up rather than spin.
 */
static int rb_enter(struct slim_rb *rb, uint64_t seq)
{
	int tries;

	for (tries = 0; tries < ENTER_TRIES; tries++) {
		if (slim_load_acquire(&rb->overrun_seq) > seq)
			return -ESTALE;
		if (!rb_try_enter(rb, seq))
			return 0;
		if (tries >= ENTER_SPINS)
			sched_yield();
	}
	return -EAGAIN;
}

static void rb_leave(struct slim_rb *rb)
{
	__atomic_store_n(&rb->reader_busy, 0, SEQ_CST);
}

/* The reader's page, as seen inside a session. */
struct rb_view {
	const struct slim_rb_page *page;
	uint32_t commit;
	int closed;		/* the writer has moved on: commit is final */
};

/* Enter the reader's page; -EAGAIN if the writer holds it up. */
static int rb_open(struct slim_rb *rb, struct rb_view *v)
{
	int ret;

	do {
		rb_sync(rb);
		ret = rb_enter(rb, rb->r.seq);
	} while (ret == -ESTALE);
	if (ret)
		return ret;
	v->page = rb_page(rb, rb->r.seq);
	/* cur_seq before commit: a closed page's commit is final. */
	v->closed = rb->r.seq < slim_load_acquire(&rb->cur_seq);
	v->commit = (uint32_t)slim_load_acquire(&v->page->commit);
	if (rb->r.off == 0 && v->commit)
		rb->r.ts = v->page->time_stamp;
	return 0;
}

/* Publish the position (before leaving: the writer reads it after) and leave. */
static void rb_close(struct slim_rb *rb, const struct rb_view *v)
{
	if (v->closed && rb->r.off >= v->commit) {
		rb->r.seq++;
		rb->r.off = 0;
		rb->r.count = 0;
	}
	slim_store_release(&rb->read_seq, rb->r.seq);
	rb_leave(rb);
}

/* Inside a session: the writer reads the slot's count after the handshake. */
static void rb_count_consumed(struct slim_rb *rb, uint32_t n)
{
	rb->r.count += n;
	SLIM_WRITE_ONCE(rb->slots[rb->r.seq % rb->nr_pages].consumed, rb->r.count);
	SLIM_WRITE_ONCE(rb->consumed, rb->consumed + n);
}

/* Consume (or only look at) the oldest event. */
static int rb_take(struct slim_rb *rb, void *buf, unsigned int cap,
		   unsigned int *len, uint64_t *ts, int consume)
{
	struct rb_event e;
	struct rb_view v;
	uint32_t off;
	uint64_t t;
	int found;

	for (;;) {
		if (rb_open(rb, &v))
			return 0;	/* held up by the writer: nothing now */
		off = rb->r.off;
		t = rb->r.ts;
		found = rb_walk(v.page->data, &off, v.commit, &t, &e);
		if (found)
			break;
		if (!v.closed) {
			rb_leave(rb);
			return 0;
		}
		rb->r.off = off;
		rb->r.ts = t;
		rb_close(rb, &v);
	}
	if (len)
		*len = e.len;
	if (ts)
		*ts = e.ts;
	if (!consume) {
		rb_leave(rb);
		return 1;
	}
	if (e.len > cap) {
		rb_leave(rb);
		return -ENOSPC;
	}
	if (buf)
		memcpy(buf, e.payload, e.len);
	rb->r.off = off;
	rb->r.ts = t;
	rb_count_consumed(rb, 1);
	rb_close(rb, &v);
	return 1;
}

int slim_rb_consume(struct slim_rb *rb, void *payload_copy, unsigned int cap,
		    unsigned int *len, uint64_t *ts)
{
	return rb_take(rb, payload_copy, cap, len, ts, 1);
}

int slim_rb_peek(struct slim_rb *rb, unsigned int *len, uint64_t *ts)
{
	return rb_take(rb, NULL, 0, len, ts, 0);
}

/* Count the data events in data[0, end), starting at time *ts. */
static uint32_t rb_count_events(const unsigned char *data, uint32_t end,
				uint64_t *ts)
{
	struct rb_event e;
	uint32_t off = 0, n = 0;

	while (rb_walk(data, &off, end, ts, &e))
		n++;
	return n;
}

/*
 * Take the unread part of the oldest page into page4096, as a page of its
 * own (time stamp = time before its first event).  Returns 1, or 0 if
 * there is nothing (or, with full_only, only the page being filled).
 */
int slim_rb_take_page(struct slim_rb *rb, void *page4096, int full_only,
		      struct slim_rb_taken *tk)
{
	unsigned char *out = page4096;
	uint64_t base, t, over, missed;
	uint32_t start, n, events;
	struct rb_view v;

	for (;;) {
		if (rb_open(rb, &v))
			return 0;
		if (!v.closed && (full_only || rb->r.off >= v.commit)) {
			rb_leave(rb);
			return 0;
		}
		if (rb->r.off < v.commit)
			break;
		rb_close(rb, &v);	/* closed and read to the end: next page */
	}
	start = rb->r.off;
	n = v.commit - start;
	base = rb->r.ts;
	memcpy(out + SLIM_PAGE_HDR, v.page->data + start, n);
	t = base;
	rb->r.off = v.commit;
	/*
	 * A closed page taken whole: the writer counted its events when it
	 * closed it (before cur_seq, which rb_open() read), and the reader
	 * moves to the next page, so the time at its end is not needed.
	 * That saves the consumer a walk over every event.
	 */
	if (v.closed && start == 0)
		events = SLIM_READ_ONCE(rb->slots[rb->r.seq % rb->nr_pages].entries);
	else
		events = rb_count_events(out + SLIM_PAGE_HDR, n, &t);
	rb_count_consumed(rb, events);
	rb->r.ts = t;
	tk->seq = rb->r.seq;
	rb_close(rb, &v);

	/*
	 * Like the kernel, flag the events overwritten since the previous
	 * page: they were older than this one.  Events refused at the write
	 * end (dropped) show only in the statistics.
	 */
	over = SLIM_READ_ONCE(rb->w.overwritten);
	missed = over - rb->r.overwritten_seen;
	rb->r.overwritten_seen = over;
	memcpy(out, &base, sizeof(base));
	slim_page_finish(out, n, missed);
	tk->events = events;
	tk->overwritten = missed;
	return 1;
}

int slim_rb_read_page(struct slim_rb *rb, void *page4096, int full_only)
{
	struct slim_rb_taken tk;

	return slim_rb_take_page(rb, page4096, full_only, &tk);
}

uint64_t slim_rb_write_seq(struct slim_rb *rb)
{
	return slim_load_acquire(&rb->cur_seq);
}

uint64_t slim_rb_refused(struct slim_rb *rb)
{
	return SLIM_READ_ONCE(rb->w.dropped) + SLIM_READ_ONCE(rb->nested);
}

/*
 * Clear what is committed now: a reader that consumes without copying.
 * It stops at the page that was current when it started, so a fast
 * writer cannot keep it running.
 */
void slim_rb_reset(struct slim_rb *rb)
{
	uint64_t last = slim_load_acquire(&rb->cur_seq);
	struct rb_view v;
	uint64_t t;
	int done;

	do {
		if (rb_open(rb, &v))
			break;		/* held up by the writer: stop here */
		done = rb->r.seq >= last || !v.closed;
		t = rb->r.ts;
		if (rb->r.off < v.commit)
			rb_count_consumed(rb, rb_count_events(v.page->data + rb->r.off,
							      v.commit - rb->r.off, &t));
		rb->r.off = v.commit;
		rb->r.ts = t;
		rb_close(rb, &v);
	} while (!done);
	rb->r.overwritten_seen = SLIM_READ_ONCE(rb->w.overwritten);
}

/* ---- non-consuming iteration over a private copy ---- */

static void rb_copy_page(struct slim_rb *rb, uint64_t seq,
			 struct slim_rb_iter *it)
{
	const struct slim_rb_page *page = rb_page(rb, seq);
	uint32_t commit = (uint32_t)slim_load_acquire(&page->commit);
	uint32_t start = 0;
	struct slim_rb_copy *c;

	if (seq == rb->r.seq)
		start = rb->r.off;
	if (commit <= start)
		return;
	c = &it->pages[it->nr++];
	c->time_stamp = start ? rb->r.ts : page->time_stamp;
	c->len = commit - start;
	memcpy(c->data, page->data + start, c->len);
}

int slim_rb_iter_start(struct slim_rb *rb, struct slim_rb_iter *it)
{
	uint64_t first, last, seq;

	memset(it, 0, sizeof(*it));
	rb_sync(rb);
	first = rb->r.seq;
	last = slim_load_acquire(&rb->cur_seq);
	/* Older pages than a ring's worth behind the writer are gone anyway. */
	if (last - first >= rb->nr_pages)
		first = last - rb->nr_pages + 1;
	it->pages = malloc((size_t)(last - first + 1) * sizeof(*it->pages));
	if (!it->pages)
		return -ENOMEM;
	for (seq = first; seq <= last; seq++) {
		if (rb_enter(rb, seq))
			continue;	/* overwritten meanwhile */
		rb_copy_page(rb, seq, it);
		rb_leave(rb);
	}
	if (it->nr)
		it->ts = it->pages[0].time_stamp;
	return 0;
}

int slim_rb_iter_next(struct slim_rb_iter *it, const void **payload,
		      unsigned int *len, uint64_t *ts)
{
	struct rb_event e;

	while (it->idx < it->nr) {
		struct slim_rb_copy *c = &it->pages[it->idx];

		if (rb_walk(c->data, &it->off, c->len, &it->ts, &e)) {
			*payload = e.payload;
			*len = e.len;
			*ts = e.ts;
			return 1;
		}
		it->idx++;
		it->off = 0;
		if (it->idx < it->nr)
			it->ts = it->pages[it->idx].time_stamp;
	}
	return 0;
}

void slim_rb_iter_end(struct slim_rb_iter *it)
{
	free(it->pages);
	memset(it, 0, sizeof(*it));
}

/* ---- statistics ---- */

void slim_rb_stats(struct slim_rb *rb, struct slim_rb_stats *st)
{
	uint64_t consumed = SLIM_READ_ONCE(rb->consumed);
	uint64_t over = SLIM_READ_ONCE(rb->w.overwritten);
	uint64_t written = SLIM_READ_ONCE(rb->w.written);

	st->written = written;
	st->overwritten = over;
	st->dropped = SLIM_READ_ONCE(rb->w.dropped) + SLIM_READ_ONCE(rb->nested);
	st->lost = over + st->dropped;
	st->consumed = consumed;
	/* Exact at quiescence; the three loads may straddle an update. */
	st->entries = written >= over + consumed ? written - over - consumed : 0;
	st->pages = rb->nr_pages;
}
