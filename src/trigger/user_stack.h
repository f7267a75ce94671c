/* SPDX-License-Identifier: MIT */
/*
 * ftrace:user_stack, the record the stacktrace trigger writes
 * (src/trigger/user_stack.c): the kernel's user stack entry, so that
 * trace-cmd and libtraceevent decode it as they decode the kernel's.
 * Callers hold slim_event_mutex but for slim_user_stack_record().
 */
#ifndef SLIM_TRIGGER_USER_STACK_H
#define SLIM_TRIGGER_USER_STACK_H

#include <stdint.h>
#include <slimtrace/field.h>

#pragma GCC visibility push(hidden)

/* The kernel's FTRACE_STACK_ENTRIES for user stacks. */
#define SLIM_USER_STACK_ENTRIES	8

struct slim_user_stack_entry {
	struct slim_trace_entry ent;
	uint32_t tgid;
	unsigned long caller[SLIM_USER_STACK_ENTRIES];	/* zeros after the last */
};
/* How a record is reached in a ring: 4-byte aligned, as the kernel's. */
typedef struct slim_user_stack_entry SLIM_RECORD_ALIGN slim_user_stack_rec;

struct slim_bufset;

/*
 * Loads and primes the unwinder (once): without slim_event_mutex held,
 * since it may dlopen libgcc_s, and a dlopen that runs an object's
 * constructors holds the loader's lock while they take the mutex.
 */
void slim_user_stack_warm(void);
/*
 * When a stacktrace trigger is set, never on the record path: registers
 * the event (once) and primes the unwinder if that was not done yet.
 * 0 or -errno.
 */
int slim_user_stack_prepare(void);
/* The calling thread's stack, into its buffer of bs; 1 if recorded. */
int slim_user_stack_record(struct slim_bufset *bs);
/* The event, once prepared; NULL before. */
const struct slim_event *slim_user_stack_event(void);

#pragma GCC visibility pop

#endif
