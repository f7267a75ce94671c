/* SPDX-License-Identifier: MIT */
/*
 * Dying by a fatal signal (src/core/fatal.c): the one handler that lets
 * modules clean up (finish a trace.dat, remove the control socket)
 * before the program dies as the signal would have made it die.
 */
#ifndef SLIM_FATAL_H
#define SLIM_FATAL_H

/* Internal: reached directly, not through the GOT, from the library. */
#pragma GCC visibility push(hidden)

/*
 * Run fn(sig) when a fatal signal arrives.  fn runs in a signal handler:
 * async-signal-safe calls only.  Each call installs the handler for the
 * signals whose disposition is the default at that moment; a program's
 * own handlers are never replaced.  0, or -ENOSPC when every slot is taken.
 * Both calls are lock-free, so that a fork child handler may use them.
 */
int slim_fatal_hook(void (*fn)(int sig));
void slim_fatal_unhook(void (*fn)(int sig));

#pragma GCC visibility pop

#endif
