// SPDX-License-Identifier: MIT
/*
 * Fatal signals: drain what is committed and write the final file, from
 * the library's one fatal-signal handler (src/core/fatal.c), which then
 * lets the program die as the signal would have made it die.  That
 * handler is installed only where the program kept the default action,
 * so its own handlers (or a sanitizer's) stay.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "core/fatal.h"
#include "record/rec.h"

#define SIG_WAIT_MS	5000	/* a handler waits this long for the consumer */

static struct rec *sig_rec;		/* what a signal handler sees (atomic) */
static int handlers_in;			/* signal handlers running (atomic) */

static void say(const char *s)
{
	ssize_t n = write(2, s, strlen(s));

	(void)n;
}

/* record.c's message, with only what a handler may call. */
static void say_unfinished(struct rec *r, int err)
{
	char num[16];
	int i = sizeof(num) - 1;

	num[i] = '\0';
	err = -err;
	do {
		num[--i] = (char)('0' + err % 10);
		err /= 10;
	} while (err && i);
	say("slimtrace: recording to ");
	say(r->path);
	say(": the final file could not be written (errno ");
	say(num + i);
	say("); the recorded pages are kept in ");
	say(r->path);
	say(".cpu*: `slimtrace recover ");
	say(r->path);
	say("` rebuilds it\n");
}

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
		int ret;

		r->d.in_signal = 1;
		if (!r->err)
			rec_drain(&r->d, REC_DRAIN_SIGNAL);
		ret = rec_write_final(r);
		if (ret && ret != -ENODATA)
			say_unfinished(r, ret);
		__atomic_store_n(&r->finished, 1, __ATOMIC_RELEASE);
	}
	rec_own_release(r);
}

/* Flush before the program dies (src/core/fatal.c raises the signal again). */
static void fatal_hook(int sig)
{
	struct rec *r;

	(void)sig;
	__atomic_fetch_add(&handlers_in, 1, __ATOMIC_SEQ_CST);
	r = __atomic_load_n(&sig_rec, __ATOMIC_SEQ_CST);
	if (r)
		signal_flush(r);
	__atomic_fetch_sub(&handlers_in, 1, __ATOMIC_SEQ_CST);
}

void rec_signals_install(struct rec *r)
{
	__atomic_store_n(&sig_rec, r, __ATOMIC_SEQ_CST);
	slim_fatal_hook(fatal_hook);
}

void rec_signals_remove(void)
{
	slim_fatal_unhook(fatal_hook);
}

void rec_signals_detach(int wait)
{
	__atomic_store_n(&sig_rec, NULL, __ATOMIC_SEQ_CST);
	while (wait && __atomic_load_n(&handlers_in, __ATOMIC_SEQ_CST))
		rec_ms_sleep(1);
}
