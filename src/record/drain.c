// SPDX-License-Identifier: MIT
/*
 * A pass over the buffers: each buffer's pages, through the staging
 * area, to the sink, with the lost events each page must carry.  A
 * buffer is a CPU of the file; a buffer handed from an exited thread to
 * a new one keeps its number.  Runs in the consumer thread, and in a
 * fatal signal handler (in_signal: no allocation, no waiting).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "record/rec.h"

/* One buffer: a CPU of the file. */
struct rec_cpu {
	struct slim_buffer *b;	/* NULL: no buffer with this number seen */
	struct slim_rb *rb;	/* the ring last drained */
	uint64_t events;	/* events written to the sink */
	uint64_t last_ts;	/* time of the last event written */
	uint64_t end_seq;	/* this pass stops at this page */
	uint64_t pass;		/* the pass end_seq belongs to */
	struct slim_rb_stats stat;	/* of rb when last drained */
	int has_stat;
};

/* Room for CPUs 0..need-1, and then some: a burst of threads comes at once. */
static int grow(struct rec_drain_state *d, int need)
{
	int cap = 2 * need + 16, i;
	struct rec_cpu *c = rec_grow(d->cpus, (size_t)d->cap * sizeof(*c),
				     (size_t)cap * sizeof(*c), d->in_signal);
	struct rec_cpu_stat *s;

	if (!c)
		return -ENOMEM;
	d->cpus = c;
	for (i = d->cap; i < cap; i++)
		memset(&c[i], 0, sizeof(c[i]));
	s = rec_grow(d->stats, (size_t)d->cap * sizeof(*s), (size_t)cap * sizeof(*s),
		     d->in_signal);
	if (!s)
		return -ENOMEM;
	d->stats = s;
	d->cap = cap;
	return 0;
}

int rec_drain_init(struct rec_drain_state *d, struct rec_sink *sink,
		   struct slim_bufset *bufs)
{
	memset(d, 0, sizeof(*d));
	d->sink = sink;
	d->bufs = bufs;
	if (grow(d, 1) || rec_stage_init(&d->stage, rec_src_clock(bufs)) || rec_lost_init(&d->lost) ||
	    rec_threads_init(&d->threads))
		return -ENOMEM;
	return 0;
}

void rec_drain_free(struct rec_drain_state *d)
{
	rec_release(d->cpus);
	rec_release(d->stats);
	rec_stage_free(&d->stage);
	rec_lost_free(&d->lost);
	rec_threads_free(&d->threads);
	memset(d, 0, sizeof(*d));
}

/* The file CPU of buffer b; NULL if there is no memory for it. */
static struct rec_cpu *cpu_of(struct rec_drain_state *d, struct slim_buffer *b)
{
	int id = rec_src_id(b);

	if (id < 0)
		return NULL;
	if (id >= d->cap)
		grow(d, id + 1);
	if (id >= d->cap || d->sink->ops->cpus(d->sink, id + 1, d->in_signal))
		return NULL;
	d->cpus[id].b = b;
	if (id >= d->nr)
		d->nr = id + 1;
	return &d->cpus[id];
}

static void put_init(struct rec_drain_state *d, struct rec_put *p, int id)
{
	memset(p, 0, sizeof(*p));
	p->st = &d->stage;
	p->sink = d->sink;
	p->th = &d->threads;
	p->cpu = id;
	p->last_ts = &d->cpus[id].last_ts;
	p->cv.tab = d->stage.tab;
	p->cv.n = d->stage.ntab;
	p->may_grow = !d->in_signal;
}

/*
 * Pages from one ring into the staging area, until it is full or the
 * pass has what it came for.  1: more to come, 0: done, -errno.
 */
static int take_pages(struct rec_drain_state *d, struct rec_put *p, struct rec_cpu *c,
		      enum rec_drain mode)
{
	int ring = rec_lost_ring(&d->lost, c->rb, !d->in_signal), ret;
	struct slim_rb_taken tk;
	unsigned char *page;
	uint64_t missed;

	if (ring < 0)
		return 0;
	if (c->pass != d->pass) {
		c->pass = d->pass;
		c->end_seq = rec_src_write_seq(c->rb);
	}
	rec_lost_note_refused(&d->lost, ring, c->rb);
	while (d->stage.used + 3 <= REC_BATCH) {
		page = rec_stage_slot(&d->stage);
		if (!rec_src_take(c->rb, page, mode == REC_DRAIN_FULL, &tk))
			return 0;
		c->events += tk.events;
		d->pages++;
		missed = tk.overwritten + rec_lost_take(&d->lost, ring, tk.seq);
		ret = rec_stage_put(p, page, missed);
		if (p->left) {		/* no event to carry it: the next page will */
			rec_lost_owe(&d->lost, ring, p->left);
			p->left = 0;
		}
		if (ret)
			return ret;
		if (tk.seq + (mode == REC_DRAIN_FULL) >= c->end_seq)
			return 0;
	}
	return 1;
}

static const enum rec_lock lock_of[] = {
	[REC_DRAIN_FULL] = REC_LOCK_TRY,
	[REC_DRAIN_ALL] = REC_LOCK_WAIT,
	[REC_DRAIN_SIGNAL] = REC_LOCK_SIGNAL,
};

/* One staging area's worth from buffer c: 1 more to come, 0 done, -errno. */
static int drain_cpu(struct rec_drain_state *d, struct rec_cpu *c, enum rec_drain mode)
{
	struct rec_put p;
	struct slim_rb *rb = rec_src_lock(c->b, lock_of[mode]);
	int more, ret;

	if (!rb)
		return 0;
	c->rb = rb;
	put_init(d, &p, (int)(c - d->cpus));
	more = take_pages(d, &p, c, mode);
	/* A retired ring is freed once read: keep its counts, not a pointer. */
	rec_src_stats(rb, &c->stat);
	c->has_stat = 1;
	rec_src_reap(d->bufs, c->b);
	rec_src_unlock(c->b);
	ret = rec_stage_flush(&p);
	if (more < 0)
		return more;
	return ret ? ret : more;
}

int rec_drain(struct rec_drain_state *d, enum rec_drain mode)
{
	struct slim_buffer *b;
	struct rec_cpu *c;
	int more, ret;

	d->pass++;
	do {
		more = 0;
		for (b = rec_src_first(d->bufs); b; b = rec_src_next(b)) {
			c = cpu_of(d, b);
			if (!c)
				continue;
			ret = drain_cpu(d, c, mode);
			if (ret < 0)
				return ret;
			more |= ret;
		}
	} while (more);
	return 0;
}

void rec_drain_stats(struct rec_drain_state *d)
{
	int i;

	for (i = 0; i < d->nr; i++) {
		struct rec_cpu_stat *s = &d->stats[i];

		memset(s, 0, sizeof(*s));
		s->present = d->cpus[i].b != NULL;
		s->read = d->cpus[i].events;
		if (d->cpus[i].has_stat)
			s->st = d->cpus[i].stat;
	}
}
