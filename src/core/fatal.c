// SPDX-License-Identifier: MIT
/*
 * Fatal signals: one handler for every module that must clean up when
 * the program dies (the recorder finishes its file, the control
 * endpoint removes its socket).  Two modules each installing a handler
 * "where the program kept the default" would see each other's handler,
 * and the second would step aside: so they share this one.
 *
 * The hooks are slots set and cleared with atomics, never under a lock,
 * because a signal handler reads them and a fork child clears them.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include "core/fatal.h"

#define NR_HOOKS	4

static const int fatal_signals[] = {
	SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS, SIGQUIT,
	SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGXCPU, SIGXFSZ,
};
#define NR_FATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))

static void (*hooks[NR_HOOKS])(int sig);

static int is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE;
}

/*
 * Clean up, then die as the signal would have made the program die.  A
 * fault the kernel raised happens again when the handler returns; any
 * other signal is raised again, and delivered once the handler returns.
 */
static void fatal_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno, i;
	struct sigaction dfl;

	(void)uc;
	/* The last hooked first: a later module may depend on an earlier one. */
	for (i = NR_HOOKS - 1; i >= 0; i--) {
		void (*fn)(int) = __atomic_load_n(&hooks[i], __ATOMIC_SEQ_CST);

		if (fn)
			fn(sig);
	}
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	if (!(is_fault(sig) && si && si->si_code > 0))
		raise(sig);
	errno = saved;
}

/* Only where the program kept the default: its own handlers stay. */
static void install(void)
{
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fatal_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NR_FATAL; i++) {
		if (sigaction(fatal_signals[i], NULL, &old))
			continue;
		if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
			continue;
		sigaction(fatal_signals[i], &sa, NULL);
	}
}

int slim_fatal_hook(void (*fn)(int sig))
{
	int i;

	/*
	 * Again at every hook: a signal the program has reset to the
	 * default since gets the handler.  Left in place when the hooks
	 * go: with none it restores the default and raises again, which is
	 * what the default does.
	 */
	install();
	for (i = 0; i < NR_HOOKS; i++) {
		void (*none)(int) = NULL;

		if (__atomic_load_n(&hooks[i], __ATOMIC_SEQ_CST) == fn)
			return 0;
		if (__atomic_compare_exchange_n(&hooks[i], &none, fn, 0,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return 0;
	}
	return -ENOSPC;
}

void slim_fatal_unhook(void (*fn)(int sig))
{
	int i;

	for (i = 0; i < NR_HOOKS; i++) {
		void (*want)(int) = fn;

		__atomic_compare_exchange_n(&hooks[i], &want, NULL, 0,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	}
}
