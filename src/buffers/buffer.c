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
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "buffers/buffer.h"
#include "core/clock.h"
#include "core/fork.h"

__thread struct slim_thread *slim_thread_self
	__attribute__((tls_model("initial-exec")));

struct slim_bufset slim_bufset_top = {
	.tracing_on = 1,
	.clock = SLIM_CLOCK_MONO,
	.slot = 0,
	.gen = 1,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.gate = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP,
	.pages = SLIM_DEFAULT_BUFFER_KB / 4,
	.overwrite = 1,
};

/* Live sets by slot, for exiting threads; gens are never reused. */
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static struct slim_bufset *slots[SLIM_MAX_BUFSETS] = { &slim_bufset_top };
static uint32_t next_gen = 2;

static pthread_key_t exit_key;

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

/* Writers first: a steady reader of `trace` must not keep fork() waiting. */
static void gate_init(pthread_rwlock_t *gate)
{
	pthread_rwlockattr_t a;

	pthread_rwlockattr_init(&a);
	pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(gate, &a);
	pthread_rwlockattr_destroy(&a);
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
	pthread_mutex_destroy(&b->read_lock);
	munmap(b, BUFFER_MAP);
}

/* A thread exits: its buffers in every live set are free for the next. */
static void thread_exit(void *arg)
{
	struct slim_thread *t = arg;
	unsigned int i;

	slim_thread_self = NULL;
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
	for (i = 0; i < SLIM_MAX_BUFSETS; i++) {
		if (!slots[i])
			continue;
		pthread_mutex_lock(&slots[i]->lock);
		pthread_rwlock_wrlock(&slots[i]->gate);
	}
}

static void fork_unlock(void)
{
	unsigned int i;

	for (i = SLIM_MAX_BUFSETS; i-- > 0;) {
		if (!slots[i])
			continue;
		pthread_rwlock_unlock(&slots[i]->gate);
		pthread_mutex_unlock(&slots[i]->lock);
	}
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
			if (!t || t->slot[i].b != b || t->slot[i].gen != slots[i]->gen)
				b->owned = 0;
			else
				b->tid = (int32_t)gettid();
		}
	}
	/*
	 * Not unlocked: a gate that had readers waiting in the parent may hand
	 * itself to them on unlock, and they are not here.  The child's one
	 * thread owns every lock: start the gates afresh.
	 */
	for (i = 0; i < SLIM_MAX_BUFSETS; i++) {
		if (!slots[i])
			continue;
		gate_init(&slots[i]->gate);
		pthread_mutex_unlock(&slots[i]->lock);
	}
	pthread_mutex_unlock(&slots_lock);
}

static struct slim_fork_hook fork_hook = {
	SLIM_FORK_BUFFERS, fork_lock, fork_unlock, fork_child, NULL
};

/* Before any thread records: the claim must not create keys in a signal handler. */
__attribute__((constructor(101))) static void buffers_init(void)
{
	pthread_key_create(&exit_key, thread_exit);
	slim_fork_hook_add(&fork_hook);
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
	gate_init(&bs->gate);
	bs->tracing_on = 1;
	bs->clock = SLIM_CLOCK_MONO;
	bs->pages = SLIM_DEFAULT_BUFFER_KB / 4;
	bs->overwrite = 1;
	pthread_mutex_lock(&slots_lock);
	for (i = 1; i < SLIM_MAX_BUFSETS && slots[i]; i++)
		;
	if (i < SLIM_MAX_BUFSETS) {
		bs->slot = i;
		bs->gen = next_gen++;
		slots[i] = bs;
	}
	pthread_mutex_unlock(&slots_lock);
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
	pthread_rwlock_destroy(&bs->gate);
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
	if (!t) {
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

/*
 * New rings for every buffer (buffer_size_kb, the overwrite option).
 * All are made first, so that a refusal changes nothing.  Writers switch
 * at their next event; the old rings keep their records, readable as
 * buffers of their own, until the trace is cleared.
 */
static int rebuild(struct slim_bufset *bs, unsigned int pages, int overwrite)
{
	struct slim_buffer *b, *old = NULL, *o;
	struct slim_rb **rings;
	int i, n, ret = 0;

	set_lock(bs);
	n = bs->nr_buffers;
	rings = calloc(n ? n : 1, sizeof(*rings));
	for (i = 0, b = bs->head; rings && b; b = b->next) {
		if (b->retired)
			continue;
		o = map(BUFFER_MAP);
		rings[i] = slim_rb_create(pages, overwrite);
		if (!o || !rings[i]) {
			if (o)
				munmap(o, BUFFER_MAP);
			ret = -ENOMEM;
			break;
		}
		o->rb = b->rb;
		o->retired = 1;
		pthread_mutex_init(&o->read_lock, NULL);
		o->gate = &bs->gate;
		o->next = old;
		old = o;
		i++;
	}
	if (!rings || ret) {
		while (i >= 0 && rings)
			slim_rb_destroy(rings[i--]);
		for (; old; old = o) {
			o = old->next;
			munmap(old, BUFFER_MAP);
		}
		set_unlock(bs);
		free(rings);
		return -ENOMEM;
	}
	bs->pages = pages;
	bs->overwrite = overwrite;
	for (i = 0, b = bs->head; b; b = b->next) {
		if (b->retired)
			continue;
		slim_buffer_lock(b);
		slim_rcu_assign_pointer(b->rb, rings[i++]);
		slim_buffer_unlock(b);
	}
	set_unlock(bs);
	free(rings);

	/* Writers still in the old rings finish before readers take them. */
	slim_rcu_synchronize();

	set_lock(bs);
	while (old) {
		o = old;
		old = o->next;
		o->next = NULL;
		o->cpu = bs->nr_buffers++;
		append(bs, o);
	}
	set_unlock(bs);
	return 0;
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
	ret = slim_rb_iter_start(slim_buffer_ring(b), it);
	slim_buffer_unlock(b);
	return ret;
}

int slim_buffer_peek(struct slim_buffer *b, unsigned int *len, uint64_t *ts)
{
	int ret;

	slim_buffer_lock(b);
	ret = slim_rb_peek(slim_buffer_ring(b), len, ts);
	slim_buffer_unlock(b);
	return ret;
}

int slim_buffer_consume(struct slim_buffer *b, void *rec, unsigned int cap,
			unsigned int *len, uint64_t *ts)
{
	int ret;

	slim_buffer_lock(b);
	ret = slim_rb_consume(slim_buffer_ring(b), rec, cap, len, ts);
	slim_buffer_unlock(b);
	return ret;
}

void slim_bufset_reset(struct slim_bufset *bs)
{
	struct slim_buffer *b;

	for (b = slim_bufset_first(bs); b; b = slim_buffer_next(b)) {
		slim_buffer_lock(b);
		slim_rb_reset(slim_buffer_ring(b));
		slim_buffer_unlock(b);
	}
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

	memset(sum, 0, sizeof(*sum));
	for (b = slim_bufset_first(bs); b; b = slim_buffer_next(b)) {
		slim_rb_stats(slim_buffer_ring(b), &st);
		sum->entries += st.entries;
		sum->written += st.written;
		sum->lost += st.lost;
		sum->consumed += st.consumed;
		sum->overwritten += st.overwritten;
		sum->dropped += st.dropped;
		sum->pages += st.pages;
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
