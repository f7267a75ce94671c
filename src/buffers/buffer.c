// SPDX-License-Identifier: MIT
/*
 * The record path and the buffers behind it.
 *
 * Every thread that records writes into a buffer of its own, so the
 * record path needs no atomic read-modify-write and no fence: a thread
 * claims a buffer at its first event and hands it back when it exits.
 * A handed-back buffer keeps its records (readable, like a CPU's buffer
 * in the kernel) and the next new thread continues in it, so the number
 * of buffers is the largest number of threads that recorded at once.
 * docs/buffers.md explains the choice of per-thread over per-CPU.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "buffers/buffer.h"
#include "core/clock.h"
#include "filter/filter.h"

int slim_tracing_on = 1;
unsigned int slim_buffer_pages = SLIM_DEFAULT_BUFFER_KB / 4;
int slim_buffer_overwrite = 1;
uint64_t slim_lost_nobuf;

static pthread_mutex_t buffers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct slim_buffer *buffers;
static int nr_buffers;
static pthread_key_t release_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static __thread struct slim_buffer *self
	__attribute__((tls_model("initial-exec")));

static void release_buffer(void *arg)
{
	struct slim_buffer *b = arg;

	self = NULL;
	slim_store_release(&b->owned, 0);
}

static void make_key(void)
{
	pthread_key_create(&release_key, release_buffer);
}

/* A free buffer (its thread exited), or a new one appended to the list. */
static struct slim_buffer *take_buffer(void)
{
	struct slim_buffer *b, **tail;
	int zero = 0;

