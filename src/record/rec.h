/* SPDX-License-Identifier: MIT */
/*
 * The recorder's parts (src/record/), one job per file:
 *
 *   record.c    the API, start and stop, fork
 *   consumer.c  the consumer thread and who may touch the files when
 *   drain.c     a pass over the buffers: pages into the staging area
 *   source.c    every access to the buffers (the only file that knows them)
 *   encode.c    cycles to ns, pages re-encoded, the staging area
 *   lost.c      lost events owed to later pages
 *   threads.c   the threads seen in the pages: the saved cmdlines
 *   meta.c      the metadata: header texts, formats, clock, uname
 *   signals.c   fatal signals: flush, then die as the signal would
 *   sink.h      the file writer's interface; sink_tdat*.c, tdat_out.c
 *   recover.c   rebuilding a file after SIGKILL
 *   mem.c       the tables' memory, which a signal handler can grow too
 *
 * What runs in a signal handler (drain, the sink's page and finish)
 * uses only system calls on files and memory allocated beforehand.
 */
#ifndef SLIM_RECORD_REC_H
#define SLIM_RECORD_REC_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <slimtrace/record.h>
#include "core/clock.h"
#include "ring/page.h"
#include "ring/ring_buffer.h"
#include "record/record.h"
#include "record/sink.h"

#pragma GCC visibility push(hidden)

#define REC_BATCH	64	/* pages per write(2) */

/* ---- mem.c: the tables' memory ---- */

/*
 * realloc(), or in a fatal signal handler fresh mapped pages (old is
 * then left alone).  NULL if there is no memory.
 */
void *rec_grow(void *old, size_t old_size, size_t new_size, int in_signal);
/* free() for what rec_grow() gave. */
void rec_release(void *p);

/* ---- source.c: the buffers ---- */

struct slim_buffer;
struct slim_bufset;
enum rec_lock {
	REC_LOCK_TRY,		/* skip a buffer someone else reads */
	REC_LOCK_WAIT,		/* wait for the read lock */
	REC_LOCK_SIGNAL,	/* try a few times, sleeping: a signal handler */
};
/* The set of buffers a recording records: the top instance's. */
struct slim_bufset *rec_src_set(void);
/* Its trace clock (enum slim_clock_id). */
int rec_src_clock(struct slim_bufset *bs);
struct slim_buffer *rec_src_first(struct slim_bufset *bs);
struct slim_buffer *rec_src_next(struct slim_buffer *b);
int rec_src_id(const struct slim_buffer *b);	/* the file's CPU */
/* The buffer's ring now, its read lock taken: NULL if not taken. */
struct slim_rb *rec_src_lock(struct slim_buffer *b, enum rec_lock how);
void rec_src_unlock(struct slim_buffer *b);
int rec_src_take(struct slim_rb *rb, void *page, int full_only, struct slim_rb_taken *tk);
uint64_t rec_src_write_seq(struct slim_rb *rb);
uint64_t rec_src_refused(struct slim_rb *rb);
void rec_src_stats(struct slim_rb *rb, struct slim_rb_stats *st);
/* A retired buffer read to the end gives its ring back (lock held). */
void rec_src_reap(struct slim_bufset *bs, struct slim_buffer *b);
uint64_t rec_src_lost_nobuf(struct slim_bufset *bs);
void rec_src_thread_name(int32_t tid, char comm[16]);

/* ---- threads.c: the threads seen, their names ---- */

struct rec_pid;
struct rec_threads {
	struct rec_pid *pids;
	unsigned int nr, cap;
	int fresh;		/* ids added since the last rec_threads_name() */
	int32_t last;		/* the last id noted */
	char *text;		/* room for the cmdlines text */
	size_t text_cap;
};
int rec_threads_init(struct rec_threads *th);
void rec_threads_free(struct rec_threads *th);
/* From a data event's common header; may_grow 0 in a signal handler. */
void rec_threads_note(struct rec_threads *th, const struct slim_page_entry *e, int may_grow);
/* Names for the ids added since last time: 1 if there were any. */
int rec_threads_name(struct rec_threads *th);
/* "pid name\n" lines in th->text: their length.  Async-signal-safe. */
size_t rec_threads_cmdlines(struct rec_threads *th);

/* ---- lost.c: losses that go on a later page ---- */

struct rec_ring;
struct rec_lost {
	struct rec_ring *rings;
	int nr, cap;
};
int rec_lost_init(struct rec_lost *l);
void rec_lost_free(struct rec_lost *l);
/* The ring's entry (index), added if new; -1 if there is no room. */
int rec_lost_ring(struct rec_lost *l, struct slim_rb *rb, int may_grow);
/* Note the events rb's writer refused since last time. */
void rec_lost_note_refused(struct rec_lost *l, int ring, struct slim_rb *rb);
/* The lost events to put on page seq, taken off the list. */
uint64_t rec_lost_take(struct rec_lost *l, int ring, uint64_t seq);
/* Lost events that found no page: the next page taken carries them. */
void rec_lost_owe(struct rec_lost *l, int ring, uint64_t count);

/* ---- encode.c: pages into the staging area ---- */

/* Cycles to ns the recorder's way: slim_record_conv_ns() (record.h). */
/* A header rewritten in place: where, and its one or two new words. */
struct rec_fix {
	uint32_t off;
	uint32_t w[2];
	uint32_t words;
};

