// SPDX-License-Identifier: MIT
/*
 * Fatal signals: drain what is committed, write the final file, then die
 * as the signal would have made the program die.  Installed only where
 * the program kept the default action, so its own handlers (or a
 * sanitizer's) stay.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "record/rec.h"

#define SIG_WAIT_MS	5000	/* a handler waits this long for the consumer */

static const int fatal_signals[] = {
	SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS, SIGQUIT,
	SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGXCPU, SIGXFSZ,
};
#define NR_FATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))
static int installed[NR_FATAL];
static struct rec *sig_rec;		/* what a signal handler sees (atomic) */
static int handlers_in;			/* signal handlers running (atomic) */

/* The handler's work: drain what is committed and write the final file. */
static void signal_flush(struct rec *r)
{
	int i;

	if (__atomic_load_n(&r->consumer_tid, __ATOMIC_ACQUIRE) == (int)gettid())
		return;		/* the consumer itself faulted: its state is suspect */
	for (i = 0; !rec_own_try(r, REC_OWN_SIGNAL); i++) {
		if (__atomic_load_n(&r->finished, __ATOMIC_ACQUIRE) || i >= SIG_WAIT_MS)
			return;
		rec_ms_sleep(1);
	}
	if (!__atomic_load_n(&r->finished, __ATOMIC_ACQUIRE)) {
		r->d.in_signal = 1;
		if (!r->err)
			rec_drain(&r->d, REC_DRAIN_SIGNAL);
		rec_write_final(r);
		__atomic_store_n(&r->finished, 1, __ATOMIC_RELEASE);
	}
	rec_own_release(r);
}

static int is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE;
}

/*
 * A fault the kernel raised happens again when the handler returns; any
 * other signal is raised again, and delivered once the handler returns.
 */
static void fatal_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	struct sigaction dfl;
	struct rec *r;

	(void)uc;
	__atomic_fetch_add(&handlers_in, 1, __ATOMIC_SEQ_CST);
	r = __atomic_load_n(&sig_rec, __ATOMIC_SEQ_CST);
	if (r)
		signal_flush(r);
	__atomic_fetch_sub(&handlers_in, 1, __ATOMIC_SEQ_CST);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	if (!(is_fault(sig) && si && si->si_code > 0))
		raise(sig);
	errno = saved;
}

void rec_signals_install(struct rec *r)
{
	struct sigaction sa, old;
	size_t i;

	__atomic_store_n(&sig_rec, r, __ATOMIC_SEQ_CST);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fatal_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NR_FATAL; i++) {
		if (sigaction(fatal_signals[i], NULL, &old))
			continue;
		if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
			continue;
		installed[i] = !sigaction(fatal_signals[i], &sa, NULL);
	}
}

void rec_signals_remove(void)
{
	struct sigaction cur, dfl;
	size_t i;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (i = 0; i < NR_FATAL; i++) {
		if (!installed[i])
			continue;
		installed[i] = 0;
		if (!sigaction(fatal_signals[i], NULL, &cur) &&
		    (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == fatal_handler)
			sigaction(fatal_signals[i], &dfl, NULL);
	}
}

void rec_signals_detach(int wait)
{
	__atomic_store_n(&sig_rec, NULL, __ATOMIC_SEQ_CST);
	while (wait && __atomic_load_n(&handlers_in, __ATOMIC_SEQ_CST))
		rec_ms_sleep(1);
}
