// SPDX-License-Identifier: MIT
/*
 * The consumer thread, and whose turn it is to touch the files.  Three
 * kinds of callers do: the consumer, a fatal signal handler on any
 * other thread, and the thread that stops the recording.  They take
 * turns through `owner`, a flag taken with a compare-and-swap and never
 * waited on with a lock, because a signal handler cannot block on one.
 */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include "record/rec.h"

#define POLL_NS		1000000L	/* the consumer looks every 1 ms... */
#define BUSY_PAGES	8		/* ...or at once after this many pages */

void rec_ms_sleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int rec_own_try(struct rec *r, int who)
{
	int none = REC_OWN_NONE;

	return __atomic_compare_exchange_n(&r->owner, &none, who, 0,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

void rec_own_release(struct rec *r)
{
	__atomic_store_n(&r->owner, REC_OWN_NONE, __ATOMIC_RELEASE);
}

int rec_own_wait(struct rec *r, int who)
{
	while (!rec_own_try(r, who)) {
		if (__atomic_load_n(&r->finished, __ATOMIC_ACQUIRE))
			return 0;
		rec_ms_sleep(1);
	}
	if (__atomic_load_n(&r->finished, __ATOMIC_ACQUIRE)) {
		rec_own_release(r);
		return 0;
	}
	return 1;
}

/* The cmdlines as of now: the part of the metadata the pages decide. */
static const struct rec_meta *meta_now(struct rec *r)
{
	r->meta.m.cmdlines = r->d.threads.text;
	r->meta.m.cmdlines_len = rec_threads_cmdlines(&r->d.threads);
	return &r->meta.m;
}

int rec_refresh(struct rec *r, enum rec_meta_lock how, int write_main)
{
	int changed = rec_threads_name(&r->d.threads), ret;

	ret = rec_meta_refresh(&r->meta, how);
	changed |= ret > 0;
	if (ret > 0)
		ret = 0;
	if (ret && ret != -EAGAIN)
		return ret;
	if (write_main && changed && r->meta.have) {
		int w = r->sink.ops->metadata(&r->sink, meta_now(r));

		if (w)
			return w;
	}
	return ret;
}

int rec_write_final(struct rec *r)
{
	struct rec_end e = { .kind = REC_END_FINAL };

	if (!r->meta.have)
		return -ENODATA;
	rec_drain_stats(&r->d);
	e.cpu = r->d.stats;
	e.nr_cpus = r->d.nr;
	e.lost_nobuf = rec_src_lost_nobuf(r->d.bufs);
	return r->sink.ops->finish(&r->sink, meta_now(r), &e);
}

static uint64_t now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* After a pass that began at t0 and took pages: slim_record_get_stats(). */
static void account(struct rec *r, uint64_t t0, uint64_t pages)
{
	struct slim_record_stats *st = &r->st;
	uint64_t took = now_ns(CLOCK_MONOTONIC) - t0;

	__atomic_store_n(&st->passes, st->passes + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&st->pages, st->pages + pages, __ATOMIC_RELAXED);
	if (took > st->pass_max_ns)
		__atomic_store_n(&st->pass_max_ns, took, __ATOMIC_RELAXED);
	__atomic_store_n(&st->consumer_cpu_ns, now_ns(CLOCK_THREAD_CPUTIME_ID),
			 __ATOMIC_RELAXED);
}

/* One look at the buffers: the pages it read, -1 if a handler finished. */
static long consume_once(struct rec *r, enum rec_drain mode)
{
	uint64_t pages, t0 = now_ns(CLOCK_MONOTONIC);
	int ret;

	if (!rec_own_wait(r, REC_OWN_CONSUMER))
		return -1;
	pages = r->d.pages;
	rec_stage_calibrate(&r->d.stage);
	ret = r->err ? 0 : rec_drain(&r->d, mode);
	if (ret < 0)
		rec_set_err(r, ret);
	if (!r->err && (r->d.threads.fresh || !r->meta.have || !(r->d.pass & 127))) {
		int m = rec_refresh(r, REC_META_TRY, 1);

		if (m != -EAGAIN)
			rec_set_err(r, m);
	}
	pages = r->d.pages - pages;
	rec_own_release(r);
	account(r, t0, pages);
	return (long)pages;
}

static void wait_for_work(struct rec *r, int busy)
{
	struct timespec ts;

	pthread_mutex_lock(&r->lock);
	if (!busy && !r->stop && r->sync_req == r->sync_done) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += POLL_NS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&r->wake, &r->lock, &ts);
	}
	pthread_mutex_unlock(&r->lock);
}

void *rec_consumer(void *arg)
{
	struct rec *r = arg;
	uint64_t req;
	long pages = 0;
	int stop;
	sigset_t all;

	/* Signals go to the program's threads, whose handlers may flush. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), "slim-record");
	__atomic_store_n(&r->consumer_tid, (int)gettid(), __ATOMIC_RELEASE);
	for (;;) {
		/* Sleep unless the writers are fast: then the headroom is short. */
		wait_for_work(r, pages >= BUSY_PAGES);
		pthread_mutex_lock(&r->lock);
		stop = r->stop;
		req = r->sync_req;
		pthread_mutex_unlock(&r->lock);
		pages = consume_once(r, stop || req != r->sync_done ?
				     REC_DRAIN_ALL : REC_DRAIN_FULL);
		pthread_mutex_lock(&r->lock);
		r->sync_done = req;
		pthread_cond_broadcast(&r->synced);
		pthread_mutex_unlock(&r->lock);
		if (stop || pages < 0)
			break;
	}
	pthread_mutex_lock(&r->lock);
	r->exited = 1;
	pthread_cond_broadcast(&r->synced);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

int rec_finish(struct rec *r, enum rec_meta_lock how)
{
	int ret;

	if (!rec_own_wait(r, REC_OWN_CONSUMER))
		return 0;	/* a signal handler wrote it */
	ret = rec_refresh(r, how, 0);
	if (ret == -EAGAIN)
		ret = 0;	/* keep the metadata there is */
	if (!ret)
		ret = rec_write_final(r);
	__atomic_store_n(&r->finished, 1, __ATOMIC_RELEASE);
	rec_own_release(r);
	return ret;
}