struct rec_stage {
	unsigned char *pages;	/* REC_BATCH pages */
	unsigned char *scratch;	/* one page */
	struct rec_fix *fix;	/* a page's worth (SLIM_PAGE_DATA / 8) */
	int used;
	int convert;		/* stamps are cycles: write ns */
	struct slim_clock_calib *tab;
	size_t ntab;
};
int rec_stage_init(struct rec_stage *st, int clock_id);
void rec_stage_free(struct rec_stage *st);
/* A fresh calibration table for this pass (when converting). */
void rec_stage_calibrate(struct rec_stage *st);

/* Where the staged pages of one CPU go, and what the encoder keeps for it. */
struct rec_put {
	struct rec_stage *st;
	struct rec_sink *sink;
	struct rec_threads *th;
	int cpu;
	uint64_t *last_ts;	/* the CPU's last time written */
	struct slim_record_conv cv;
	uint64_t left;		/* lost events no page could carry */
	int may_grow;		/* 0 in a signal handler */
};
/* The page to take the next ring page into; NULL: flush first. */
unsigned char *rec_stage_slot(struct rec_stage *st);
/* The page rec_stage_slot() gave, with `missed` lost events before it. */
int rec_stage_put(struct rec_put *p, unsigned char *page, uint64_t missed);
/* Staged pages to the sink. */
int rec_stage_flush(struct rec_put *p);

/* ---- meta.c: what a file says besides its pages ---- */

/* How hard to try for slim_event_mutex: once, or for up to 200 ms. */
enum rec_meta_lock { REC_META_TRY, REC_META_WAIT };
struct rec_meta_state {
	struct rec_meta m;	/* what the sink is given (sink.h) */
	unsigned char *blob;	/* the blocks */
	uint64_t event_sig;	/* the events the blocks hold */
	int have;
	char clock[32];		/* "[mono]\n" */
	char uname[300];
};
void rec_meta_setup(struct rec_meta_state *ms, int clock_id);
void rec_meta_free(struct rec_meta_state *ms);
/* New formats if events were loaded or unloaded: 1 changed, 0, -EAGAIN, -errno. */
int rec_meta_refresh(struct rec_meta_state *ms, enum rec_meta_lock how);

/* ---- drain.c: a pass over the buffers ---- */

enum rec_drain {
	REC_DRAIN_FULL,		/* closed pages, skip a buffer someone else reads */
	REC_DRAIN_ALL,		/* the page being filled too, wait for the read lock */
	REC_DRAIN_SIGNAL,	/* everything, try the read lock a few times */
};

struct rec_cpu;
struct rec_drain_state {
	struct rec_cpu *cpus;
	struct rec_cpu_stat *stats;	/* for the sink at the end */
	int nr, cap;
	uint64_t pass;
	uint64_t pages;		/* taken from the rings */
	struct rec_stage stage;
	struct rec_lost lost;
	struct rec_threads threads;
	struct rec_sink *sink;
	struct slim_bufset *bufs;	/* the buffers recorded */
	int in_signal;
};
int rec_drain_init(struct rec_drain_state *d, struct rec_sink *sink,
		   struct slim_bufset *bufs);
void rec_drain_free(struct rec_drain_state *d);
/* Every buffer, round after round, until each has had its pages. */
int rec_drain(struct rec_drain_state *d, enum rec_drain mode);
/* The statistics the final file carries, per CPU: d->stats[0, d->nr). */
void rec_drain_stats(struct rec_drain_state *d);

/* ---- record.c, consumer.c, signals.c: a recording ---- */

struct rec {
	char *path;
	int version;			/* of trace.dat */
	struct rec_sink sink;
	struct rec_drain_state d;	/* used by whoever holds owner */
	struct rec_meta_state meta;	/* likewise */
	int err;

	/* Shared: atomics. */
	int owner;
	int finished;
	int consumer_tid;
	/* slim_record_get_stats(): written by the consumer thread only. */
	struct slim_record_stats st;

	/* The consumer thread and its callers, under lock. */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake, synced;
	int stop, exited;
	uint64_t sync_req, sync_done;
};

enum { REC_OWN_NONE, REC_OWN_CONSUMER, REC_OWN_SIGNAL };
int rec_own_try(struct rec *r, int who);
void rec_own_release(struct rec *r);
/* Wait for the turn; 0 once the file is final (nothing left to do). */
int rec_own_wait(struct rec *r, int who);
void rec_ms_sleep(long ms);

/*
 * Bring the metadata up to date and, if it changed and write_main, give
 * it to the sink.  The caller holds owner.  0, -EAGAIN or -errno.
 */
int rec_refresh(struct rec *r, enum rec_meta_lock how, int write_main);
/* The final file, by whoever holds owner.  Async-signal-safe. */
int rec_write_final(struct rec *r);
void *rec_consumer(void *arg);
/* After the consumer's last pass: the final file.  0 or -errno. */
int rec_finish(struct rec *r, enum rec_meta_lock how);

/* signals.c */
void rec_signals_install(struct rec *r);
void rec_signals_remove(void);
/* Stop handlers from seeing the recording; wait: for those running. */
void rec_signals_detach(int wait);

/* record.c: the first error of a recording, said once.  Not in a handler. */
void rec_set_err(struct rec *r, int err);

/* Around an exec in place (record/exec.c, record.c). */
enum { REC_EXEC_NONE, REC_EXEC_STOPPED, REC_EXEC_RESTART };
int rec_exec_prepare(void);
void rec_exec_failed(int how, const char *what, int err);

#pragma GCC visibility pop

#endif
