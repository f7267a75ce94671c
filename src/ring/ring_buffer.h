/* SPDX-License-Identifier: MIT */
/*
 * Per-thread ring buffer (internal).
 *
 * One buffer has one writer, the thread that owns it (and that thread's
 * signal handlers), and at most one reader at a time, which may run on any
 * thread concurrently with the writer.  The memory is an array of pages in
 * the kernel's ring-buffer page format, so that a trace.dat writer can dump
 * pages as they are.  docs/ring-buffer.md explains the format choices and
 * why the reader/writer handshake is safe.
 *
 * Writer rules: every non-NULL slim_rb_reserve() is followed by exactly one
 * slim_rb_commit() or slim_rb_discard() before the next reserve on the same
 * buffer; a NULL return is followed by neither.
 *
 * Reader rules: readers of one buffer (iterator, consume, peek, read_page,
 * reset) must be serialized by the caller; they never block the writer.
 */
#ifndef SLIM_RING_BUFFER_H
#define SLIM_RING_BUFFER_H

#include <stdint.h>
#include <slimtrace/compiler.h>
#include <slimtrace/static/record.h>
#include "ring/page.h"

/* Internal: reached directly, not through the GOT, from the library. */
#pragma GCC visibility push(hidden)

/* The page and event encoding belong to ring/page.h; the ring's names. */
#define SLIM_RB_PAGE_SIZE	SLIM_PAGE_SIZE
#define SLIM_RB_DATA_SIZE	SLIM_PAGE_DATA
#define SLIM_RB_EVENT_HDR	SLIM_PAGE_EVENT_HDR
#define SLIM_RB_MAX_PAYLOAD	(SLIM_RB_DATA_SIZE - SLIM_RB_EVENT_HDR)
#define SLIM_RB_MISSED_EVENTS	SLIM_PAGE_MISSED_EVENTS
#define SLIM_RB_MISSED_STORED	SLIM_PAGE_MISSED_STORED
#define SLIM_RB_TYPE_DATA_MAX	SLIM_PAGE_TYPE_DATA_MAX
#define SLIM_RB_TYPE_PADDING	SLIM_PAGE_TYPE_PADDING
#define SLIM_RB_TYPE_TIME_EXTEND SLIM_PAGE_TYPE_EXTEND
#define SLIM_RB_TYPE_TIME_STAMP	SLIM_PAGE_TYPE_STAMP
#define SLIM_RB_DELTA_BITS	SLIM_PAGE_DELTA_BITS
#define SLIM_RB_DELTA_MAX	SLIM_PAGE_DELTA_MAX

struct slim_rb_page {
	uint64_t time_stamp;	/* absolute time of the page's first event */
	uint64_t commit;	/* bytes of data committed (atomic in a live page) */
	unsigned char data[SLIM_RB_DATA_SIZE];
};

/* State only the owning thread touches, except the counters (stats). */
struct slim_rb_writer {
	/*
	 * page, off (reservation included), limit, ts, written, busy,
	 * resv_off (off before the reservation), resv_target: ABI
	 */
	SLIM_ABI_WRITER
	uint64_t resv_ts;		/* ts before the reservation (discard) */
	uint64_t seq;			/* sequence number of the page */
	uint64_t page_first;		/* `written` when the page was started */
	uint64_t overwritten;		/* committed events whose page was reused */
	uint64_t dropped;		/* events refused by the writer itself */
};

/* Reader-private cursor: where the next unread event is. */
struct slim_rb_reader {
	uint64_t seq;		/* page sequence number */
	uint64_t ts;		/* time just before `off` (valid when off > 0) */
	uint32_t off;		/* next unread byte of the page */
	uint32_t count;		/* events consumed from the page */
	uint64_t overwritten_seen;	/* overwritten events reported by read_page */
};

/* Bookkeeping for the page in one slot, for the writer's lost count. */
struct slim_rb_slot {
	uint32_t entries;	/* writer: events committed, set when the page closes */
	uint32_t consumed;	/* reader: events consumed from it */
};

struct slim_rb {
	struct slim_rb_writer w;

	/* Published by the writer once per page switch. */
	uint64_t cur_seq __attribute__((aligned(64)));	/* page being filled */
	uint64_t claim_seq;	/* the writer is taking the pages below this one */
	uint64_t overrun_seq;	/* pages below this one were overwritten (and counted) */
	uint64_t nested;	/* events refused because a reservation was open */

	/* Published by the reader. */
	uint64_t reader_busy __attribute__((aligned(64))); /* seq + 1 of the page being read, 0 if none */
	uint64_t read_seq;	/* pages below this one were read to the end */
	uint64_t consumed;	/* events read out or cleared */
	struct slim_rb_reader r;

	/* Constant after creation. */
	struct slim_rb_page *pages __attribute__((aligned(64)));
	struct slim_rb_slot *slots;	/* one per page */
	unsigned int nr_pages;
	int overwrite;
};

