// SPDX-License-Identifier: MIT
/*
 * Buffer sets: the per-thread buffers of one instance.
 *
 * Every thread that records writes into a buffer of its own, so the
 * record path needs no atomic read-modify-write and no fence: a thread
 * claims a buffer at its first event in a set and hands it back when it
 * exits.  A handed-back buffer keeps its records (readable, like a CPU's
 * buffer in the kernel) and the next new thread continues in it, so the
 * number of buffers is the largest number of threads that recorded into
 * the set at once.  docs/buffers.md explains per-thread over per-CPU.
 *
 * Locks: bs->lock orders claims and list changes of one set; slots_lock
 * guards the table of live sets that exiting threads check their slots
 * against.  Neither is ever held across an RCU grace period, because a
 * thread claiming its buffer does so inside its read-side section.
 *
 * A thread's first event may come from a signal handler, so the claim
 * is async-signal-safe: its memory comes from mmap(2), and a handler
 * that interrupted its own thread inside a section holding bs->lock
 * (where waiting for the lock would never end) counts the event lost
 * instead of claiming.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "buffers/buffer.h"
#include "core/clock.h"
#include "core/fork.h"

struct slim_thread slim_thread_none;
__thread struct slim_thread *slim_thread_self
	__attribute__((tls_model("initial-exec"))) = &slim_thread_none;
__thread int slim_gate_depth __attribute__((tls_model("initial-exec")));

struct slim_bufset slim_bufset_top = {
	/* The clock bit until clock_sync() has seen the clock's source. */
	.fast = 1 | SLIM_ABI_FAST_CLOCK,
	.clock = SLIM_CLOCK_MONO,
	.slot = 0,
	.gen = 1,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.pages = SLIM_DEFAULT_BUFFER_KB / 4,
	.overwrite = 1,
};

/* Live sets by slot, for exiting threads; gens are never reused. */
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static struct slim_bufset *slots[SLIM_MAX_BUFSETS] = { &slim_bufset_top };
static uint32_t next_gen = 2;

static pthread_key_t exit_key;

/* Orders updates of the fast words' clock bits (after slots_lock). */
static pthread_mutex_t clock_bit_lock = PTHREAD_MUTEX_INITIALIZER;

static void clock_bit_update(struct slim_bufset *bs)
{
	int id = SLIM_READ_ONCE(bs->clock);

	/* Read under the lock: the last update sees the last change. */
	if (__atomic_load_n(&slim_clock_srcs[id], __ATOMIC_SEQ_CST) == SLIM_CLOCK_SRC_COUNTER)
		__atomic_fetch_and(&bs->fast, ~SLIM_ABI_FAST_CLOCK, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_or(&bs->fast, SLIM_ABI_FAST_CLOCK, __ATOMIC_SEQ_CST);
}

void slim_bufset_clock_sync(struct slim_bufset *bs)
{
	pthread_mutex_lock(&clock_bit_lock);
	clock_bit_update(bs);
	pthread_mutex_unlock(&clock_bit_lock);
}

/* slim_clock_srcs changed: every live set's clock bit. */
static void clock_srcs_changed(void)
{
	unsigned int i;

	pthread_mutex_lock(&slots_lock);
	pthread_mutex_lock(&clock_bit_lock);
	for (i = 0; i < SLIM_MAX_BUFSETS; i++)
		if (slots[i])
			clock_bit_update(slots[i]);
	pthread_mutex_unlock(&clock_bit_lock);
	pthread_mutex_unlock(&slots_lock);
}

/* Inside a section holding a set's lock: a signal handler must not claim. */
static __thread int in_locked
	__attribute__((tls_model("initial-exec")));

static void set_lock(struct slim_bufset *bs)
{
	in_locked++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pthread_mutex_lock(&bs->lock);
}

static void set_unlock(struct slim_bufset *bs)
{
	pthread_mutex_unlock(&bs->lock);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	in_locked--;
}

void slim_gate_enter(struct slim_gate *g)
{
	while (!slim_gate_try(g))
		sched_yield();
}

/* fork(), a snapshot: no new reader in, and the ones inside out. */
static void gate_close(struct slim_gate *g)
{
	int spins = 0;

	__atomic_fetch_add(&g->closed, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&g->readers, __ATOMIC_SEQ_CST)) {
		if (++spins > 100)
			sched_yield();
	}
}

static void gate_open(struct slim_gate *g)
{
	__atomic_fetch_sub(&g->closed, 1, __ATOMIC_SEQ_CST);
}

