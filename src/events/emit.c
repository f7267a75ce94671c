// SPDX-License-Identifier: MIT
/*
 * The record path: for each target of an event, reserve room, let the
 * probe fill the record, run the target's filter, then publish (a
 * buffer target) or deliver (a callback).  Called from class probes,
 * inside the tracepoint's RCU read-side section.
 *
 * A callback's record is built in a per-thread scratch page, mapped at
 * the thread's first delivery and unmapped when it exits; mmap(2) is
 * async-signal-safe, so a first delivery inside a signal handler works
 * too.  The page holds a record for each level of nesting: a callback
 * that records an event of its own (an eprobe, whose consumers get it)
 * or a signal handler that fires while a record is being built takes
 * the next one.  Beyond SCRATCH_LEVELS the delivery is lost (counted),
 * as a nested event in a ring past its own limit is.
 *
 * An event file's triggers run on its buffer target (reserve_triggered,
 * commit_triggered); the same page holds the record they must see when
 * the ring does not take it, as the kernel's temp_buffer does.
 */
#include <limits.h>
#include <stddef.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "buffers/buffer.h"
#include "core/clock.h"
#include "core/fork.h"
#include "events/target.h"
#include "filter/filter.h"
#include "trigger/trigger.h"

/*
 * The record path's functions between a probe and a callback or a
 * trigger, in a section of their own, so that a stack taken there (the
 * stacktrace trigger, src/trigger/user_stack.c) can tell where the
 * library's frames end, the library linked into the program included:
 * the linker's __start_/__stop_slim_deliver bound it.  The exported
 * commits are in it too: they are the frames right above the probe.
 * (A function with a section of its own is not split into a .cold part
 * elsewhere.)
 */
#define SLIM_IN_DELIVER	__attribute__((section("slim_deliver")))

#define SCRATCH_LEVELS	4
#define SCRATCH_SIZE	((SCRATCH_LEVELS + 1) * SLIM_RB_PAGE_SIZE)

struct scratch {
	int depth;		/* records being built, outermost first */
	int32_t tid;
	char comm[16];
	uint64_t rec[SCRATCH_LEVELS][SLIM_RB_MAX_PAYLOAD / 8 + 1];
};

static __thread struct scratch *scratch
	__attribute__((tls_model("initial-exec")));
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_free(void *p)
{
	scratch = NULL;
	munmap(p, SCRATCH_SIZE);
}

/* A forked child's thread is another thread, with the parent's scratch. */
static void scratch_after_fork(void)
{
	if (scratch)
		scratch->tid = (int32_t)gettid();
}

static struct slim_fork_hook fork_hook = {
	SLIM_FORK_BUFFERS, NULL, NULL, scratch_after_fork, NULL
};

static void scratch_key_init(void)
{
	pthread_key_create(&scratch_key, scratch_free);
	slim_fork_hook_add(&fork_hook);
}

static SLIM_COLD struct scratch *scratch_get(void)
{
	struct scratch *s;

	_Static_assert(sizeof(struct scratch) <= SCRATCH_SIZE, "scratch too small");
	s = mmap(NULL, SCRATCH_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return NULL;
	s->tid = (int32_t)gettid();
	if (prctl(PR_GET_NAME, s->comm) != 0)
		strcpy(s->comm, "<...>");
	pthread_once(&scratch_once, scratch_key_init);
	pthread_setspecific(scratch_key, s);
	scratch = s;
	return s;
}

static void fill_header(struct slim_trace_entry *ent, const struct slim_event *ev,
			int32_t pid)
{
	ent->type = (uint16_t)ev->event.type;
	ent->flags = 0;
	ent->preempt_count = 0;
	ent->pid = pid;
}

static inline __attribute__((always_inline)) void *
reserve_buffers(struct slim_reserve *r, struct slim_target *t)
{
	struct slim_bufset *bs = t->bufs;
	struct slim_trace_entry *ent;
	struct slim_buffer *b;
	struct slim_rb *rb;

	if (slim_unlikely(!slim_bufset_tracing_on(bs)))
		return NULL;
	b = slim_bufset_buffer(bs);
	if (slim_unlikely(!b))
		return NULL;
	rb = slim_rcu_dereference(b->rb);
	/* A record too large for its encoding is lost, and counted. */
	ent = slim_rb_reserve(rb, r->len ? r->len : UINT_MAX, slim_clock_now(bs->clock));
	if (slim_unlikely(!ent))
		return NULL;
	fill_header(ent, r->ev, b->tid);
	r->buffer = b;
	r->rb = rb;
	return ent;
}

/*
 * The next level of the thread's scratch page for r's record, header
 * filled, or NULL: no page, too deep, or too large for a ring.
 */
static inline __attribute__((always_inline)) void *scratch_take(struct slim_reserve *r)
{
	struct scratch *s = scratch;
	int level;

	if (!s)
		s = scratch_get();
	if (!s || s->depth >= SCRATCH_LEVELS || !r->len || r->len > SLIM_RB_MAX_PAYLOAD)
		return NULL;
	/*
	 * A handler that comes between the load and the store takes this
	 * level and gives it back before we go on.
	 */
	level = s->depth;
	s->depth = level + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	r->buffer = NULL;
	r->rb = s;
	fill_header((struct slim_trace_entry *)s->rec[level], r->ev, s->tid);
	return s->rec[level];
}

static inline __attribute__((always_inline)) void scratch_put(struct scratch *s)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	s->depth--;
}

