/* SPDX-License-Identifier: MIT */
/*
 * ABI — the record fast path, compiled into every program that defines
 * events.
 *
 * The class probe that stage 7 generates calls slim_record_fast() and
 * slim_record_commit() below (through one out-of-line copy of each per
 * file, define_trace.h), so this code and the layouts it reads are
 * copied into users' objects: they are frozen by the shared library's
 * soname.  Changing a layout, a constant, or what the fast path
 * concludes from them needs SLIM_ABI_VERSION (and the soname) bumped.
 * The library's structs begin with the SLIM_ABI_* members below, in this
 * order; static asserts next to each (src/) hold them to it.  This is
 * liburcu's static/ headers' bargain: a few frozen layouts for a record
 * path with no call into the library.
 *
 * The fast path covers the common case: the event feeds one instance's
 * buffers, the thread already has its buffer there, tracing is on, the
 * record fits the page being filled and the clock is the cycle counter;
 * the second, third and last are one compare (the buffer set's fast
 * word, whose address the targets array copies).  ABI 3: that copy and
 * the slot (ABI 2 went through the target to its buffer set), and the
 * kernel's record layout: 4-byte headers, 4-byte aligned payloads (ABI 2
 * wrote a length word and rounded to 8).  A filter (and the event file's triggers that have one) is run
 * on the record at commit, out of line, which then publishes it or rolls the ring back
 * (the kernel's way).  A clock other than the counter takes the
 * library's copy of the same path, slim_record_fast_clock(), which reads
 * it (the fast word then carries SLIM_ABI_FAST_CLOCK).  Anything else
 * (no buffer yet, page switch, a trigger without a filter, several
 * targets, a consumer, a nested event) goes through
 * slim_event_reserve(), which handles every case.
 */
#ifndef SLIMTRACE_STATIC_RECORD_H
#define SLIMTRACE_STATIC_RECORD_H

#include <stdint.h>
#include <slimtrace/compiler.h>
#include <slimtrace/event.h>

SLIM_BEGIN_DECLS

#define SLIM_ABI_VERSION	3

struct slim_rb;
struct slim_rb_page;
struct slim_buffer;
struct slim_bufset;
struct slim_filter;
struct slim_target;

/* A ring page: the kernel's buffer_data_page (src/ring/page.h). */
#define SLIM_ABI_PAGE_HDR	16u
#define SLIM_ABI_PAGE_DATA	(4096u - SLIM_ABI_PAGE_HDR)
#define SLIM_ABI_EVENT_HDR	8u	/* type_len 0, delta, length word */
/* type_len 1..28: the payload in words, a 4-byte header (the kernel's). */
#define SLIM_ABI_TYPE_LEN_MAX	28u
#define SLIM_ABI_DELTA_BITS	27u
#define SLIM_ABI_DELTA_MAX	((1u << SLIM_ABI_DELTA_BITS) - 1)

/* The start of struct slim_rb: its writer's hot state. */
#define SLIM_ABI_WRITER							\
	struct slim_rb_page *page;	/* page being filled */		\
	uint32_t off;			/* bytes used in it */		\
	uint32_t limit;			/* fast path room: 0 sends it slow */ \
	uint64_t ts;			/* time of the last event */	\
	uint64_t written;		/* committed events */		\
	int busy;			/* a reservation is open */	\
	uint32_t resv_off;		/* where the open one starts */	\
	struct slim_target *resv_target; /* whose filter it waits for */

/* The start of struct slim_buffer: a thread's buffer in one set. */
#define SLIM_ABI_BUFFER							\
	struct slim_rb *rb;		/* RCU: a resize replaces it */	\
	int32_t tid;			/* its writer: common_pid */

/*
 * The start of struct slim_bufset: one instance's buffers.  fast is the
 * one word the fast path compares with the thread's slot: the set's gen
 * while tracing is on and its clock reads the cycle counter, gen with
 * SLIM_ABI_FAST_OFF and/or SLIM_ABI_FAST_CLOCK set otherwise, which no
 * slot holds, so the slow path (which checks each itself) runs.
 */
