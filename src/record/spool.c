// SPDX-License-Identifier: MIT
/*
 * The spool: pages taken from the rings wait here for the sink, which a
 * writer thread of their own feeds.  A write(2) on a busy disk blocks
 * for tens of ms (90 ms seen on a VM's ext4); while it did so in the
 * consumer, the rings filled and lost events.  Now the consumer only
 * copies pages into the spool, at memory speed, and the spool's
 * REC_SPOOL_PAGES absorb the stall.
 *
 * The pool is a ring of pages; a reservation is REC_BATCH pages in one
 * piece (the end of the pool is skipped when they do not fit), and a
 * committed part of it is a record in a queue of records.  One filler
 * (whoever holds the recording's owner flag) and one writer: both
 * queues are single-producer single-consumer, positions only grow.
 *
 * The writer is the only caller of the sink's page(); the filler's own
 * sink calls (cpus(), metadata()) take sink_lock, which the writer holds
 * around page().  A fatal signal handler cannot take a lock: it halts
 * the writer (halt, then waits for it to leave its write) and from then
 * on writes the queue itself, in order, and every later record at once.
 * Without a writer thread (tests, a handler) records are written at once.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "record/rec.h"

#define PAGE		SLIM_PAGE_SIZE
#define HALT_WAIT_MS	2000	/* a handler waits this long for a write */

static inline uint64_t ld(const uint64_t *v)
{
	return __atomic_load_n(v, __ATOMIC_ACQUIRE);
}

static inline void st(uint64_t *v, uint64_t x)
{
	__atomic_store_n(v, x, __ATOMIC_RELEASE);
}

int rec_spool_init(struct rec_spool *sp, struct rec_sink *sink)
{
	size_t len = (size_t)REC_SPOOL_PAGES * PAGE;
	void *pool;

	memset(sp, 0, sizeof(*sp));
	sp->sink = sink;
	/*
	 * Touched now, not by the consumer's copies: a first touch is a page
	 * fault, and the faults of a fresh pool made the first second of a
	 * 10 M events/s recording lose 3 M events (0.5 M in all with it).
	 */
	pool = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (pool == MAP_FAILED)
		return -ENOMEM;
	sp->pool = pool;
	pthread_mutex_init(&sp->lock, NULL);
	pthread_mutex_init(&sp->sink_lock, NULL);
	pthread_cond_init(&sp->more, NULL);
	pthread_cond_init(&sp->room, NULL);
	return 0;
}

void rec_spool_free(struct rec_spool *sp)
{
	if (!sp->pool)
		return;
	munmap(sp->pool, (size_t)REC_SPOOL_PAGES * PAGE);
	pthread_mutex_destroy(&sp->lock);
	pthread_mutex_destroy(&sp->sink_lock);
	pthread_cond_destroy(&sp->more);
	pthread_cond_destroy(&sp->room);
	memset(sp, 0, sizeof(*sp));
}

static int direct(const struct rec_spool *sp)
{
	return !sp->running || __atomic_load_n(&sp->halt, __ATOMIC_SEQ_CST);
}

/* The first write error, kept for the filler: the pages it held are gone. */
static void note_err(struct rec_spool *sp, int err)
{
	int none = 0;

	if (err)
		__atomic_compare_exchange_n(&sp->err, &none, err, 0, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED);
}

int rec_spool_err(const struct rec_spool *sp)
{
	return __atomic_load_n(&sp->err, __ATOMIC_ACQUIRE);
}

/*
 * One CPU's records in the window from record i on, to the sink in as
 * few calls as iovecs allow: pieces that lie one after the other in the
 * pool are one iovec.  Marks them written in sp->mark.
 */
