/* SPDX-License-Identifier: MIT */
/*
 * Tracepoints: a hook in the code that calls the probes attached to it.
 *
 * A tracepoint is one pointer: its probe array, NULL while nothing is
 * attached, so the disabled cost at a call site is one load and one
 * predicted branch.  Each probe has its own data pointer (seed patch 2):
 * a "_data" probe is called as probe(args..., data), a plain one as
 * probe(args...).  The array is replaced, never edited, and freed only
 * after an RCU grace period, so probes may come and go while other
 * threads fire.
 *
 * Probes are stored untyped and always called through their own type:
 * the iterator of a tracepoint (or of an event class, shared by all its
 * events) casts back to exactly the type the probe was registered with,
 * which keeps every call defined (UBSan's -fsanitize=function agrees).
 *
 * This header also opens the kernel's trace dialect: DECLARE_TRACE,
 * TRACE_EVENT, DECLARE_EVENT_CLASS, DEFINE_EVENT... (see dialect.h).
 */
#ifndef SLIMTRACE_TRACEPOINT_H
#define SLIMTRACE_TRACEPOINT_H

/*
 * Only headers that define no lowercase macro: a kernel trace header
 * may name a field errno, and <errno.h> would turn it into an
 * expression.  (<string.h> stays, for the memcpy() of TP_fast_assign.)
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <slimtrace/compiler.h>
#include <slimtrace/rcu.h>

SLIM_BEGIN_DECLS

typedef void (*slim_probe_func)(void);

enum slim_probe_kind {
	SLIM_PROBE_DATA,	/* called as probe(args..., data) */
	SLIM_PROBE_NODATA,	/* called as probe(args...) */
};

struct slim_probe {
	slim_probe_func func;	/* NULL ends the array */
	void *data;
	int kind;		/* enum slim_probe_kind */
	/*
	 * Set by the library on the first entry of an array that holds one
	 * SLIM_PROBE_DATA probe: the iterators' one test for their inline
	 * case (dialect.h).
	 */
	int only;
};

struct slim_tracepoint {
	struct slim_probe *probes;
};

/*
 * A bare tracepoint's entry in the "slim_tracepoints" section, so that it
 * can be found by name.  Offsets are relative to the field itself: a
 * position-independent program then needs no relocation for it.
 */
struct slim_tracepoint_desc {
	int32_t tp;
	int32_t name;
};

static inline const void *slim_rel(const int32_t *field)
{
	return *field ? (const char *)field + *field : NULL;
}

/* The same, to writable data: through an integer, so no cast drops const. */
static inline void *slim_rel_mut(const int32_t *field)
{
	return *field ? (void *)((uintptr_t)field + (uintptr_t)(intptr_t)*field) : NULL;
}

static inline struct slim_tracepoint *
slim_tracepoint_desc_tp(const struct slim_tracepoint_desc *d)
{
	return (struct slim_tracepoint *)slim_rel_mut(&d->tp);
}

static inline const char *
slim_tracepoint_desc_name(const struct slim_tracepoint_desc *d)
{
	return (const char *)slim_rel(&d->name);
}

/* 0, -EINVAL for a NULL probe or tracepoint, -EEXIST, -ENOMEM. */
SLIM_EXPORT int slim_tracepoint_probe_register(struct slim_tracepoint *tp,
					       slim_probe_func func,
					       void *data, int kind);
/* 0, -EINVAL, -ENOENT when that (probe, data) pair is not attached. */
SLIM_EXPORT int slim_tracepoint_probe_unregister(struct slim_tracepoint *tp,
						 slim_probe_func func,
						 void *data, int kind);
/*
 * By name, like the kernel's tracepoint_probe_register(name, probe, data):
 * the probe must have the tracepoint's type plus a trailing void *data.
 * -ENOENT when no loaded tracepoint or event has that name.
 */
SLIM_EXPORT int slim_tracepoint_probe_register_name(const char *name,
						    slim_probe_func func,
						    void *data);
SLIM_EXPORT int slim_tracepoint_probe_unregister_name(const char *name,
						      slim_probe_func func,
						      void *data);
SLIM_EXPORT struct slim_tracepoint *slim_tracepoint_find(const char *name);

static inline int slim_tracepoint_enabled(const struct slim_tracepoint *tp)
{
	return SLIM_READ_ONCE(tp->probes) != NULL;
}

SLIM_END_DECLS

#endif /* SLIMTRACE_TRACEPOINT_H */

/*
 * Outside the guard, like the kernel's linux/tracepoint.h: after
 * define_trace.h has used and dropped the stage macros, the next trace
 * header that includes this file gets the declaring forms back.
 */
#include <slimtrace/event.h>
#include <slimtrace/dialect.h>