#define SLIM_ABI_BUFSET							\
	uint32_t fast;			/* gen, or gen | the bits below */ \
	uint32_t gen;			/* tells a reused slot apart */	\
	unsigned int slot;		/* in each thread's table */	\
	int clock;			/* enum slim_clock_id */

/* In slim_bufset.fast: tracing_on is 0; the clock is not the counter. */
#define SLIM_ABI_FAST_OFF	0x80000000u
#define SLIM_ABI_FAST_CLOCK	0x40000000u
/* Gens stay below both bits. */
#define SLIM_ABI_GEN_MAX	(SLIM_ABI_FAST_CLOCK - 1)

/* The start of struct slim_target: where an event's records go. */
#define SLIM_ABI_TARGET							\
	unsigned int kind;						\
	unsigned int flags;		/* beyond FILTERED: not the fast path */ \
	struct slim_filter *filter;	/* RCU */			\
	struct slim_bufset *bufs;

/* The start of struct slim_targets: what an event feeds (RCU). */
#define SLIM_ABI_TARGETS						\
	/* Its only target, when that is an instance's buffers; else	\
	 * one whose flags have SLIM_ABI_TARGET_SLOW (never NULL). */	\
	struct slim_target *fast;					\
	/* fast's set's fast word and slot, or a word no slot holds:	\
	 * copied here so that the path need not go through fast to	\
	 * its set before it can find the thread's slot. */		\
	const uint32_t *fast_word;					\
	unsigned int fast_slot;						\
	unsigned int nr;						\
	unsigned int nr_buffers;					\
	unsigned int probe_end;

/* The one target flag the fast path takes: the commit asks the library. */
#define SLIM_ABI_TARGET_FILTERED	1u
/* The flags of the target fast points to when there is no fast target. */
#define SLIM_ABI_TARGET_SLOW		0x80000000u

struct slim_abi_writer { SLIM_ABI_WRITER };
struct slim_abi_buffer { SLIM_ABI_BUFFER };
struct slim_abi_bufset { SLIM_ABI_BUFSET };
struct slim_abi_target { SLIM_ABI_TARGET };
struct slim_abi_targets { SLIM_ABI_TARGETS };

struct slim_abi_page {
	uint64_t time_stamp;
	uint64_t commit;
	unsigned char data[SLIM_ABI_PAGE_DATA];
};

/* Each thread's buffers, one slot per buffer set (instance). */
#define SLIM_MAX_BUFSETS	256

struct slim_thread_slot {
	struct slim_buffer *b;
	uint32_t gen;			/* its set's gen; 0: none */
};

struct slim_thread {
	struct slim_thread_slot slot[SLIM_MAX_BUFSETS];
};

/*
 * Never NULL: a thread that has no buffer yet points to an empty table
 * (every gen 0), which sends it to the slow path like any stale slot.
 */
extern SLIM_EXPORT __thread struct slim_thread *slim_thread_self
	__attribute__((__tls_model__("initial-exec")));

/*
 * What each clock reads: a POSIX clock id, or -1 for the cycle counter.
 * The library's (the fast path reads the fast word's clock bit instead).
 */
#define SLIM_ABI_CLOCK_COUNTER	(-1)
extern SLIM_EXPORT int slim_clock_srcs[];

#if defined(__x86_64__)
# define SLIM_ABI_HAVE_CYCLES 1
static inline uint64_t slim_abi_cycles(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}
#elif defined(__aarch64__)
# define SLIM_ABI_HAVE_CYCLES 1
static inline uint64_t slim_abi_cycles(void)
{
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}
#else
# define SLIM_ABI_HAVE_CYCLES 0
static inline uint64_t slim_abi_cycles(void)
{
	return 0;
}
#endif

/*
 * The library's: the time now in the clock of the fast target's set when
 * that is not the cycle counter (its fast word has SLIM_ABI_FAST_CLOCK),
 * in ns; 0 when the clock just became the counter (the slow path then
 * reads it).  Exported because a program built without optimisation
 * keeps the branch of the path below that calls it.
 */
SLIM_EXPORT uint64_t slim_record_clock_ns(struct slim_target *t);

/*
 * What slim_record_fast() returns: two registers.  With rec, w is the
 * ring's writer (tagged, for slim_record_commit()); without, w is NULL
 * (nothing to record) or the event again, for slim_event_reserve(), so
 * that the probe need not keep it across the call.
 */