/*
 * The snapshot lock: a spin lock, because a trigger takes it on the
 * record path, maybe in a signal handler, where a mutex may not be
 * taken.  Its holders do a bounded amount of work and never block with
 * it.  snap_held tells a signal handler that interrupted a holder.
 */
static __thread int snap_held __attribute__((tls_model("initial-exec")));

static void snap_lock(struct slim_bufset *bs)
{
	int zero = 0, spins = 0;

	snap_held++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	while (!__atomic_compare_exchange_n(&bs->snap_lock, &zero, 1, 0,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		zero = 0;
		if (++spins > 100)
			sched_yield();
	}
}

static void snap_unlock(struct slim_bufset *bs)
{
	__atomic_store_n(&bs->snap_lock, 0, __ATOMIC_RELEASE);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	snap_held--;
}

static void *map(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

#define BUFFER_MAP	((sizeof(struct slim_buffer) + 4095) & ~(size_t)4095)
#define THREAD_MAP	((sizeof(struct slim_thread) + 4095) & ~(size_t)4095)

static void buffer_free(struct slim_buffer *b)
{
	slim_rb_destroy(b->rb);
	slim_rb_destroy(b->snap);
	pthread_mutex_destroy(&b->read_lock);
	munmap(b, BUFFER_MAP);
}

/* A thread exits: its buffers in every live set are free for the next. */
static void thread_exit(void *arg)
{
	struct slim_thread *t = arg;
	unsigned int i;

	slim_thread_self = &slim_thread_none;
	pthread_mutex_lock(&slots_lock);
	for (i = 0; i < SLIM_MAX_BUFSETS; i++) {
		struct slim_thread_slot *s = &t->slot[i];

		if (s->b && slots[i] && slots[i]->gen == s->gen)
			slim_store_release(&s->b->owned, 0);
	}
	pthread_mutex_unlock(&slots_lock);
	munmap(t, THREAD_MAP);
}

/* ---- fork: every set's lock and every buffer's read lock --------------- */

static void fork_lock(void)
{
	unsigned int i;

	pthread_mutex_lock(&slots_lock);
	/* No child inherits it held (a clock change in another thread). */
	pthread_mutex_lock(&clock_bit_lock);
	for (i = 0; i < SLIM_MAX_BUFSETS; i++) {
		if (!slots[i])
			continue;
		pthread_mutex_lock(&slots[i]->lock);
		/* No swap half done in the child. */
		snap_lock(slots[i]);
		gate_close(&slots[i]->gate);
	}
}

static void fork_unlock(void)
{
	unsigned int i;

	for (i = SLIM_MAX_BUFSETS; i-- > 0;) {
		if (!slots[i])
			continue;
		gate_open(&slots[i]->gate);
		snap_unlock(slots[i]);
		pthread_mutex_unlock(&slots[i]->lock);
	}
	pthread_mutex_unlock(&clock_bit_lock);
	pthread_mutex_unlock(&slots_lock);
}

/* The child's one thread keeps its buffers; the others' are free for new threads. */
static void fork_child(void)
{
	struct slim_thread *t = slim_thread_self;
	struct slim_buffer *b;
	unsigned int i;

	for (i = 0; i < SLIM_MAX_BUFSETS; i++) {
		for (b = slots[i] ? slots[i]->head : NULL; b; b = b->next) {
			if (t->slot[i].b != b || t->slot[i].gen != slots[i]->gen)
				b->owned = 0;
			else
				b->tid = (int32_t)gettid();
		}
	}
	fork_unlock();
}

static struct slim_fork_hook fork_hook = {
	SLIM_FORK_BUFFERS, fork_lock, fork_unlock, fork_child, NULL
};

/* Before any thread records: the claim must not create keys in a signal handler. */
__attribute__((constructor(101))) static void buffers_init(void)
{
	pthread_key_create(&exit_key, thread_exit);
	slim_fork_hook_add(&fork_hook);
	slim_clock_srcs_changed = clock_srcs_changed;
	clock_srcs_changed();
}

struct slim_bufset *slim_bufset_new(int *err)
{
	struct slim_bufset *bs = calloc(1, sizeof(*bs));
	unsigned int i;

	if (!bs) {
		*err = -ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&bs->lock, NULL);
	bs->clock = SLIM_CLOCK_MONO;
	bs->pages = SLIM_DEFAULT_BUFFER_KB / 4;
	bs->overwrite = 1;
	pthread_mutex_lock(&slots_lock);
	for (i = 1; i < SLIM_MAX_BUFSETS && slots[i]; i++)
		;
	if (i < SLIM_MAX_BUFSETS && next_gen <= SLIM_ABI_GEN_MAX) {
		bs->slot = i;
		bs->gen = next_gen++;
		/* Tracing on; the clock bit until clock_sync() below. */
		bs->fast = bs->gen | SLIM_ABI_FAST_CLOCK;
		slots[i] = bs;
	} else {
		i = SLIM_MAX_BUFSETS;
	}
	pthread_mutex_unlock(&slots_lock);
	if (i < SLIM_MAX_BUFSETS)
		slim_bufset_clock_sync(bs);
	if (i == SLIM_MAX_BUFSETS) {
		free(bs);
		*err = -ENOSPC;
		return NULL;
	}
	return bs;
}

void slim_bufset_free(struct slim_bufset *bs)
{
	struct slim_buffer *b, *next;

	if (!bs || bs == &slim_bufset_top)
		return;
	pthread_mutex_lock(&slots_lock);
	slots[bs->slot] = NULL;
	pthread_mutex_unlock(&slots_lock);
	for (b = bs->head; b; b = next) {
		next = b->next;
		buffer_free(b);
	}
	pthread_mutex_destroy(&bs->lock);
	free(bs);
}

static void append(struct slim_bufset *bs, struct slim_buffer *b)
{
	struct slim_buffer **tail;

	for (tail = &bs->head; *tail; tail = &(*tail)->next)
		;
	/* Readers walk the list without the lock. */
	slim_store_release(tail, b);
}

/* A free buffer (its thread exited), or a new one; bs->lock held. */
static struct slim_buffer *take_buffer(struct slim_bufset *bs)
{
	struct slim_buffer *b;
	int zero = 0;

	for (b = bs->head; b; b = b->next) {
		if (!b->retired && __atomic_compare_exchange_n(&b->owned, &zero, 1, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return b;
		zero = 0;
	}
	b = map(BUFFER_MAP);
	if (!b)
		return NULL;
	b->rb = slim_rb_create(bs->pages, bs->overwrite);
	if (!b->rb) {
		munmap(b, BUFFER_MAP);
		return NULL;
	}
	/* Without a spare (no memory) its records just stay out of snapshots. */
	if (bs->snap_on)
		b->snap = slim_rb_create(bs->pages, bs->overwrite);
	pthread_mutex_init(&b->read_lock, NULL);
	b->gate = &bs->gate;
	b->owned = 1;
	b->cpu = bs->nr_buffers++;
	append(bs, b);
	return b;
}

/* The one-time cost of a thread's first event in a set. */
SLIM_COLD struct slim_buffer *slim_bufset_claim(struct slim_bufset *bs)
{
	struct slim_thread *t = slim_thread_self;
	struct slim_buffer *b;

	/* A signal handler that interrupted this thread holding bs->lock. */
	if (in_locked)
		goto lost;
	if (t == &slim_thread_none) {
		t = map(THREAD_MAP);
		if (!t)
			goto lost;
		slim_thread_self = t;
		pthread_setspecific(exit_key, t);
	}
	set_lock(bs);
	b = take_buffer(bs);
	set_unlock(bs);
	if (!b)
		goto lost;
	b->tid = (int32_t)gettid();
	if (prctl(PR_GET_NAME, b->comm) != 0)
		strcpy(b->comm, "<...>");
	slim_cmdline_save(b->tid, b->comm);
	t->slot[bs->slot].b = b;
	t->slot[bs->slot].gen = bs->gen;
	return b;
lost:
	__atomic_fetch_add(&bs->lost_nobuf, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void add_gone(struct slim_bufset *bs, const struct slim_rb_stats *st)
{
	__atomic_fetch_add(&bs->gone.written, st->written, __ATOMIC_RELAXED);
	__atomic_fetch_add(&bs->gone.lost, st->lost, __ATOMIC_RELAXED);
	__atomic_fetch_add(&bs->gone.consumed, st->consumed, __ATOMIC_RELAXED);
	__atomic_fetch_add(&bs->gone.overwritten, st->overwritten, __ATOMIC_RELAXED);
	__atomic_fetch_add(&bs->gone.dropped, st->dropped, __ATOMIC_RELAXED);
}

/* An old ring nobody writes: free it if read to the end.  1 if freed. */
static int free_if_empty(struct slim_bufset *bs, struct slim_rb *rb)
{
	struct slim_rb_stats st;

	slim_rb_stats(rb, &st);
	if (st.entries)
		return 0;
	add_gone(bs, &st);
	slim_rb_destroy(rb);
	return 1;
}

void slim_buffer_reap(struct slim_bufset *bs, struct slim_buffer *b)
{
	struct slim_rb *rb = slim_buffer_ring(b);

	if (b->retired && rb && free_if_empty(bs, rb))
		slim_store_release(&b->rb, NULL);
}

/*
 * An old ring with records left: into a retired buffer whose own ring is
 * gone (so the number of buffers stays bounded), else a new one.
 */
static int keep_old_ring(struct slim_bufset *bs, struct slim_rb *rb)
{
	struct slim_buffer *b;

	for (b = bs->head; b; b = b->next) {
		if (!b->retired || slim_load_acquire(&b->rb))
			continue;
		slim_buffer_lock(b);
		if (!b->rb) {
			slim_store_release(&b->rb, rb);
			slim_buffer_unlock(b);
			return 0;
		}
		slim_buffer_unlock(b);
	}
	b = map(BUFFER_MAP);
	if (!b)
		return -ENOMEM;
	b->rb = rb;
	b->retired = 1;
	pthread_mutex_init(&b->read_lock, NULL);
	b->gate = &bs->gate;
	b->cpu = bs->nr_buffers++;
	append(bs, b);
	return 0;
}

/*
 * New rings for every buffer (buffer_size_kb, the overwrite option).
 * All are made first, so that a refusal changes nothing.  Writers switch
 * at their next event; an old ring with records left stays readable as a
 * retired buffer until it is read or cleared, then gives its memory back.
 *
 * The spare follows: an allocated snapshot gets new rings of the new
 * size too, so that a trigger's swap never needs to allocate or resize,
 * and its records are dropped (a snapshot of another size cannot be
 * swapped back in).
 */
static int rebuild(struct slim_bufset *bs, unsigned int pages, int overwrite)
{
	struct slim_rb **rings, **old;
	struct slim_buffer *b;
	int i, n, per, nr_old = 0, ret = 0;

	set_lock(bs);
	per = bs->snap_on ? 2 : 1;
	n = bs->nr_buffers * per;
	rings = calloc(n ? n : 1, sizeof(*rings));
	old = calloc(n ? n : 1, sizeof(*old));
	for (i = 0, b = bs->head; rings && old && b; b = b->next) {
		int k;

		if (b->retired)
			continue;
		for (k = 0; k < per; k++) {
			rings[i] = slim_rb_create(pages, overwrite);
			if (!rings[i]) {
				ret = -ENOMEM;
				break;
			}
			i++;
		}
		if (ret)
			break;
	}
	if (!rings || !old || ret) {
		while (rings && i > 0)
			slim_rb_destroy(rings[--i]);
		set_unlock(bs);
		free(rings);
		free(old);
		return -ENOMEM;
	}
	bs->pages = pages;
	bs->overwrite = overwrite;
	/* Old spares go with the gate closed: no swap and no reader between. */
	snap_lock(bs);
	gate_close(&bs->gate);
	for (i = 0, b = bs->head; b; b = b->next) {
		if (b->retired)
			continue;
		old[nr_old++] = b->rb;
		slim_rcu_assign_pointer(b->rb, rings[i++]);
		if (per == 2) {
			old[nr_old++] = b->snap;	/* NULL if it never had one */
			slim_store_release(&b->snap, rings[i++]);
		}
	}
	gate_open(&bs->gate);
	snap_unlock(bs);
	set_unlock(bs);
	free(rings);

	/* Writers still in the old rings finish before readers take them. */
	slim_rcu_synchronize();

	set_lock(bs);
	for (i = 0; i < nr_old; i++) {
		if (per == 2 && i % 2) {
			slim_rb_destroy(old[i]);
			continue;
		}
		if (!free_if_empty(bs, old[i]) && keep_old_ring(bs, old[i]))
			ret = -ENOMEM;	/* its records are lost: counted below */
	}
	set_unlock(bs);
	free(old);
	return ret;
}

int slim_bufset_resize(struct slim_bufset *bs, unsigned int pages)
{
	if (pages < 1)
		return -EINVAL;
	return rebuild(bs, pages, bs->overwrite);
}

int slim_bufset_set_overwrite(struct slim_bufset *bs, int overwrite)
{
	if (!!overwrite == bs->overwrite)
		return 0;
	return rebuild(bs, bs->pages, !!overwrite);
}

/* ---- readers ----------------------------------------------------------- */

int slim_buffer_iter_start(struct slim_buffer *b, struct slim_rb_iter *it)
{
	int ret;

	slim_buffer_lock(b);
	ret = slim_buffer_ring(b) ? slim_rb_iter_start(slim_buffer_ring(b), it) : -ENOENT;
	slim_buffer_unlock(b);
	return ret;
}

int slim_buffer_peek(struct slim_buffer *b, unsigned int *len, uint64_t *ts)
{
	int ret;

	slim_buffer_lock(b);
	ret = slim_buffer_ring(b) ? slim_rb_peek(slim_buffer_ring(b), len, ts) : 0;
	slim_buffer_unlock(b);
	return ret;
}

int slim_buffer_consume(struct slim_bufset *bs, struct slim_buffer *b, void *rec,
			unsigned int cap, unsigned int *len, uint64_t *ts)
{
	int ret = 0;

	slim_buffer_lock(b);
	if (slim_buffer_ring(b))
		ret = slim_rb_consume(slim_buffer_ring(b), rec, cap, len, ts);
	if (b->retired)
		slim_buffer_reap(bs, b);
	slim_buffer_unlock(b);
	return ret;
}

void slim_bufset_reset(struct slim_bufset *bs)
{
	struct slim_buffer *b;

	for (b = slim_bufset_first(bs); b; b = slim_buffer_next(b)) {
		slim_buffer_lock(b);
		if (slim_buffer_ring(b))
			slim_rb_reset(slim_buffer_ring(b));
		slim_buffer_reap(bs, b);
		slim_buffer_unlock(b);
	}
}

/* ---- the snapshot ------------------------------------------------------ */

int slim_bufset_snap_alloc(struct slim_bufset *bs)
{
	struct slim_rb **rings;
	struct slim_buffer *b;
	int i, n;

	set_lock(bs);
	if (bs->snap_on) {
		set_unlock(bs);
		return 0;
	}
	n = bs->nr_buffers;
	rings = calloc(n ? n : 1, sizeof(*rings));
	for (i = 0, b = bs->head; rings && b; b = b->next) {
		if (b->retired)
			continue;
		rings[i] = slim_rb_create(bs->pages, bs->overwrite);
		if (!rings[i])
			break;
		i++;
	}
	if (!rings || b) {
		while (rings && i > 0)
			slim_rb_destroy(rings[--i]);
		set_unlock(bs);
		free(rings);
		return -ENOMEM;
	}
	snap_lock(bs);
	for (i = 0, b = bs->head; b; b = b->next) {
		if (!b->retired)
			slim_store_release(&b->snap, rings[i++]);
	}
	__atomic_store_n(&bs->snap_on, 1, __ATOMIC_RELEASE);
	snap_unlock(bs);
	set_unlock(bs);
	free(rings);
	return 0;
}

void slim_bufset_snap_free(struct slim_bufset *bs)
{
	struct slim_rb **old;
	struct slim_buffer *b;
	int i, n;

	set_lock(bs);
	n = bs->nr_buffers;
	old = calloc(n ? n : 1, sizeof(*old));
	if (!bs->snap_on || !old) {
		/* Out of memory for the list: the spare stays, still usable. */
		set_unlock(bs);
		free(old);
		return;
	}
	snap_lock(bs);
	gate_close(&bs->gate);
	for (i = 0, b = bs->head; b; b = b->next) {
		old[i++] = b->snap;
		b->snap = NULL;
	}
	__atomic_store_n(&bs->snap_on, 0, __ATOMIC_RELEASE);
	gate_open(&bs->gate);
	snap_unlock(bs);
	set_unlock(bs);
	/* A writer that was inside a reservation when it was swapped out. */
	slim_rcu_synchronize();
	while (i > 0)
		slim_rb_destroy(old[--i]);
	free(old);
}

void slim_bufset_snap_clear(struct slim_bufset *bs)
{
	struct slim_buffer *b;

	for (b = slim_bufset_first(bs); b; b = slim_buffer_next(b)) {
		slim_buffer_lock(b);
		if (b->snap)
			slim_rb_reset(b->snap);
		slim_buffer_unlock(b);
	}
}

/*
 * The swap.  Readers are kept out by closing the gate, not by each
 * buffer's mutex, which a signal handler must not take; writers are not
 * kept out at all: a writer that loaded rb before the swap finishes its
 * record in the ring that became the snapshot (the record is older than
 * the snapshot, so that is where it belongs), and the ring is freed only
 * after a grace period.  The spare is cleared as it comes in; a writer
 * still finishing a record there from an earlier swap is safe, as the
 * ring's reset runs beside its writer.  Each buffer swaps in turn, so a
 * snapshot is the moment each thread's ring was swapped, within the
 * few microseconds the walk takes.
 */
int slim_bufset_snapshot(struct slim_bufset *bs)
{
	struct slim_buffer *b;
	int ret = 0;

	if (slim_gate_depth || snap_held)
		return -EDEADLK;
	if (!__atomic_load_n(&bs->snap_on, __ATOMIC_ACQUIRE))
		return -ENOENT;
	snap_lock(bs);
	if (!bs->snap_on) {
		ret = -ENOENT;
		goto out;
	}
	gate_close(&bs->gate);
	for (b = slim_bufset_first(bs); b; b = slim_buffer_next(b)) {
		struct slim_rb *spare = slim_load_acquire(&b->snap);

		if (b->retired || !spare)
			continue;
		slim_rb_reset(spare);
		slim_store_release(&b->snap, b->rb);
		slim_rcu_assign_pointer(b->rb, spare);
	}
	gate_open(&bs->gate);
	__atomic_fetch_add(&bs->snapshots, 1, __ATOMIC_RELAXED);
out:
	snap_unlock(bs);
	return ret;
}

static void stats_add(struct slim_rb_stats *sum, const struct slim_rb_stats *st)
{
	sum->entries += st->entries;
	sum->written += st->written;
	sum->lost += st->lost;
	sum->consumed += st->consumed;
	sum->overwritten += st->overwritten;
	sum->dropped += st->dropped;
	sum->pages += st->pages;
}

void slim_bufset_snap_stats(struct slim_bufset *bs, struct slim_rb_stats *sum)
{
	struct slim_buffer *b;
	struct slim_rb_stats st;

	memset(sum, 0, sizeof(*sum));
	for (b = slim_bufset_first(bs); b; b = slim_buffer_next(b)) {
		int have;

		slim_buffer_lock(b);
		have = b->snap != NULL;
		if (have)
			slim_rb_stats(b->snap, &st);
		slim_buffer_unlock(b);
		if (!have)
			continue;
		stats_add(sum, &st);
	}
}

int slim_buffer_snap_iter_start(struct slim_buffer *b, struct slim_rb_iter *it)
{
	int ret;

	slim_buffer_lock(b);
	ret = b->snap ? slim_rb_iter_start(b->snap, it) : -ENOENT;
	slim_buffer_unlock(b);
	return ret;
}

uint64_t slim_bufset_lost_nobuf(struct slim_bufset *bs)
{
	return __atomic_load_n(&bs->lost_nobuf, __ATOMIC_RELAXED);
}

void slim_bufset_stats(struct slim_bufset *bs, struct slim_rb_stats *sum)
{
	struct slim_buffer *b;
	struct slim_rb_stats st;
	uint64_t nobuf = slim_bufset_lost_nobuf(bs);

	sum->entries = 0;
	sum->written = __atomic_load_n(&bs->gone.written, __ATOMIC_RELAXED);
	sum->lost = __atomic_load_n(&bs->gone.lost, __ATOMIC_RELAXED);
	sum->consumed = __atomic_load_n(&bs->gone.consumed, __ATOMIC_RELAXED);
	sum->overwritten = __atomic_load_n(&bs->gone.overwritten, __ATOMIC_RELAXED);
	sum->dropped = __atomic_load_n(&bs->gone.dropped, __ATOMIC_RELAXED);
	sum->pages = 0;
	for (b = slim_bufset_first(bs); b; b = slim_buffer_next(b)) {
		struct slim_rb *rb;

		/* A retired ring is freed under its lock: read it under the lock. */
		slim_buffer_lock(b);
		rb = slim_buffer_ring(b);
		if (rb)
			slim_rb_stats(rb, &st);
		slim_buffer_unlock(b);
		if (!rb)
			continue;
		stats_add(sum, &st);
	}
	sum->lost += nobuf;
	sum->dropped += nobuf;
}

int slim_bufset_count(struct slim_bufset *bs)
{
	struct slim_buffer *b;
	int n = 0;

	for (b = slim_bufset_first(bs); b; b = slim_buffer_next(b))
		n++;
	return n;
}