static void write_cpu(struct rec_spool *sp, uint64_t q, unsigned int i, unsigned int k)
{
	int cpu = sp->q[(q + i) % REC_SPOOL_RECS].cpu, nr = 0, ret;
	struct iovec *iov = sp->iov;
	const struct rec_spool_rec *r;
	unsigned char *at;

	for (; i < k; i++) {
		r = &sp->q[(q + i) % REC_SPOOL_RECS];
		if (sp->mark[i] || r->cpu != cpu)
			continue;
		sp->mark[i] = 1;
		at = sp->pool + (size_t)r->at * PAGE;
		if (nr && (unsigned char *)iov[nr - 1].iov_base + iov[nr - 1].iov_len == at) {
			iov[nr - 1].iov_len += (size_t)r->n * PAGE;
			continue;
		}
		if (nr == REC_SPOOL_IOV) {
			ret = rec_spool_err(sp) ? 0 : sp->sink->ops->page(sp->sink, cpu, iov, nr);
			note_err(sp, ret);
			nr = 0;
		}
		iov[nr].iov_base = at;
		iov[nr++].iov_len = (size_t)r->n * PAGE;
	}
	if (nr && !rec_spool_err(sp))
		note_err(sp, sp->sink->ops->page(sp->sink, cpu, iov, nr));
}

/*
 * Up to max records from q_done on, to the sink, one CPU at a time: on
 * a disk, 1 MiB in one write costs half of what 128 KiB in eight do.
 * The records written (or failed: the first error is kept).
 */
static unsigned int write_some(struct rec_spool *sp, unsigned int max)
{
	uint64_t q = ld(&sp->q_done), end = ld(&sp->q_put), pages = 0;
	unsigned int k = (unsigned int)(end - q), i;

	if (k > max)
		k = max;
	if (k > REC_SPOOL_WINDOW)
		k = REC_SPOOL_WINDOW;
	if (!k)
		return 0;
	memset(sp->mark, 0, k);
	for (i = 0; i < k; i++) {
		const struct rec_spool_rec *r = &sp->q[(q + i) % REC_SPOOL_RECS];

		pages += r->skip + r->n;
		if (!sp->mark[i])
			write_cpu(sp, q, i, k);
	}
	st(&sp->p_done, ld(&sp->p_done) + pages);
	st(&sp->q_done, q + k);
	return k;
}

/* Everything queued, by the caller: no writer is running. */
static void write_queued(struct rec_spool *sp)
{
	while (write_some(sp, REC_SPOOL_RECS))
		;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *writer(void *arg)
{
	struct rec_spool *sp = arg;
	sigset_t all;
	int quit;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), "slim-write");
	for (;;) {
		pthread_mutex_lock(&sp->lock);
		while (ld(&sp->q_done) == ld(&sp->q_put) && !sp->quit)
			pthread_cond_wait(&sp->more, &sp->lock);
		quit = sp->quit && ld(&sp->q_done) == ld(&sp->q_put);
		pthread_mutex_unlock(&sp->lock);
		if (quit)
			break;
		/* Either the handler sees in_write, or this sees halt. */
		__atomic_store_n(&sp->in_write, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&sp->halt, __ATOMIC_SEQ_CST)) {
			__atomic_store_n(&sp->in_write, 0, __ATOMIC_SEQ_CST);
			break;
		}
		pthread_mutex_lock(&sp->sink_lock);
		write_some(sp, REC_SPOOL_WINDOW);
		pthread_mutex_unlock(&sp->sink_lock);
		__atomic_store_n(&sp->in_write, 0, __ATOMIC_SEQ_CST);
		__atomic_store_n(&sp->cpu_ns, thread_cpu_ns(), __ATOMIC_RELAXED);
		pthread_mutex_lock(&sp->lock);
		pthread_cond_broadcast(&sp->room);
		pthread_mutex_unlock(&sp->lock);
	}
	__atomic_store_n(&sp->cpu_ns, thread_cpu_ns(), __ATOMIC_RELAXED);
	pthread_mutex_lock(&sp->lock);
	pthread_cond_broadcast(&sp->room);
	pthread_mutex_unlock(&sp->lock);
	return NULL;
}

int rec_spool_start(struct rec_spool *sp)
{
	int ret = pthread_create(&sp->thread, NULL, writer, sp);

	if (ret)
		return -ret;
	sp->running = 1;
	return 0;
}

int rec_spool_sync(struct rec_spool *sp)
{
	if (direct(sp))
		return rec_spool_err(sp);
	pthread_mutex_lock(&sp->lock);
	while (ld(&sp->q_done) != ld(&sp->q_put) && !sp->quit &&
	       !__atomic_load_n(&sp->halt, __ATOMIC_SEQ_CST))
		pthread_cond_wait(&sp->room, &sp->lock);
	pthread_mutex_unlock(&sp->lock);
	return rec_spool_err(sp);
}