struct slim_record_room {
	void *rec;
	void *w;
};

/*
 * What slim_record_fast() takes: a record of size bytes (its common
 * header included, so at least 8) as the ring stores it, header and
 * padding included: as the kernel stores it, 4-byte aligned, with a
 * 4-byte header whose type_len is the payload in words up to 112 bytes
 * (a 2-int event takes 28 bytes), else type_len 0 and a length word.
 * So esize is at most 116 for the first form, at least 124 for the
 * second.  A size that no page holds (0 is the probe's "too large",
 * which slim_event_reserve() counts lost) becomes SLIM_ABI_ESIZE_NONE,
 * larger than any page's room, small enough that off + esize never
 * wraps.  A constant for a class without dynamic fields.
 */
#define SLIM_ABI_ESIZE_NONE	0x10000u
#define __slim_record_words(size)	(((unsigned int)(size) + 3) & ~3u)
#define slim_record_esize(size)						\
	((unsigned int)(size) - 1 < SLIM_ABI_PAGE_DATA - SLIM_ABI_EVENT_HDR ? \
	 __slim_record_words(size) +					\
	 (__slim_record_words(size) <= 4 * SLIM_ABI_TYPE_LEN_MAX ? 4u : 8u) : \
	 SLIM_ABI_ESIZE_NONE)

/* The library's copy of the path below, for another clock (how SLIM_FAST_CLOCK). */
SLIM_EXPORT struct slim_record_room slim_record_fast_clock(struct slim_event *ev,
							unsigned int esize);

/* Which clock the path below serves, and where another clock goes. */
enum slim_fast_how {
	SLIM_FAST_TAIL,		/* the counter; another: slim_record_fast_clock() */
	SLIM_FAST_LEAF,		/* the counter; another: the slow path (a leaf) */
	SLIM_FAST_CLOCK,	/* another clock, read by slim_record_clock_ns() */
};

/*
 * The fast path's room for a record of esize bytes (slim_record_esize()),
 * common header filled, and the ring's writer for slim_record_commit().
 * No rec and no w: nothing to record (no target); no rec and w (the
 * event): only slim_event_reserve() can say.  how is a constant.
 */
