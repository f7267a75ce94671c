/* SPDX-License-Identifier: MIT */
/*
 * Targets: where an event's records go (src/events/enable.c, emit.c).
 *
 * An instance's event file and a consumer each embed one target; the
 * event holds an RCU-published array of the targets it currently feeds.
 * The class's reg() is called when the first target of a kind appears
 * and when the last goes (REGISTER for buffers, PERF_REGISTER for
 * callbacks), so the tracepoint carries at most one probe per path
 * however many instances and consumers take the event.
 */
#ifndef SLIM_EVENTS_TARGET_H
#define SLIM_EVENTS_TARGET_H

#include <stdint.h>
#include <stddef.h>
#include <slimtrace/event.h>
#include <slimtrace/static/record.h>

#pragma GCC visibility push(hidden)

struct slim_bufset;
struct slim_filter;

enum slim_target_kind {
	SLIM_TARGET_BUFFERS,	/* an instance's buffers: the ftrace-like path */
	SLIM_TARGET_CALLBACK,	/* a consumer callback: the perf-like path */
};

/* Target flags: written by the control side, read by the record path. */
enum {
	SLIM_TARGET_FL_FILTERED		= 1 << 0,	/* has a filter to run */
	SLIM_TARGET_FL_SOFT_DISABLED	= 1 << 1,	/* attached, but records nothing */
	SLIM_TARGET_FL_CALLBACK		= 1 << 2,	/* kind SLIM_TARGET_CALLBACK: one test */
	SLIM_TARGET_FL_NO_TIME		= 1 << 3,	/* a callback that ignores ts_ns (0) */
	/*
	 * An event file with triggers the slow path must run: without a
	 * filter (before the reserve) or stacktrace (after the commit).
	 * Those with a filter only need the commit: FILTERED and
	 * cond_triggers, which the fast path serves.
	 */
	SLIM_TARGET_FL_TRIGGER		= 1 << 4,
	/* SLIM_ABI_TARGET_SLOW: only targets->fast's stand-in (enable.c). */
};

/* What a consumer callback receives; see <slimtrace/consumer.h>. */
typedef void (*slim_target_fn)(const struct slim_event *ev, const void *rec,
			       unsigned int len, uint64_t ts_ns, void *data);

struct slim_target {
	/* kind, flags, filter (RCU), bufs (SLIM_TARGET_BUFFERS): ABI */
	SLIM_ABI_TARGET
	slim_target_fn fn;		/* SLIM_TARGET_CALLBACK */
	void *data;
	/* An event file: it has triggers with a filter, and FILTERED (atomic). */
	int cond_triggers;
	/*
	 * RCU: filter while there are no cond_triggers, else NULL: what the
	 * fast path's commit runs alone, found with one load (a buffer
	 * target's, kept by slim_target_set_filter() and _cond_triggers()).
	 */
	struct slim_filter *commit_filter;
	/* Callbacks: exact counts (atomic). */
	uint64_t hits;			/* records made for it */
	uint64_t passed;		/* of them, passed its filter: delivered */
	uint64_t lost;			/* no room to build the record */
};

/* The array an event's record path walks: buffer targets first. */
/*
 * fast: t[0] when it is the only target the probe serves and a buffer
 * target; nr_buffers: [0, nr_buffers) are SLIM_TARGET_BUFFERS; probe_end:
 * what the class probe serves.  The four are ABI (static/record.h).
 */
struct slim_targets {
	SLIM_ABI_TARGETS
	struct slim_target *t[];
};

SLIM_STATIC_ASSERT(offsetof(struct slim_target, flags) == offsetof(struct slim_abi_target, flags) &&
		   offsetof(struct slim_target, bufs) == offsetof(struct slim_abi_target, bufs),
		   "ABI: target");
SLIM_STATIC_ASSERT(offsetof(struct slim_targets, fast) == offsetof(struct slim_abi_targets, fast) &&
		   offsetof(struct slim_targets, fast_word) ==
		   offsetof(struct slim_abi_targets, fast_word) &&
		   offsetof(struct slim_targets, fast_slot) ==
		   offsetof(struct slim_abi_targets, fast_slot),
		   "ABI: targets");

/*
 * Add or remove a target of ev; slim_event_mutex held.  The first of a
 * kind calls the class's reg(); if that fails, nothing changed.  After
 * a removal, readers may see t until a grace period has passed.
 */
int slim_event_target_add(struct slim_event *ev, struct slim_target *t);
int slim_event_target_del(struct slim_event *ev, struct slim_target *t);
int slim_event_has_target(const struct slim_event *ev, const struct slim_target *t);

/* Replace t's filter (NULL: none); the old one goes after a grace period. */
void slim_target_set_filter(struct slim_target *t, struct slim_filter *f);
/* Whether t's commit runs its triggers with a filter (src/trigger/). */
void slim_target_set_cond_triggers(struct slim_target *t, int on);

#pragma GCC visibility pop

#endif
