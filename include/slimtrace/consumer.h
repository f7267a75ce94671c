/* SPDX-License-Identifier: MIT */
/*
 * Consumers: code in the program that takes an event's records itself,
 * with no buffer in between (the seed's perf_probe path).
 *
 * A consumer is a callback attached to one event, with a data pointer
 * and an optional filter of its own (the ftrace filter language).  It
 * is called on the thread that fired the event, inside the event's
 * probe, with the record in the kernel's layout (common header, fields,
 * __data_loc data: what the event's `format` file describes), its
 * length and a CLOCK_MONOTONIC time stamp in ns.  The record is valid
 * only during the call.  A callback must not block, and may not attach
 * or detach consumers of the event it is called for.
 *
 * The first consumer of an event registers the class's consumer path
 * (PERF_REGISTER), the last unregisters it.  Detaching while other
 * threads fire is safe: after slim_consumer_detach() returns, the
 * callback is not running and will not be called again.
 */
#ifndef SLIMTRACE_CONSUMER_H
#define SLIMTRACE_CONSUMER_H

#include <stdint.h>
#include <slimtrace/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

struct slim_event;

typedef void (*slim_consumer_fn)(const struct slim_event *ev, const void *rec,
				 unsigned int len, uint64_t ts_ns, void *data);

/*
 * Attach fn (with data) to ev, filtered by filter (NULL or "": every
 * record).  0, -ENOENT (no such event), -EEXIST (that fn and data are
 * attached already), -EINVAL (the filter does not parse: the kernel's
 * message is in the top level's error_log), -EOPNOTSUPP (the event's
 * class has no consumer path), -ENOMEM.
 */
SLIM_EXPORT int slim_consumer_attach(struct slim_event *ev, slim_consumer_fn fn,
				     void *data, const char *filter);
/* The same by name: "system:event", or "event" when it is unique. */
SLIM_EXPORT int slim_consumer_attach_name(const char *name, slim_consumer_fn fn,
					  void *data, const char *filter);
/* 0, or -ENOENT when that fn and data are not attached to ev. */
SLIM_EXPORT int slim_consumer_detach(struct slim_event *ev, slim_consumer_fn fn,
				     void *data);
SLIM_EXPORT int slim_consumer_detach_name(const char *name, slim_consumer_fn fn,
					  void *data);

/* Exact counts of one consumer since it was attached. */
struct slim_consumer_stats {
	uint64_t hits;		/* records made for it (the event's hit count) */
	uint64_t passed;	/* of them, passed its filter: the calls of fn */
	uint64_t lost;		/* could not be built (nested in a signal handler...) */
};

/* 0, or -ENOENT when that fn and data are not attached to ev. */
SLIM_EXPORT int slim_consumer_stats(struct slim_event *ev, slim_consumer_fn fn,
				    void *data, struct slim_consumer_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* SLIMTRACE_CONSUMER_H */
