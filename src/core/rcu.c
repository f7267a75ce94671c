// SPDX-License-Identifier: MIT
/*
 * The writer side of slimtrace's RCU (see include/slimtrace/rcu.h and
 * docs/rcu.md): a registry of reader threads, and a grace period that
 * forces a barrier on every thread with membarrier(2) and then waits for
 * each reader that was inside a read-side section to leave it.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <unistd.h>
#include <slimtrace/rcu.h>
#include "core/fork.h"

SLIM_EXPORT __thread struct slim_rcu_reader slim_rcu_reader
	__attribute__((tls_model("initial-exec"))) = { .ctr = SLIM_RCU_SLOW };
SLIM_EXPORT int slim_rcu_reader_fence;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t retired_lock = PTHREAD_MUTEX_INITIALIZER;
static struct slim_rcu_reader *registry;
static pthread_key_t exit_key;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int have_membarrier;

static int membarrier(int cmd)
{
	return (int)syscall(__NR_membarrier, cmd, 0, 0);
}

static void unregister_reader(void *arg)
{
	struct slim_rcu_reader *r = arg, **p;

	pthread_mutex_lock(&registry_lock);
	for (p = &registry; *p; p = &(*p)->next) {
		if (*p == r) {
			*p = r->next;
			break;
		}
	}
	r->registered = 0;
	r->ctr |= SLIM_RCU_SLOW;
	pthread_mutex_unlock(&registry_lock);
}

static void fork_lock(void)
{
	pthread_mutex_lock(&registry_lock);
	pthread_mutex_lock(&retired_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&retired_lock);
	pthread_mutex_unlock(&registry_lock);
}

/* A forked child has one thread: the others' entries would wait forever. */
static void after_fork_child(void)
{
	struct slim_rcu_reader *self = &slim_rcu_reader;

	registry = NULL;
	if (self->registered) {
		self->next = NULL;
		registry = self;
	}
	if (have_membarrier &&
	    membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) != 0) {
		have_membarrier = 0;
		__atomic_store_n(&slim_rcu_reader_fence, 1, __ATOMIC_SEQ_CST);
		/* The child's only thread: the others' words went with them. */
		self->ctr |= SLIM_RCU_SLOW;
	}
	fork_parent();
}

static struct slim_fork_hook fork_hook = {
	SLIM_FORK_RCU, fork_lock, fork_parent, after_fork_child, NULL
};

__attribute__((constructor(101))) static void rcu_fork_init(void)
{
	slim_fork_hook_add(&fork_hook);
}

static void rcu_init(void)
{
	int cmds = membarrier(MEMBARRIER_CMD_QUERY);

	pthread_key_create(&exit_key, unregister_reader);
	if (cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	    membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0)
		have_membarrier = 1;
	else
		__atomic_store_n(&slim_rcu_reader_fence, 1, __ATOMIC_SEQ_CST);
}

/* First read-side section of a thread: join the registry. */
SLIM_EXPORT void slim_rcu_register_thread(void)
{
	struct slim_rcu_reader *r = &slim_rcu_reader;

	pthread_once(&init_once, rcu_init);
	pthread_mutex_lock(&registry_lock);
	if (!r->registered) {
		r->next = registry;
		registry = r;
		r->registered = 1;
	}
	/* Registered now: the inline path, unless this thread must fence. */
	if (__atomic_load_n(&slim_rcu_reader_fence, __ATOMIC_RELAXED))
		r->ctr |= SLIM_RCU_SLOW;
	else
		r->ctr &= ~SLIM_RCU_SLOW;
	pthread_mutex_unlock(&registry_lock);
	/* Leave the registry when the thread exits. */
	pthread_setspecific(exit_key, r);
}

/* Every thread executes a full barrier before this returns. */
static void barrier_all_threads(void)
{
	static int fence_word;

	if (have_membarrier && membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0)
		return;
	/* Readers fence themselves then; ours pairs with theirs. */
	__atomic_fetch_add(&fence_word, 0, __ATOMIC_SEQ_CST);
}

