// SPDX-License-Identifier: MIT
/*
 * Every access of the recorder to the buffers, in one place: which
 * buffer set it records (the top instance's), which buffers that set
 * has, their read locks, their rings' pages, counters and statistics,
 * its clock, the thread names saved.  The rest of src/record sees a set
 * and a buffer only as pointers to hand back here.
 */
#include <errno.h>
#include <pthread.h>
#include "buffers/buffer.h"
#include "record/rec.h"

struct slim_bufset *rec_src_set(void)
{
	return &slim_bufset_top;
}

int rec_src_clock(struct slim_bufset *bs)
{
	return bs->clock;
}

struct slim_buffer *rec_src_first(struct slim_bufset *bs)
{
	return slim_bufset_first(bs);
}

struct slim_buffer *rec_src_next(struct slim_buffer *b)
{
	return slim_buffer_next(b);
}

int rec_src_id(const struct slim_buffer *b)
{
	return b->cpu;
}

static int lock(struct slim_buffer *b, enum rec_lock how)
{
	int tries;

	if (how == REC_LOCK_WAIT) {
		slim_buffer_lock(b);
		return 0;
	}
	if (how == REC_LOCK_TRY)
		return slim_buffer_trylock(b) ? 0 : -EBUSY;
	/* A reader on another thread lets go soon; one we interrupted never. */
	for (tries = 0; tries < 100; tries++) {
		if (slim_buffer_trylock(b))
			return 0;
		rec_ms_sleep(1);
	}
	return -EBUSY;
}

struct slim_rb *rec_src_lock(struct slim_buffer *b, enum rec_lock how)
{
	if (lock(b, how))
		return NULL;
	return slim_buffer_ring(b);
}

void rec_src_unlock(struct slim_buffer *b)
{
	slim_buffer_unlock(b);
}

int rec_src_take(struct slim_rb *rb, void *page, int full_only, struct slim_rb_taken *tk)
{
	return slim_rb_take_page(rb, page, full_only, tk);
}

uint64_t rec_src_write_seq(struct slim_rb *rb)
{
	return slim_rb_write_seq(rb);
}

uint64_t rec_src_refused(struct slim_rb *rb)
{
	return slim_rb_refused(rb);
}

void rec_src_stats(struct slim_rb *rb, struct slim_rb_stats *st)
{
	slim_rb_stats(rb, st);
}

void rec_src_reap(struct slim_bufset *bs, struct slim_buffer *b)
{
	slim_buffer_reap(bs, b);
}

uint64_t rec_src_lost_nobuf(struct slim_bufset *bs)
{
	return slim_bufset_lost_nobuf(bs);
}

void rec_src_thread_name(int32_t tid, char comm[16])
{
	slim_cmdline_get(tid, comm);
}