/* The fast path inlined into programs reads these (static/record.h). */
#define SLIM_RB_ABI(m)							\
	SLIM_STATIC_ASSERT(offsetof(struct slim_rb, w.m) ==		\
			   offsetof(struct slim_abi_writer, m), "ABI: writer " #m)
SLIM_RB_ABI(page);
SLIM_RB_ABI(off);
SLIM_RB_ABI(limit);
SLIM_RB_ABI(ts);
SLIM_RB_ABI(written);
SLIM_RB_ABI(busy);
SLIM_RB_ABI(resv_off);
SLIM_RB_ABI(resv_target);
SLIM_STATIC_ASSERT(offsetof(struct slim_rb_page, commit) ==
		   offsetof(struct slim_abi_page, commit), "ABI: page commit");
SLIM_STATIC_ASSERT(offsetof(struct slim_rb_page, data) ==
		   offsetof(struct slim_abi_page, data), "ABI: page data");
SLIM_STATIC_ASSERT(SLIM_RB_DATA_SIZE == SLIM_ABI_PAGE_DATA &&
		   SLIM_RB_EVENT_HDR == SLIM_ABI_EVENT_HDR &&
		   SLIM_RB_TYPE_DATA_MAX == SLIM_ABI_TYPE_LEN_MAX &&
		   SLIM_RB_DELTA_MAX == SLIM_ABI_DELTA_MAX, "ABI: page format");

struct slim_rb_stats {
	uint64_t entries;	/* events in the buffer now */
	uint64_t written;	/* events ever committed */
	uint64_t lost;		/* overwritten + dropped */
	uint64_t consumed;	/* read out by consume/read_page, or cleared by reset */
	uint64_t overwritten;	/* committed, then lost to a reused page */
	uint64_t dropped;	/* never recorded: full (drop mode), nested, too big, page held by the reader */
	uint64_t pages;
};

/* A private copy of the pages that an iterator walks. */
struct slim_rb_copy {
	uint64_t time_stamp;
	uint32_t len;
	uint32_t pad;		/* payloads stay 8-byte aligned, as in a page */
	unsigned char data[SLIM_RB_DATA_SIZE];
};

struct slim_rb_iter {
	struct slim_rb_copy *pages;
	unsigned int nr;	/* pages copied */
	unsigned int idx;	/* page being walked */
	uint32_t off;
	uint64_t ts;
};

/*
 * A buffer of nr_pages pages (at least 2) of 4096 bytes.  overwrite: when
 * full, the oldest page is reused (its unread events count as lost);
 * otherwise new events are dropped (and counted).  NULL: out of memory.
 * The buffer belongs to no thread: it outlives its writer.
 */
struct slim_rb *slim_rb_create(unsigned int nr_pages, int overwrite);
/* Neither the writer nor a reader may be using it. */
void slim_rb_destroy(struct slim_rb *rb);

/*
 * Counters, from any thread.  Exact at quiescence; while the writer runs
 * they may be a few events apart.  written == entries + overwritten +
 * consumed; an event fired is either written or dropped.
 */
void slim_rb_stats(struct slim_rb *rb, struct slim_rb_stats *st);

/*
 * Non-consuming walk over the committed events, oldest first, from a
 * private copy taken by iter_start (so the walk may be slow).  Payloads
 * point into the copy and stay valid until iter_end.  Lengths are the
 * reserved length rounded up to 8.  iter_start: 0 or -ENOMEM.
 */
int slim_rb_iter_start(struct slim_rb *rb, struct slim_rb_iter *it);
int slim_rb_iter_next(struct slim_rb_iter *it, const void **payload,
		      unsigned int *len, uint64_t *ts);
void slim_rb_iter_end(struct slim_rb_iter *it);

/*
 * Take the oldest event: 1 (payload copied, len and ts set), 0 if there is
 * none now, -ENOSPC if it is longer than cap (it stays; *len says how long).
 */
int slim_rb_consume(struct slim_rb *rb, void *payload_copy, unsigned int cap,
		    unsigned int *len, uint64_t *ts);
/* Length and time of the oldest event without taking it: 1 or 0. */
int slim_rb_peek(struct slim_rb *rb, unsigned int *len, uint64_t *ts);
/*
 * Take the unread part of the oldest page into page4096 as a complete
 * kernel page: time stamp, commit (with SLIM_RB_MISSED_EVENTS, and
 * SLIM_RB_MISSED_STORED plus the count after the data, when pages were
 * overwritten since the previous call), data, zeros.  With full_only, the
 * page being filled is left alone.  1: a page, 0: none.
 */
int slim_rb_read_page(struct slim_rb *rb, void *page4096, int full_only);

/* What slim_rb_take_page() says of the page it handed out. */
struct slim_rb_taken {
	uint64_t seq;		/* the page's sequence number in the ring */
	uint64_t events;	/* data events in it */
	uint64_t overwritten;	/* events overwritten since the previous page taken */
};
/*
 * slim_rb_read_page() that also says which page it was, how many events
 * it held and how many were overwritten before it (the count its
 * trailer carries), for a caller that adds losses of its own.
 */
int slim_rb_take_page(struct slim_rb *rb, void *page4096, int full_only,
		      struct slim_rb_taken *tk);
/* The sequence number of the page the writer is filling. */
uint64_t slim_rb_write_seq(struct slim_rb *rb);
/* Events the writer refused so far: full (drop mode), nested, too big. */
uint64_t slim_rb_refused(struct slim_rb *rb);
/*
 * Clear what is committed now (the events count as consumed).  A reader
 * operation: safe while the writer records; events recorded meanwhile may
 * stay.  Counters are not reset.
 */
void slim_rb_reset(struct slim_rb *rb);

/* Out-of-line parts of the writer; not for direct use. */
SLIM_COLD void *slim_rb__reserve_slow(struct slim_rb *rb, unsigned int len,
				      uint64_t ts);
SLIM_COLD void *slim_rb__nested(struct slim_rb *rb);

/* Bytes an event of a payload of len bytes takes (ring/page.h). */
static inline uint64_t slim_rb_event_size(unsigned int len)
{
	return slim_page_event_size(len);
}

/*
 * Reserve room for a payload of len bytes at time ts.  The payload is
 * 4-byte aligned, as the kernel's: a record with 8-byte fields is
 * written through a 4-aligned type (or memcpy).  NULL means the event
 * is lost (and counted).
 *
 * The writer's state moves at reserve time, so that commit, which only
 * publishes, is not on the path from one event to the next.
 */
static inline void *slim_rb_reserve(struct slim_rb *rb, unsigned int len,
				    uint64_t ts)
{
	struct slim_rb_writer *w = &rb->w;
	uint64_t size = slim_rb_event_size(len);
	uint32_t off, *ev;
	uint64_t delta;

	if (slim_unlikely(w->busy))
		return slim_rb__nested(rb);
	w->busy = 1;
	/* A signal handler that records must see busy before any state. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);

	off = w->off;
	delta = ts - w->ts;	/* a clock going back wraps: slow path */
	if (slim_unlikely(delta > SLIM_RB_DELTA_MAX || off + size > w->limit))
		return slim_rb__reserve_slow(rb, len, ts);

	ev = (uint32_t *)(w->page->data + off);
	w->resv_off = off;
	w->resv_ts = w->ts;
	w->off = off + (uint32_t)size;
	w->ts = ts;
	return slim_page_put_data(ev, (uint32_t)size, (uint32_t)delta);
}

/* Publish the outstanding reservation. */
static inline void slim_rb_commit(struct slim_rb *rb)
{
	struct slim_rb_writer *w = &rb->w;

	slim_store_release(&w->page->commit, (uint64_t)w->off);
	SLIM_INC_ONCE(w->written);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	w->busy = 0;
}

/*
 * Drop the outstanding reservation (a filtered-out event, not lost).  Only
 * one reservation is ever open, so it is always the last thing in the page
 * and nothing of it was published: rolling the writer back is enough.  A
 * page's first event leaves its time stamp behind (w->ts was set to it),
 * and the next event's delta counts from there: no slow path for it, so
 * a filter that rejects everything keeps to the fast path.
 */
static inline void slim_rb_discard(struct slim_rb *rb)
{
	struct slim_rb_writer *w = &rb->w;
	uint32_t hdr;

	memcpy(&hdr, w->page->data + w->resv_off, sizeof(hdr));
	if (slim_page_hdr_type(hdr) == SLIM_PAGE_TYPE_EXTEND) {
		/*
		 * The event came after a long pause and carried a time
		 * extend: the extend stays (w->ts is where it reaches), so
		 * that the next event's delta is small again.  Dropped with
		 * the event, every later one would need an extend too, and
		 * take the slow path, while a filter kept rejecting.
		 */
		w->off = w->resv_off + 8;
	} else {
		w->off = w->resv_off;
		w->ts = w->resv_ts;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	w->busy = 0;
}

/* The record the inlined fast path reserved, and its length (padding included). */
static inline void *slim_rb_resv_record(struct slim_rb *rb, uint32_t *len)
{
	return slim_page_payload((uint32_t *)(rb->w.page->data + rb->w.resv_off), len);
}

/*
 * Drop a reservation that the inlined fast path made: it keeps resv_off
 * but not resv_ts, which the event's own time delta gives back.  That
 * path never writes a time extend (a long pause sends it to the slow
 * path), so the writer goes back to where the event began.
 */
static inline void slim_rb_discard_fast(struct slim_rb *rb)
{
	struct slim_rb_writer *w = &rb->w;
	uint32_t hdr;

	memcpy(&hdr, w->page->data + w->resv_off, sizeof(hdr));
	w->ts -= slim_page_hdr_delta(hdr);
	w->off = w->resv_off;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	w->busy = 0;
}

#pragma GCC visibility pop

#endif /* SLIM_RING_BUFFER_H */