static void wait_for_reader(struct slim_rcu_reader *r)
{
	unsigned long snap = __atomic_load_n(&r->ctr, __ATOMIC_ACQUIRE);
	int spins = 0;

	if (!(snap & SLIM_RCU_INSIDE))
		return;
	while (__atomic_load_n(&r->ctr, __ATOMIC_ACQUIRE) == snap) {
		if (++spins > 100)
			sched_yield();
	}
}

/* Is the calling thread inside a read-side section? */
SLIM_EXPORT int slim_rcu_in_reader(void)
{
	return (slim_rcu_reader.ctr & SLIM_RCU_INSIDE) != 0;
}

/*
 * A section inside an open one (a signal handler's) is covered by it;
 * otherwise join the registry first, or fence where membarrier(2) is
 * missing.
 */
SLIM_EXPORT unsigned long slim_rcu_read_lock_slow(void)
{
	struct slim_rcu_reader *r = &slim_rcu_reader;
	unsigned long c = __atomic_load_n(&r->ctr, __ATOMIC_RELAXED);

	if (c & SLIM_RCU_INSIDE)
		return SLIM_RCU_NESTED;
	if (!r->registered) {
		slim_rcu_register_thread();
		c = __atomic_load_n(&r->ctr, __ATOMIC_RELAXED);
	}
	if (c & SLIM_RCU_SLOW) {
		/* A full barrier, which sanitizers understand. */
		__atomic_exchange_n(&r->ctr, c | SLIM_RCU_INSIDE, __ATOMIC_SEQ_CST);
		return c;
	}
	__atomic_store_n(&r->ctr, c | SLIM_RCU_INSIDE, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return c;
}

SLIM_EXPORT void slim_rcu_read_unlock_slow(unsigned long token)
{
	if (token == SLIM_RCU_NESTED)
		return;
	/* The SLOW bit stays in the token: the thread still fences. */
	__atomic_store_n(&slim_rcu_reader.ctr, token + SLIM_RCU_SEQ_ONE, __ATOMIC_RELEASE);
}

/*
 * Wait until every read-side section that may have seen what the caller
 * just unpublished has ended.  Must not be called from inside one.
 */
SLIM_EXPORT void slim_rcu_synchronize(void)
{
	struct slim_rcu_reader *r;

	pthread_once(&init_once, rcu_init);
	pthread_mutex_lock(&registry_lock);
	barrier_all_threads();
	for (r = registry; r; r = r->next) {
		if (r != &slim_rcu_reader)
			wait_for_reader(r);
	}
	barrier_all_threads();
	pthread_mutex_unlock(&registry_lock);
}

/*
 * Free p with fn once no reader can see it.  A caller inside a read-side
 * section (a probe that detaches probes) cannot wait for a grace period:
 * p is kept and freed by the next grace period that runs outside one.
 */
struct retired {
	void *p;
	void (*fn)(void *);
	struct retired *next;
};

static struct retired *retired_list;

SLIM_EXPORT void slim_rcu_free(void *p, void (*fn)(void *))
{
	struct retired *list, *next, *r;

	if (!p)
		return;
	if (slim_rcu_in_reader()) {
		r = malloc(sizeof(*r));
		if (!r)
			return;	/* leak rather than free too early */
		r->p = p;
		r->fn = fn;
		pthread_mutex_lock(&retired_lock);
		r->next = retired_list;
		retired_list = r;
		pthread_mutex_unlock(&retired_lock);
		return;
	}
	pthread_mutex_lock(&retired_lock);
	list = retired_list;
	retired_list = NULL;
	pthread_mutex_unlock(&retired_lock);

	slim_rcu_synchronize();
	fn(p);
	for (r = list; r; r = next) {
		next = r->next;
		r->fn(r->p);
		free(r);
	}
}
