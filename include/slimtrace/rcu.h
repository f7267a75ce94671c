/* SPDX-License-Identifier: MIT */
/*
 * A small user-space RCU, enough for probe arrays and filters.
 *
 * Readers are the threads that fire tracepoints: their lock and unlock are
 * a thread-local store each, because the writer pays instead, with
 * membarrier(2) (or, where the kernel lacks it, readers fall back to a
 * full fence).  Writers are rare (enable, disable, set a filter).
 *
 * Each reader has one word: the low 16 bits count nesting (a signal
 * handler may fire inside a probe), the rest counts completed outermost
 * critical sections.  After publishing a new pointer and forcing a
 * barrier on every thread, the writer waits for each reader that was
 * inside a critical section to change its word; any section entered
 * after the barrier already sees the new pointer.  See docs/rcu.md.
 */
#ifndef SLIMTRACE_RCU_H
#define SLIMTRACE_RCU_H

#include <slimtrace/compiler.h>

SLIM_BEGIN_DECLS

#define SLIM_RCU_NEST_MASK	0xffffUL
#define SLIM_RCU_SEQ_ONE	0x10000UL

struct slim_rcu_reader {
	unsigned long ctr;
	int registered;
	struct slim_rcu_reader *next;
};

extern SLIM_EXPORT __thread struct slim_rcu_reader slim_rcu_reader
	__attribute__((__tls_model__("initial-exec")));
/* Nonzero when membarrier(2) is missing: readers must fence themselves. */
extern SLIM_EXPORT int slim_rcu_reader_fence;

SLIM_EXPORT void slim_rcu_register_thread(void);
/*
 * Waits for every other thread's read-side sections that began before
 * it; the caller's own section, if it is in one, is not waited for, so
 * a caller inside one must not free what that section may still use
 * (slim_rcu_in_reader() tells).
 */
SLIM_EXPORT void slim_rcu_synchronize(void);
SLIM_EXPORT int slim_rcu_in_reader(void);
/* Frees p with fn after a grace period (later, if called by a reader). */
SLIM_EXPORT void slim_rcu_free(void *p, void (*fn)(void *));

static inline void slim_rcu_read_lock(void)
{
	struct slim_rcu_reader *r = &slim_rcu_reader;
	unsigned long c = r->ctr;

	if (slim_unlikely(!r->registered))
		slim_rcu_register_thread();
	/*
	 * The store must be visible before the protected loads below: the
	 * writer's membarrier(2) sees to that, or without it a full barrier
	 * here (an exchange, which sanitizers understand).
	 */
	if (slim_unlikely(SLIM_READ_ONCE(slim_rcu_reader_fence))) {
		__atomic_exchange_n(&r->ctr, c + 1, __ATOMIC_SEQ_CST);
	} else {
		__atomic_store_n(&r->ctr, c + 1, __ATOMIC_RELAXED);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	}
}

static inline void slim_rcu_read_unlock(void)
{
	struct slim_rcu_reader *r = &slim_rcu_reader;
	unsigned long c = r->ctr - 1;

	if (!(c & SLIM_RCU_NEST_MASK))
		c += SLIM_RCU_SEQ_ONE;
	/* Release: every protected load is done before the writer sees it. */
	__atomic_store_n(&r->ctr, c, __ATOMIC_RELEASE);
}

#define slim_rcu_dereference(p)		slim_load_acquire(&(p))
#define slim_rcu_assign_pointer(p, v)	slim_store_release(&(p), (v))

SLIM_END_DECLS

#endif /* SLIMTRACE_RCU_H */
