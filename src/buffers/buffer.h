/* SPDX-License-Identifier: MIT */
/*
 * Buffer sets (src/buffers/buffer.c): the per-thread buffers of one
 * instance, the record path's way into them, and the one consumer
 * protocol every reader uses (walk, lock, read, consume).
 *
 * Each instance (the top level included) owns one buffer set.  A thread
 * that records into a set claims a buffer of its own there at its first
 * event; it finds it again through a per-thread table indexed by the
 * set's slot, checked against the set's generation so that a removed
 * set's slot, reused by a new set, is never mistaken for the old one.
 */
#ifndef SLIM_BUFFER_H
#define SLIM_BUFFER_H

#include <pthread.h>
#include <stdint.h>
#include "core/internal.h"
#include "ring/ring_buffer.h"

/* Internal: reached directly, not through the GOT, from the library. */
#pragma GCC visibility push(hidden)

#define SLIM_DEFAULT_BUFFER_KB	1024
/* Buffer sets alive at once (SLIM_MAX_BUFSETS, ABI): the top level and 255 instances. */

/*
 * A set's gate: every reader of one of its buffers is inside it, and
 * fork() closes it and waits for them to leave, so that no buffer's read
 * lock is held when the process forks.  Atomics, not a lock: a child
 * inherits no waiter that is not there.
 */
struct slim_gate {
	int readers;
	int closed;		/* a count: fork and a snapshot may both close it */
};

/* How many gates this thread is inside: a snapshot must not wait for itself. */
extern __thread int slim_gate_depth __attribute__((tls_model("initial-exec")));

struct slim_buffer {
	/* rb (RCU for the writer; replaced by a resize), tid: ABI */
	SLIM_ABI_BUFFER
	int owned;		/* a live thread writes here */
	int retired;		/* an old ring kept for its records; rb NULL once read */
	int cpu;		/* its number: the CPU column, trace.dat's CPU */
	/*
	 * The spare ring (the snapshot), NULL when none is allocated.  It
	 * and rb trade places only with the set's gate closed and empty,
	 * so a reader inside the gate sees both stay put.
	 */
	struct slim_rb *snap;
	char comm[16];		/* its name when it took the buffer */
	pthread_mutex_t read_lock;	/* one reader at a time */
	struct slim_gate *gate;		/* its set's */
	struct slim_buffer *next;	/* published with a release store */
};

struct slim_bufset {
	/* Read by the record path (ABI): fast, gen, slot, clock. */
	SLIM_ABI_BUFSET
	/* The control side. */
	pthread_mutex_t lock;		/* claims and list changes */
	struct slim_gate gate;		/* readers of its buffers pass it */
	struct slim_buffer *head;
	int nr_buffers;
	unsigned int pages;		/* for the next ring made */
	int overwrite;
	uint64_t lost_nobuf;		/* events lost: no buffer could be had */
	struct slim_rb_stats gone;	/* counts of the old rings freed (atomic) */
	int snap_on;			/* the spare rings are allocated */
	int snap_lock;			/* swaps, and changes of the spare (a spin lock) */
	uint64_t snapshots;		/* taken so far */
};

/* A thread's table before its first buffer: every gen 0. */
extern struct slim_thread slim_thread_none;

/* The top level's set: slot 0, never removed. */
extern struct slim_bufset slim_bufset_top;

/*
 * What a target's array copies for the fast path (static/record.h): the
 * set's fast word and its slot, both fixed for the set's lifetime.
 */
static inline void slim_bufset_fast_key(const struct slim_bufset *bs, const uint32_t **word,
					unsigned int *slot)
{
	*word = &bs->fast;
	*slot = bs->slot;
}

/* A new set (defaults as the top level's at start-up); NULL: -ENOMEM or no slot. */
struct slim_bufset *slim_bufset_new(int *err);
/*
 * Free a set and its rings.  Nothing may record into it any more: its
 * targets are gone and a grace period has passed since.
 */