int rec_spool_stop(struct rec_spool *sp)
{
	if (!sp->running)
		return rec_spool_err(sp);
	pthread_mutex_lock(&sp->lock);
	sp->quit = 1;
	pthread_cond_signal(&sp->more);
	pthread_mutex_unlock(&sp->lock);
	pthread_join(sp->thread, NULL);
	sp->running = 0;
	/* It ended with the queue empty, or halted: the handler writes the rest. */
	return rec_spool_err(sp);
}

void rec_spool_halt(struct rec_spool *sp)
{
	int i;

	if (!sp->running)
		return;
	__atomic_store_n(&sp->halt, 1, __ATOMIC_SEQ_CST);
	/* A write that never ends: go on regardless, the process is dying. */
	for (i = 0; __atomic_load_n(&sp->in_write, __ATOMIC_SEQ_CST) && i < HALT_WAIT_MS; i++)
		rec_ms_sleep(1);
	write_queued(sp);
}

uint64_t rec_spool_cpu_ns(const struct rec_spool *sp)
{
	return __atomic_load_n(&sp->cpu_ns, __ATOMIC_RELAXED);
}

void rec_spool_lock_sink(struct rec_spool *sp, int in_signal)
{
	if (sp->running && !in_signal)
		pthread_mutex_lock(&sp->sink_lock);
}

void rec_spool_unlock_sink(struct rec_spool *sp, int in_signal)
{
	if (sp->running && !in_signal)
		pthread_mutex_unlock(&sp->sink_lock);
}

/* Room for n pages in one piece from p_put, and the pages skipped for it. */
static int fits(const struct rec_spool *sp, uint32_t n, uint32_t *skip)
{
	uint64_t put = sp->p_put;
	uint32_t at = (uint32_t)(put % REC_SPOOL_PAGES);

	*skip = at + n > REC_SPOOL_PAGES ? REC_SPOOL_PAGES - at : 0;
	return put + *skip + n - ld(&sp->p_done) <= REC_SPOOL_PAGES &&
	       sp->q_put - ld(&sp->q_done) < REC_SPOOL_RECS;
}

unsigned char *rec_spool_reserve(struct rec_spool *sp)
{
	uint32_t skip;

	if (rec_spool_err(sp))
		return NULL;
	while (!fits(sp, REC_BATCH, &skip)) {
		if (rec_spool_err(sp))
			return NULL;
		if (direct(sp)) {
			if (!write_some(sp, REC_SPOOL_RECS))
				return NULL;	/* cannot happen: nothing holds room */
			continue;
		}
		pthread_mutex_lock(&sp->lock);
		pthread_cond_signal(&sp->more);
		if (!fits(sp, REC_BATCH, &skip) && !sp->quit)
			pthread_cond_wait(&sp->room, &sp->lock);
		pthread_mutex_unlock(&sp->lock);
	}
	sp->skip = skip;
	sp->at = (uint32_t)((sp->p_put + skip) % REC_SPOOL_PAGES);
	return sp->pool + (size_t)sp->at * PAGE;
}

int rec_spool_put(struct rec_spool *sp, int cpu, uint32_t n)
{
	struct rec_spool_rec *r;

	if (!n)
		return rec_spool_err(sp);
	r = &sp->q[sp->q_put % REC_SPOOL_RECS];
	r->cpu = cpu;
	r->at = sp->at;
	r->n = n;
	r->skip = sp->skip;
	sp->p_put += sp->skip + n;
	st(&sp->q_put, sp->q_put + 1);
	if (direct(sp)) {
		write_queued(sp);
		return rec_spool_err(sp);
	}
	/* The writer sleeps only on an empty queue: wake it for the first. */
	if (sp->q_put - ld(&sp->q_done) == 1) {
		pthread_mutex_lock(&sp->lock);
		pthread_cond_signal(&sp->more);
		pthread_mutex_unlock(&sp->lock);
	}
	return rec_spool_err(sp);
}