static inline __attribute__((__always_inline__)) struct slim_record_room
__slim_record_fast_on(struct slim_event *ev, unsigned int esize, enum slim_fast_how how)
{
	struct slim_record_room none = { NULL, NULL }, slow = { NULL, ev };
	const struct slim_abi_targets *ts;
	struct slim_target *tgt;
	const struct slim_abi_target *t;
	const struct slim_thread_slot *s;
	const struct slim_abi_buffer *b;
	struct slim_abi_writer *w;
	struct slim_trace_entry *ent;
	uint32_t off, hdr, tl, word, *e;
	uint64_t now, delta;
	unsigned int fl;

	ts = (const struct slim_abi_targets *)slim_load_acquire(&ev->targets);
	if (slim_unlikely(!ts))
		return none;
	tgt = ts->fast;
	t = (const struct slim_abi_target *)tgt;
	s = &slim_thread_self->slot[ts->fast_slot];
	fl = SLIM_READ_ONCE(t->flags);
	word = __atomic_load_n(ts->fast_word, __ATOMIC_RELAXED);
	if (how != SLIM_FAST_CLOCK) {
		/* One compare: this set's slot, tracing on, the counter's clock. */
		if (slim_unlikely(s->gen != word)) {
			/*
			 * Another clock is the library's copy of this path
			 * (a tail call: this one stays a leaf), or the slow
			 * path's.
			 */
			if (how == SLIM_FAST_TAIL && s->gen == (word & ~SLIM_ABI_FAST_CLOCK))
				return slim_record_fast_clock(ev, esize);
			return slow;
		}
		/*
		 * Read before the buffer's loads: the counter read waits for
		 * what comes before it to finish, so those overlap it
		 * instead.  After the compare, so that another clock does not
		 * pay for it.  A nested event recorded in between makes this
		 * stamp older than the ring's last, which the delta check
		 * below sends to the slow path.
		 */
		now = slim_abi_cycles();
		if (slim_unlikely(!SLIM_ABI_HAVE_CYCLES))
			return slow;
	} else {
		/* The slot, tracing on, another clock. */
		if (s->gen != (word & ~SLIM_ABI_FAST_CLOCK))
			return slow;
		now = slim_record_clock_ns(tgt);
		if (!now)
			return slow;
	}
	if (slim_unlikely(fl & ~SLIM_ABI_TARGET_FILTERED))
		return slow;
	b = (const struct slim_abi_buffer *)s->b;
	w = (struct slim_abi_writer *)slim_load_acquire(&b->rb);
	if (slim_unlikely(w->busy))
		return slow;
	w->busy = 1;
	/* A signal handler that records must see busy before any state. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	off = w->off;
	/* For a filter's commit: which target, and where the record starts. */
	if (fl) {
		w->resv_target = tgt;
		w->resv_off = off;
	}
	delta = now - w->ts;	/* a clock going back wraps: slow path */
	if (slim_unlikely(delta > SLIM_ABI_DELTA_MAX || off + esize > w->limit)) {
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		w->busy = 0;
		return slow;
	}
	e = (uint32_t *)(((struct slim_abi_page *)w->page)->data + off);
	/* The header in the kernel's bit order: type_len, delta. */
	tl = (esize - 4) >> 2;
	if (slim_likely(tl <= SLIM_ABI_TYPE_LEN_MAX)) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		e[0] = tl << SLIM_ABI_DELTA_BITS | (uint32_t)delta;
#else
		e[0] = (uint32_t)delta << 5 | tl;
#endif
		ent = (struct slim_trace_entry *)(e + 1);
	} else {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		e[0] = (uint32_t)delta;
#else
		e[0] = (uint32_t)delta << 5;
#endif
		e[1] = esize - 4;	/* a length word, which counts itself */
		ent = (struct slim_trace_entry *)(e + 2);
	}
	w->off = off + esize;
	w->ts = now;
	/* type, flags 0, preempt_count 0: one store. */
	hdr = (uint16_t)ev->event.type;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	hdr <<= 16;
#endif
	__builtin_memcpy(ent, &hdr, sizeof(hdr));
	ent->pid = b->tid;
	/*
	 * The common header is done: inline in a probe, gcc would otherwise
	 * pair the pid's store with the first field's through a vector
	 * register (four instructions for two stores).
	 */
	__asm__("" : "+m"(*ent));
	slow.rec = ent;
	/* Tagged when filtered: slim_record_commit() then asks the filter. */
	slow.w = (void *)((uintptr_t)w | fl);
	return slow;
}

static inline __attribute__((__always_inline__)) struct slim_record_room
slim_record_fast(struct slim_event *ev, unsigned int esize)
{
	return __slim_record_fast_on(ev, esize, SLIM_FAST_TAIL);
}

/*
 * The same, a leaf, for a probe that has it inline (SLIM_RECORD_INLINE):
 * another clock gets no room here, so its probe's out-of-line part
 * tries slim_record_fast_clock() before the slow path.
 */
static inline __attribute__((__always_inline__)) struct slim_record_room
slim_record_fast_leaf(struct slim_event *ev, unsigned int esize)
{
	return __slim_record_fast_on(ev, esize, SLIM_FAST_LEAF);
}

/* A filtered target's commit: its filter decides (static/record.h). */
SLIM_EXPORT void slim_record_commit_filtered(struct slim_abi_writer *w);

/* Publish the record the fast path reserved, or let its filter decide. */
static inline __attribute__((__always_inline__)) void
slim_record_commit(struct slim_abi_writer *w)
{
	struct slim_abi_page *page;

	if (slim_unlikely((uintptr_t)w & SLIM_ABI_TARGET_FILTERED)) {
		slim_record_commit_filtered((struct slim_abi_writer *)
					    ((uintptr_t)w & ~(uintptr_t)SLIM_ABI_TARGET_FILTERED));
		return;
	}
	page = (struct slim_abi_page *)w->page;
	__atomic_store_n(&page->commit, (uint64_t)w->off, __ATOMIC_RELEASE);
	SLIM_INC_ONCE(w->written);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	w->busy = 0;
}

SLIM_END_DECLS

#endif /* SLIMTRACE_STATIC_RECORD_H */
