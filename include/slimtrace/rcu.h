/* SPDX-License-Identifier: MIT */
/*
 * A small user-space RCU, enough for probe arrays and filters.
 *
 * Readers are the threads that fire tracepoints: their lock and unlock are
 * a thread-local store each, because the writer pays instead, with
 * membarrier(2) (or, where the kernel lacks it, readers fall back to a
 * full fence).  Writers are rare (enable, disable, set a filter).
 *
 * Each reader has one word: bit 0 is set while the thread is inside an
 * outermost read-side section, bit 1 sends its lock and unlock out of
 * line (the thread has not joined the registry yet, or membarrier(2) is
 * missing and it must fence), and the rest counts completed sections.
 * The lock returns a token for its unlock: the common case is then a
 * load, a test and a store, and an unlock that is one store.  A section
 * entered while one is open (a signal handler that fires a tracepoint
 * inside a probe) is covered by the open one and changes nothing.  After
 * publishing a new pointer and forcing a barrier on every thread, the
 * writer waits for each reader that was inside a section to change its
 * word; any section entered after the barrier already sees the new
 * pointer.  See docs/rcu.md.
 */
#ifndef SLIMTRACE_RCU_H
#define SLIMTRACE_RCU_H

#include <slimtrace/compiler.h>

SLIM_BEGIN_DECLS

#define SLIM_RCU_INSIDE		1UL	/* an outermost section is open */
#define SLIM_RCU_SLOW		2UL	/* lock and unlock out of line */
#define SLIM_RCU_SEQ_ONE	4UL
/* The token of a section opened inside another one. */
#define SLIM_RCU_NESTED		SLIM_RCU_INSIDE

struct slim_rcu_reader {
	unsigned long ctr;	/* starts SLIM_RCU_SLOW */
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
/* The uncommon cases of the two below. */
SLIM_EXPORT unsigned long slim_rcu_read_lock_slow(void);
SLIM_EXPORT void slim_rcu_read_unlock_slow(unsigned long token);

/* Opens a read-side section; its token goes to slim_rcu_read_unlock(). */
static inline unsigned long slim_rcu_read_lock(void)
{
	struct slim_rcu_reader *r = &slim_rcu_reader;
	unsigned long c = r->ctr;

	if (slim_unlikely(c & (SLIM_RCU_INSIDE | SLIM_RCU_SLOW)))
		return slim_rcu_read_lock_slow();
	/*
	 * The store must be visible before the protected loads below: the
	 * writer's membarrier(2) sees to that (without it, the thread is
	 * SLIM_RCU_SLOW and fences in slim_rcu_read_lock_slow()).
	 */
	__atomic_store_n(&r->ctr, c | SLIM_RCU_INSIDE, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return c;
}

static inline void slim_rcu_read_unlock(unsigned long token)
{
	if (slim_unlikely(token & (SLIM_RCU_INSIDE | SLIM_RCU_SLOW))) {
		slim_rcu_read_unlock_slow(token);
		return;
	}
	/* Release: every protected load is done before the writer sees it. */
	__atomic_store_n(&slim_rcu_reader.ctr, token + SLIM_RCU_SEQ_ONE,
			 __ATOMIC_RELEASE);
}

/*
 * The common case of the two above, for a caller that has its own way
 * out and keeps nothing across its section: 0 when the section must be
 * opened by slim_rcu_read_lock() (nested, or the thread is
 * SLIM_RCU_SLOW), and nothing was opened.  The exit is then one add to
 * the thread's word, which clears SLIM_RCU_INSIDE and counts the section
 * (the word slim_rcu_read_unlock() would store for the token), so no
 * token need be kept.  Release: on x86-64 every store is, and the asm's
 * memory clobber keeps the section's loads before it.
 */
static inline int slim_rcu_read_enter_fast(void)
{
	struct slim_rcu_reader *r = &slim_rcu_reader;
	unsigned long c = r->ctr;

	if (slim_unlikely(c & (SLIM_RCU_INSIDE | SLIM_RCU_SLOW)))
		return 0;
	__atomic_store_n(&r->ctr, c + SLIM_RCU_INSIDE, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return 1;
}

static inline void slim_rcu_read_exit_fast(void)
{
#if defined(__x86_64__) && !defined(SLIM_TSAN)
	__asm__ __volatile__("addq %1, %0"
			     : "+m"(slim_rcu_reader.ctr)
			     : "i"(SLIM_RCU_SEQ_ONE - SLIM_RCU_INSIDE)
			     : "memory");
#else
	unsigned long c = __atomic_load_n(&slim_rcu_reader.ctr, __ATOMIC_RELAXED);

	__atomic_store_n(&slim_rcu_reader.ctr,
			 c + SLIM_RCU_SEQ_ONE - SLIM_RCU_INSIDE, __ATOMIC_RELEASE);
#endif
}

#define slim_rcu_dereference(p)		slim_load_acquire(&(p))
#define slim_rcu_assign_pointer(p, v)	slim_store_release(&(p), (v))

SLIM_END_DECLS

#endif /* SLIMTRACE_RCU_H */
