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
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "buffers/buffer.h"
#include "core/clock.h"

__thread struct slim_thread *slim_thread_self
	__attribute__((tls_model("initial-exec")));

struct slim_bufset slim_bufset_top = {
	.tracing_on = 1,
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
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

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
	free(t);
}

static void make_key(void)
{
	pthread_key_create(&exit_key, thread_exit);
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
		slim_rb_destroy(b->rb);
		pthread_mutex_destroy(&b->read_lock);
		free(b);
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
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->rb = slim_rb_create(bs->pages, bs->overwrite);
	if (!b->rb) {
		free(b);
		return NULL;
	}
	pthread_mutex_init(&b->read_lock, NULL);
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

	pthread_once(&key_once, make_key);
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			goto lost;
		slim_thread_self = t;
		pthread_setspecific(exit_key, t);
	}
	pthread_mutex_lock(&bs->lock);
	b = take_buffer(bs);
	pthread_mutex_unlock(&bs->lock);
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

	pthread_mutex_lock(&bs->lock);
	n = bs->nr_buffers;
	rings = calloc(n ? n : 1, sizeof(*rings));
	for (i = 0, b = bs->head; rings && b; b = b->next) {
		if (b->retired)
			continue;
		o = calloc(1, sizeof(*o));
		rings[i] = slim_rb_create(pages, overwrite);
		if (!o || !rings[i]) {
			free(o);
			ret = -ENOMEM;
			break;
		}
		o->rb = b->rb;
		o->retired = 1;
		pthread_mutex_init(&o->read_lock, NULL);
		o->next = old;
		old = o;
		i++;
	}
	if (!rings || ret) {
		while (i >= 0 && rings)
			slim_rb_destroy(rings[i--]);
		for (; old; old = o) {
			o = old->next;
			free(old);
		}
		pthread_mutex_unlock(&bs->lock);
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
	pthread_mutex_unlock(&bs->lock);
	free(rings);

	/* Writers still in the old rings finish before readers take them. */
	slim_rcu_synchronize();

	pthread_mutex_lock(&bs->lock);
	while (old) {
		o = old;
		old = o->next;
		o->next = NULL;
		o->cpu = bs->nr_buffers++;
		append(bs, o);
	}
	pthread_mutex_unlock(&bs->lock);
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