void slim_bufset_free(struct slim_bufset *bs);

/* buffer_size_kb and the overwrite option: 0 or -errno; refused = unchanged. */
int slim_bufset_resize(struct slim_bufset *bs, unsigned int pages);
int slim_bufset_set_overwrite(struct slim_bufset *bs, int overwrite);

/* ---- the record path --------------------------------------------------- */

/* A recording thread's buffers: slim_thread_self, one slot per set (ABI). */
SLIM_STATIC_ASSERT(offsetof(struct slim_buffer, rb) == offsetof(struct slim_abi_buffer, rb) &&
		   offsetof(struct slim_buffer, tid) == offsetof(struct slim_abi_buffer, tid),
		   "ABI: buffer");
SLIM_STATIC_ASSERT(offsetof(struct slim_bufset, fast) == offsetof(struct slim_abi_bufset, fast) &&
		   offsetof(struct slim_bufset, clock) == offsetof(struct slim_abi_bufset, clock) &&
		   offsetof(struct slim_bufset, slot) == offsetof(struct slim_abi_bufset, slot) &&
		   offsetof(struct slim_bufset, gen) == offsetof(struct slim_abi_bufset, gen),
		   "ABI: buffer set");

/*
 * tracing_on is a bit of the set's fast word (static/record.h), so that
 * the fast path's one compare covers it; changed with an atomic RMW,
 * since triggers change it from the record path.
 */
static inline int slim_bufset_tracing_on(const struct slim_bufset *bs)
{
	return !(__atomic_load_n(&bs->fast, __ATOMIC_RELAXED) & SLIM_ABI_FAST_OFF);
}

/* Returns the old value. */
static inline int slim_bufset_set_tracing_on(struct slim_bufset *bs, int on)
{
	uint32_t old;

	if (on)
		old = __atomic_fetch_and(&bs->fast, ~SLIM_ABI_FAST_OFF, __ATOMIC_RELAXED);
	else
		old = __atomic_fetch_or(&bs->fast, SLIM_ABI_FAST_OFF, __ATOMIC_RELAXED);
	return !(old & SLIM_ABI_FAST_OFF);
}

/*
 * After bs->clock changed: the fast word's clock bit follows it (and
 * slim_clock_srcs, through slim_clock_srcs_changed).
 */
void slim_bufset_clock_sync(struct slim_bufset *bs);

/* The first event of this thread in bs; NULL: lost, and counted. */
SLIM_COLD struct slim_buffer *slim_bufset_claim(struct slim_bufset *bs);

/* This thread's buffer in bs (inside a read-side section). */
static inline struct slim_buffer *slim_bufset_buffer(struct slim_bufset *bs)
{
	struct slim_thread_slot *s = &slim_thread_self->slot[bs->slot];

	if (slim_likely(s->gen == bs->gen))
		return s->b;
	return slim_bufset_claim(bs);
}

/* ---- the consumer protocol: every reader of the buffers goes here ------ */

/* Walk a set's buffers; safe while buffers are added. */
static inline struct slim_buffer *slim_bufset_first(struct slim_bufset *bs)
{
	return slim_load_acquire(&bs->head);
}

static inline struct slim_buffer *slim_buffer_next(struct slim_buffer *b)
{
	return slim_load_acquire(&b->next);
}

/* One reader of a buffer at a time. */
/* Enter the gate: 1, or 0 while fork() has it closed. */
static inline int slim_gate_try(struct slim_gate *g)
{
	if (__atomic_load_n(&g->closed, __ATOMIC_SEQ_CST))
		return 0;
	__atomic_fetch_add(&g->readers, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&g->closed, __ATOMIC_SEQ_CST)) {
		slim_gate_depth++;
		return 1;
	}
	__atomic_fetch_sub(&g->readers, 1, __ATOMIC_SEQ_CST);
	return 0;
}