static SLIM_COLD void *reserve_callback(struct slim_reserve *r, struct slim_target *t)
{
	void *rec;

	__atomic_fetch_add(&t->hits, 1, __ATOMIC_RELAXED);
	rec = scratch_take(r);
	if (!rec) {
		__atomic_fetch_add(&t->lost, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	/* Reading and converting the clock is most of a callback's cost. */
	r->ts = SLIM_READ_ONCE(t->flags) & SLIM_TARGET_FL_NO_TIME ? 0 :
		slim_clock_now(SLIM_CLOCK_MONO);
	return rec;
}

/*
 * A soft-disabled event file, or one with triggers, as the kernel's
 * trace_trigger_soft_disabled() and trace_event_buffer_lock_reserve():
 * the triggers without a filter run first, so that an unconditional
 * traceoff keeps the very event out of the ring.  Those that must see
 * the record get it in the ring, or, when the file is soft-disabled or
 * the ring cannot take it (tracing off, no room), in the scratch page,
 * the kernel's temp_buffer, which the commit drops.
 */
static SLIM_COLD __attribute__((noinline)) void *
reserve_triggered(struct slim_reserve *r, struct slim_target *t, unsigned int fl)
{
	int needs_rec = fl & SLIM_TARGET_FL_TRIGGER ? slim_triggers_pre(t) :
			SLIM_READ_ONCE(t->cond_triggers);
	void *rec = NULL;

	if (!(SLIM_READ_ONCE(t->flags) & SLIM_TARGET_FL_SOFT_DISABLED))
		rec = reserve_buffers(r, t);
	if (!rec && needs_rec)
		rec = scratch_take(r);
	return rec;
}

/* The ring did not take the record: aside, if triggers with a filter need it. */
static SLIM_COLD __attribute__((noinline)) void *
reserve_aside(struct slim_reserve *r, struct slim_target *t)
{
	return SLIM_READ_ONCE(t->cond_triggers) ? scratch_take(r) : NULL;
}

/* Room in the next target that takes the record, or NULL. */
static inline __attribute__((always_inline)) void *reserve_next(struct slim_reserve *r)
{
	const struct slim_targets *ts = r->targets;

	while (r->next < r->end) {
		struct slim_target *t = ts->t[r->next++];
		unsigned int fl = SLIM_READ_ONCE(t->flags);
		void *rec;

		if (slim_likely(!(fl & (SLIM_TARGET_FL_SOFT_DISABLED | SLIM_TARGET_FL_CALLBACK |
					SLIM_TARGET_FL_TRIGGER)))) {
			rec = reserve_buffers(r, t);
			if (slim_unlikely(!rec) && (fl & SLIM_TARGET_FL_FILTERED))
				rec = reserve_aside(r, t);
		} else if (fl & SLIM_TARGET_FL_CALLBACK) {
			rec = reserve_callback(r, t);
		} else {
			rec = reserve_triggered(r, t, fl);
		}
		if (rec) {
			r->target = t;
			r->rec = rec;
			return rec;
		}
	}
	return NULL;
}

static inline __attribute__((always_inline)) void *
reserve_range(struct slim_reserve *r, struct slim_event *ev, unsigned int size,
	      int consumers_only)
{
	const struct slim_targets *ts = slim_rcu_dereference(ev->targets);

	if (slim_unlikely(!ts))
		return NULL;
	r->ev = ev;
	r->targets = ts;
	r->len = size;
	r->next = consumers_only ? ts->nr_buffers : 0;
	r->end = consumers_only ? ts->nr : ts->probe_end;
	return reserve_next(r);
}

SLIM_EXPORT void *slim_event_reserve(struct slim_reserve *r, struct slim_event *ev,
				     unsigned int size)
{
	return reserve_range(r, ev, size, 0);
}

SLIM_EXPORT void *slim_consumer_reserve(struct slim_reserve *r, struct slim_event *ev,
					unsigned int size)
{
	return reserve_range(r, ev, size, 1);
}

static SLIM_COLD int filter_rejects(struct slim_reserve *r, struct slim_target *t)
{
	struct slim_filter *f = slim_rcu_dereference(t->filter);
	struct slim_buffer *b = r->buffer;
	struct slim_filter_ctx ctx;

	if (!f)
		return 0;
	ctx.comm = b ? b->comm : ((struct scratch *)r->rb)->comm;
	ctx.cpu = slim_filter_needs_cpu(f) ? sched_getcpu() : -1;
	return !slim_filter_match(f, r->rec, r->len, &ctx);
}

static SLIM_COLD SLIM_IN_DELIVER
void deliver(struct slim_reserve *r, struct slim_target *t, int pass)
{
	if (pass) {
		__atomic_fetch_add(&t->passed, 1, __ATOMIC_RELEASE);
		t->fn(r->ev, r->rec, r->len,
		      r->ts ? slim_clock_to_ns(SLIM_CLOCK_MONO, r->ts) : 0, t->data);
	}
	scratch_put(r->rb);
}

/*
 * An event file with triggers, as the kernel's __event_trigger_test_discard()
 * and event_triggers_post_call(): the triggers with a filter see the
 * filled record where it lies, with the buffer's COMM; then it is
 * published, or rolled back if the event's own filter rejects it or the
 * file is soft-disabled, or, built in the scratch page, dropped; then
 * the post trigger (stacktrace) runs, so that its record follows.
 */
static SLIM_COLD __attribute__((noinline)) SLIM_IN_DELIVER
void commit_triggered(struct slim_reserve *r, struct slim_target *t)
{
	struct slim_buffer *b = r->buffer;
	void *post = slim_triggers_cond(t, r->rec, r->len,
					b ? b->comm : ((struct scratch *)r->rb)->comm);
	unsigned int fl = SLIM_READ_ONCE(t->flags);

	if (!b)
		scratch_put(r->rb);
	else if ((fl & SLIM_TARGET_FL_SOFT_DISABLED) ||
		 ((fl & SLIM_TARGET_FL_FILTERED) && filter_rejects(r, t)))
		slim_rb_discard(r->rb);
	else
		slim_rb_commit(r->rb);
	if (post)
		slim_triggers_post(post);
}

static inline __attribute__((always_inline)) void commit(struct slim_reserve *r)
{
	struct slim_target *t = r->target;
	unsigned int fl = SLIM_READ_ONCE(t->flags);
	int reject;

	/* A scratch record of a buffer target is a trigger's, flag or not by now. */
	if (slim_unlikely(!r->buffer)) {
		if (!(fl & SLIM_TARGET_FL_CALLBACK)) {
			commit_triggered(r, t);
			return;
		}
		reject = (fl & SLIM_TARGET_FL_FILTERED) && filter_rejects(r, t);
		deliver(r, t, !reject);
		return;
	}
	if (slim_unlikely(fl & (SLIM_TARGET_FL_TRIGGER | SLIM_TARGET_FL_FILTERED))) {
		if ((fl & SLIM_TARGET_FL_TRIGGER) || SLIM_READ_ONCE(t->cond_triggers)) {
			commit_triggered(r, t);
			return;
		}
		if (filter_rejects(r, t)) {
			slim_rb_discard(r->rb);
			return;
		}
	}
	slim_rb_commit(r->rb);
}

SLIM_EXPORT SLIM_IN_DELIVER void slim_event_commit(struct slim_reserve *r)
{
	commit(r);
}

/* The filter on a record the fast path reserved: COMM and CPU looked up if read. */
static inline __attribute__((always_inline)) int
fast_filter_keeps(struct slim_filter *f, struct slim_target *t, const void *rec, uint32_t len)
{
	struct slim_filter_ctx ctx;
	int keep;

	/* len: the payload, padding to 4 bytes included. */
	keep = slim_filter_match(f, rec, len, &slim_filter_ctx_unknown);
	if (slim_unlikely(keep < 0)) {
		ctx.comm = slim_filter_needs_comm(f) ? slim_bufset_buffer(t->bufs)->comm : NULL;
		ctx.cpu = slim_filter_needs_cpu(f) ? sched_getcpu() : -1;
		keep = slim_filter_match(f, rec, len, &ctx);
	}
	return keep;
}

/*
 * The fast path's commit for a file whose triggers all have a filter:
 * they read the record where it lies in the ring, then the event's own
 * filter decides, as in commit_triggered().  A stacktrace set since the
 * reserve (its file now leaves the fast path) runs here, after the
 * commit, once.
 */
static SLIM_COLD __attribute__((noinline)) SLIM_IN_DELIVER
void commit_fast_triggered(struct slim_rb *rb, struct slim_target *t)
{
	uint32_t len;
	void *rec = slim_rb_resv_record(rb, &len);
	void *post = slim_triggers_cond(t, rec, len, NULL);
	struct slim_filter *f = slim_rcu_dereference(t->filter);
	int keep = !(SLIM_READ_ONCE(t->flags) & SLIM_TARGET_FL_SOFT_DISABLED);

	if (keep && f)
		keep = fast_filter_keeps(f, t, rec, len);
	if (keep)
		slim_rb_commit(rb);
	else
		slim_rb_discard_fast(rb);
	if (post)
		slim_triggers_post(post);
}

/*
 * The inlined fast path's commit when its target has a filter: the
 * filter reads the record where it lies in the ring, which is then
 * published or rolled back, as the kernel filters its events.  The
 * reservation says which target it was made for (resv_target).
 */
SLIM_STATIC_ASSERT(offsetof(struct slim_rb, w) == 0, "ABI: a ring starts with its writer");

/* A filter that reads COMM or CPU, on the fast path's open reservation. */
static SLIM_COLD SLIM_IN_DELIVER int fast_filter_ctx_keeps(struct slim_rb *rb,
							    struct slim_filter *f)
{
	uint32_t len;
	void *rec = slim_rb_resv_record(rb, &len);

	return fast_filter_keeps(f, rb->w.resv_target, rec, len);
}

/*
 * The rest of slim_record_commit_filtered(): out of line, so that the
 * one-predicate case saves no registers; not cold, since a chain of
 * several predicates is tested here, inline too.
 */
static __attribute__((noinline)) SLIM_IN_DELIVER
void commit_fast_filtered(struct slim_rb *rb, struct slim_filter *f)
{
	uint32_t len;
	void *rec = slim_rb_resv_record(rb, &len);
	int keep = 1;

	if (f) {
		keep = slim_filter_quick_chain(f, rec, len);
		if (slim_unlikely(keep < 0))
			keep = slim_filter_match(f, rec, len, &slim_filter_ctx_unknown);
		if (slim_unlikely(keep < 0))
			keep = fast_filter_ctx_keeps(rb, f);
	}
	if (keep)
		slim_rb_commit(rb);
	else
		slim_rb_discard_fast(rb);
}

/* No commit_filter: triggers to run first, or no filter (any more). */
static __attribute__((noinline)) SLIM_IN_DELIVER void commit_fast_other(struct slim_rb *rb)
{
	struct slim_target *t = rb->w.resv_target;

	if (SLIM_READ_ONCE(t->cond_triggers))
		commit_fast_triggered(rb, t);
	else
		commit_fast_filtered(rb, slim_rcu_dereference(t->filter));
}

/*
 * static/record.h's clock when it is not the counter: read here, where
 * the clock's source is known, as slim_clock_now() reads it on the slow
 * path.  A source that became the counter since the fast word said
 * otherwise sends the event there (0: no POSIX clock reads 0 here).
 */
SLIM_EXPORT SLIM_IN_DELIVER uint64_t slim_record_clock_ns(struct slim_target *t)
{
	int id = SLIM_READ_ONCE(t->bufs->clock);
	int src = __atomic_load_n(&slim_clock_srcs[id], __ATOMIC_RELAXED);

	if (src == SLIM_CLOCK_SRC_COUNTER)
		return 0;
	return slim_clock_gettime_ns(src);
}

/* The fast path for a set whose clock is not the counter (static/record.h). */
SLIM_EXPORT SLIM_IN_DELIVER struct slim_record_room
slim_record_fast_clock(struct slim_event *ev, unsigned int esize)
{
	return __slim_record_fast_on(ev, esize, SLIM_FAST_CLOCK);
}

SLIM_EXPORT SLIM_IN_DELIVER void slim_record_commit_filtered(struct slim_abi_writer *aw)
{
	struct slim_rb *rb = (struct slim_rb *)aw;
	struct slim_target *t = rb->w.resv_target;
	/* The filter when no triggers come first: one load for both facts. */
	struct slim_filter *f = slim_rcu_dereference(t->commit_filter);
	uint32_t len;
	void *rec = slim_rb_resv_record(rb, &len);
	int keep;

	/* A one-predicate filter, the usual case, is tested here. */
	keep = f ? slim_filter_quick(f, rec, len) : -1;
	if (slim_likely(keep > 0)) {
		slim_rb_commit(rb);
	} else if (slim_likely(keep == 0)) {
		slim_rb_discard_fast(rb);
	} else if (f) {
		commit_fast_filtered(rb, f);
	} else {
		commit_fast_other(rb);
	}
}

/* The targets after the first: the uncommon case, out of the way. */
static SLIM_COLD __attribute__((noinline)) void *reserve_more(struct slim_reserve *r)
{
	return reserve_next(r);
}

SLIM_EXPORT SLIM_IN_DELIVER void *slim_event_commit_next(struct slim_reserve *r)
{
	commit(r);
	if (slim_likely(r->next >= r->end))
		return NULL;
	return reserve_more(r);
}
