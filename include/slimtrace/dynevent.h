/* SPDX-License-Identifier: MIT */
/*
 * Dynamic events: events defined at run time, in the kernel's
 * `dynamic_events` syntax (docs/dynamic-events.md).
 *
 *	u:[SYS/]NAME [FIELD[; FIELD...]]	a user event (user_events.rst)
 *	e:[GRP/]NAME SYS.EVENT [ARG...]		an event probe (eprobetrace.rst)
 *
 * A defined event is an event like a compiled one: it has an id, a
 * format file, enable and filter files in every instance, and can be
 * consumed and recorded.  The same text written to the `dynamic_events`
 * control file defines the same event.
 *
 * A user event is fired with its payload as iovecs, as the kernel's
 * user_events_data takes it with writev(2): the fields in order, packed,
 * then the bytes of its __data_loc / __rel_loc fields, whose words give
 * offsets counted from the start of the record (its 8-byte common
 * header included) or, for __rel_loc, from the end of the word.
 *
 *	const unsigned int *on = slim_dynevent_enabled(ev);
 *	...
 *	if (*on)
 *		slim_dynevent_fire(ev, iov, 2);
 */
#ifndef SLIMTRACE_DYNEVENT_H
#define SLIMTRACE_DYNEVENT_H

#include <sys/uio.h>
#include <slimtrace/compiler.h>

SLIM_BEGIN_DECLS

struct slim_event;
struct slim_dynevent;

/*
 * Defines one event from its text and returns a handle to it in *ev:
 * 0, -EEXIST (the name is taken), -EINVAL (bad syntax or type; why is in
 * the top level's error_log), -E2BIG (the fields do not fit a record),
 * -ENOENT (an eprobe's source event does not exist), -ENOMEM.  While
 * the handle is held the event cannot be removed through the control
 * file (-EBUSY).
 */
SLIM_EXPORT int slim_dynevent_create(const char *text, struct slim_dynevent **ev);
/* Lets the handle go; the event stays defined. */
SLIM_EXPORT void slim_dynevent_release(struct slim_dynevent *ev);
/*
 * Removes the event and lets its handle go: 0, or -EBUSY when it is
 * enabled somewhere or has consumers (the handle stays valid then).
 */
SLIM_EXPORT int slim_dynevent_remove(struct slim_dynevent *ev);

/*
 * The word that is nonzero while anything (an instance, a consumer)
 * takes the event's records; it lives as long as the handle.
 */
SLIM_EXPORT const volatile unsigned int *slim_dynevent_enabled(const struct slim_dynevent *ev);

/*
 * Records a user event with its payload: 0 (recorded, filtered out, or
 * disabled), -EINVAL (shorter than the fixed fields, or not a user
 * event), -EFAULT (a __data_loc word points outside the payload, or a
 * string is not NUL-terminated, as the kernel validates), -E2BIG.
 * No lock, no allocation.
 */
SLIM_EXPORT int slim_dynevent_fire(struct slim_dynevent *ev, const struct iovec *iov,
				   int nr);

/* The event itself, for the rest of the API (consumers, slim_event_enable()). */
SLIM_EXPORT struct slim_event *slim_dynevent_event(struct slim_dynevent *ev);

SLIM_END_DECLS

#endif /* SLIMTRACE_DYNEVENT_H */