void slim_gate_enter(struct slim_gate *g);

static inline void slim_gate_leave(struct slim_gate *g)
{
	slim_gate_depth--;
	__atomic_fetch_sub(&g->readers, 1, __ATOMIC_RELEASE);
}

static inline void slim_buffer_lock(struct slim_buffer *b)
{
	slim_gate_enter(b->gate);
	pthread_mutex_lock(&b->read_lock);
}

static inline int slim_buffer_trylock(struct slim_buffer *b)
{
	if (!slim_gate_try(b->gate))
		return 0;
	if (pthread_mutex_trylock(&b->read_lock) == 0)
		return 1;
	slim_gate_leave(b->gate);
	return 0;
}

static inline void slim_buffer_unlock(struct slim_buffer *b)
{
	pthread_mutex_unlock(&b->read_lock);
	slim_gate_leave(b->gate);
}

/*
 * The ring a reader holding the lock reads (a resize swaps it under the
 * lock); NULL for a retired buffer whose old ring was read and freed.
 */
static inline struct slim_rb *slim_buffer_ring(struct slim_buffer *b)
{
	return slim_load_acquire(&b->rb);
}

/* The ring functions, each under the buffer's read lock. */
int slim_buffer_iter_start(struct slim_buffer *b, struct slim_rb_iter *it);
int slim_buffer_peek(struct slim_buffer *b, unsigned int *len, uint64_t *ts);
int slim_buffer_consume(struct slim_bufset *bs, struct slim_buffer *b, void *rec,
			unsigned int cap, unsigned int *len, uint64_t *ts);

/*
 * A retired buffer whose ring has been read to the end gives its memory
 * back (reader's lock held); its counts stay in the set's.
 */
void slim_buffer_reap(struct slim_bufset *bs, struct slim_buffer *b);

void slim_bufset_stats(struct slim_bufset *bs, struct slim_rb_stats *sum);
int slim_bufset_count(struct slim_bufset *bs);
/* Clear every buffer (writing to `trace`).  Records being written survive. */
void slim_bufset_reset(struct slim_bufset *bs);
uint64_t slim_bufset_lost_nobuf(struct slim_bufset *bs);

/*
 * The snapshot (the kernel's max buffer): a spare ring per buffer, the
 * same size as the live one, that trades places with it.
 *
 * alloc: 0 or -ENOMEM (nothing changed).  free: the spare goes, after a
 * grace period (not from inside a read-side section).  clear: the
 * snapshot's records go, the spare stays.
 */
int slim_bufset_snap_alloc(struct slim_bufset *bs);
void slim_bufset_snap_free(struct slim_bufset *bs);
void slim_bufset_snap_clear(struct slim_bufset *bs);
/*
 * Take a snapshot: every buffer's live ring becomes its snapshot, and
 * recording goes on in its spare, cleared.  From the record path too (a
 * trigger): no allocation, no sleep; it waits only for the readers
 * inside the set's gate and for another swap.  0, -ENOENT (no spare),
 * -EDEADLK (the calling thread is itself a reader or a swapper, as in a
 * signal handler that interrupted one: nothing is done).
 */
int slim_bufset_snapshot(struct slim_bufset *bs);
/* The snapshot's counts, as slim_bufset_stats() gives the live ones'. */
void slim_bufset_snap_stats(struct slim_bufset *bs, struct slim_rb_stats *sum);
/* A copy of a buffer's snapshot for a walk: 0, -ENOENT (none), -ENOMEM. */
int slim_buffer_snap_iter_start(struct slim_buffer *b, struct slim_rb_iter *it);

/* Thread names by id (the kernel's saved_cmdlines). */
void slim_cmdline_save(int32_t tid, const char *comm);
/* Copies the name into comm[16]; "<...>" when unknown, as the kernel. */
void slim_cmdline_get(int32_t tid, char *comm);

#pragma GCC visibility pop

#endif