	for (b = buffers; b; b = b->next) {
		if (!b->retired && __atomic_compare_exchange_n(&b->owned, &zero, 1, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return b;
		zero = 0;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->rb = slim_rb_create(slim_buffer_pages, slim_buffer_overwrite);
	if (!b->rb) {
		free(b);
		return NULL;
	}
	pthread_mutex_init(&b->read_lock, NULL);
	b->owned = 1;
	b->cpu = nr_buffers;
	for (tail = &buffers; *tail; tail = &(*tail)->next)
		;
	/* Readers walk the list without the lock. */
	slim_store_release(tail, b);
	nr_buffers++;
	return b;
}

/* A thread's first event: the one-time cost of joining. */
static SLIM_COLD struct slim_buffer *claim_buffer(void)
{
	struct slim_buffer *b;

	pthread_once(&key_once, make_key);
	pthread_mutex_lock(&buffers_lock);
	b = take_buffer();
	pthread_mutex_unlock(&buffers_lock);
	if (!b) {
		__atomic_fetch_add(&slim_lost_nobuf, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	b->tid = (int32_t)gettid();
	if (prctl(PR_GET_NAME, b->comm) != 0)
		strcpy(b->comm, "<...>");
	slim_cmdline_save(b->tid, b->comm);
	pthread_setspecific(release_key, b);
	self = b;
	return b;
}

SLIM_EXPORT void *slim_event_reserve(struct slim_reserve *r, struct slim_event *ev,
				     unsigned int size)
{
	struct slim_buffer *b = self;
	struct slim_trace_entry *ent;
	struct slim_rb *rb;

	if (slim_unlikely(!SLIM_READ_ONCE(slim_tracing_on)))
		return NULL;
	if (slim_unlikely(!b)) {
		b = claim_buffer();
		if (!b)
			return NULL;
	}
	/* A record too large for its encoding is lost, and counted. */
	rb = slim_rcu_dereference(b->rb);
	ent = slim_rb_reserve(rb, size ? size : UINT_MAX, slim_clock_now());
	if (slim_unlikely(!ent))
		return NULL;
	ent->type = (uint16_t)ev->event.type;
	ent->flags = 0;
	ent->preempt_count = 0;
	ent->pid = b->tid;
	r->rec = ent;
	r->ev = ev;
	r->buffer = b;
	r->rb = rb;
	r->len = size;
	return ent;
}

static SLIM_COLD int filter_rejects(struct slim_reserve *r)
{
	struct slim_filter *f = slim_rcu_dereference(r->ev->filter);
	struct slim_buffer *b = r->buffer;
	struct slim_filter_ctx ctx;

	if (!f)
		return 0;
	ctx.comm = b->comm;
	ctx.cpu = slim_filter_needs_cpu(f) ? sched_getcpu() : -1;
	return !slim_filter_match(f, r->rec, r->len, &ctx);
}

SLIM_EXPORT void slim_event_commit(struct slim_reserve *r)
{
	if (slim_unlikely(SLIM_READ_ONCE(r->ev->flags) & SLIM_EVENT_FL_FILTERED) &&
	    filter_rejects(r)) {
		slim_rb_discard(r->rb);
		return;
	}
	slim_rb_commit(r->rb);
}

/*
 * New rings for every buffer (buffer_size_kb, the overwrite option).
 * Writers switch at their next event; the old rings keep their records,
 * readable as buffers of their own, until the trace is cleared.
 */
static int rebuild(unsigned int pages, int overwrite)
{
	struct slim_buffer *b, *old_rings = NULL, *o, **tail;
	struct slim_rb *rb;
	int ret = 0;

	pthread_mutex_lock(&buffers_lock);
	slim_buffer_pages = pages;
	slim_buffer_overwrite = overwrite;
	for (b = buffers; b; b = b->next) {
		if (b->retired)
			continue;
		rb = slim_rb_create(pages, overwrite);
		o = calloc(1, sizeof(*o));
		if (!rb || !o) {
			slim_rb_destroy(rb);
			free(o);
			ret = -ENOMEM;
			break;
		}
		o->rb = b->rb;
		o->retired = 1;
		o->cpu = nr_buffers++;
		pthread_mutex_init(&o->read_lock, NULL);
		o->next = old_rings;
		old_rings = o;
		pthread_mutex_lock(&b->read_lock);
		slim_rcu_assign_pointer(b->rb, rb);
		pthread_mutex_unlock(&b->read_lock);
	}
	/* Writers still in the old rings finish before readers take them. */
	slim_rcu_synchronize();
	for (tail = &buffers; *tail; tail = &(*tail)->next)
		;
	while (old_rings) {
		o = old_rings;
		old_rings = o->next;
		o->next = NULL;
		slim_store_release(tail, o);
		tail = &o->next;
	}
	pthread_mutex_unlock(&buffers_lock);
	return ret;
}

int slim_buffers_resize(unsigned int pages)
{
	if (pages < 1)
		return -EINVAL;
	return rebuild(pages, slim_buffer_overwrite);
}

int slim_buffers_set_overwrite(int overwrite)
{
	if (!!overwrite == slim_buffer_overwrite)
		return 0;
	return rebuild(slim_buffer_pages, !!overwrite);
}

struct slim_buffer *slim_buffers_first(void)
{
	return slim_load_acquire(&buffers);
}

/* Writing "" to trace: clear every buffer.  Records being written survive. */
void slim_buffers_reset(void)
{
	struct slim_buffer *b;

	for (b = slim_buffers_first(); b; b = slim_load_acquire(&b->next)) {
		pthread_mutex_lock(&b->read_lock);
		slim_rb_reset(b->rb);
		pthread_mutex_unlock(&b->read_lock);
	}
}

void slim_buffers_stats(struct slim_rb_stats *sum)
{
	struct slim_buffer *b;
	struct slim_rb_stats st;

	memset(sum, 0, sizeof(*sum));
	for (b = slim_buffers_first(); b; b = slim_load_acquire(&b->next)) {
		slim_rb_stats(b->rb, &st);
		sum->entries += st.entries;
		sum->written += st.written;
		sum->lost += st.lost;
		sum->consumed += st.consumed;
		sum->overwritten += st.overwritten;
		sum->dropped += st.dropped;
		sum->pages += st.pages;
	}
	sum->lost += __atomic_load_n(&slim_lost_nobuf, __ATOMIC_RELAXED);
	sum->dropped += __atomic_load_n(&slim_lost_nobuf, __ATOMIC_RELAXED);
}

int slim_buffers_count(void)
{
	int n = 0;
	struct slim_buffer *b;

	for (b = slim_buffers_first(); b; b = slim_load_acquire(&b->next))
		n++;
	return n;
}
