/* SPDX-License-Identifier: MIT */
/*
 * Recording to disk: the buffers, drained while the program runs into a
 * trace-cmd trace.dat file (version 6) that `trace-cmd report` reads.
 * docs/trace-dat.md describes the file, the clock handling, what happens
 * at exit, on a fatal signal and after SIGKILL, and how lost events show.
 *
 * One recording at a time.  None of these may be called from a signal
 * handler.
 */
#ifndef SLIMTRACE_RECORD_H
#define SLIMTRACE_RECORD_H

#include <stdint.h>
#include <slimtrace/compiler.h>

SLIM_BEGIN_DECLS

/*
 * Start a consumer thread that writes every buffer's pages to path.
 * While recording, the data goes to path.cpuN files next to it, and path
 * itself is always a valid trace.dat without data; slim_record_stop(),
 * exit() and a fatal signal assemble the final file.
 * 0, -EBUSY (already recording), -EINVAL (empty path) or another -errno.
 */
SLIM_EXPORT int slim_record_start(const char *path);

/*
 * Drain everything, write the final file, join the thread.
 * 0, -ENOENT (not recording), or the first error met while recording.
 */
SLIM_EXPORT int slim_record_stop(void);

/*
 * If SLIMTRACE_OUTPUT is set and not empty: slim_record_start(it), and
 * the variable is removed from the environment, so that a program this
 * one execs does not record into the same file.  0 when unset.  Like
 * unsetenv(), not while other threads read the environment.
 */
SLIM_EXPORT int slim_record_env_start(void);

/*
 * Wait until every event committed before the call is in the data files
 * (the part of a page being filled included): what a SIGKILL keeps.
 * 0 or -ENOENT.
 */
SLIM_EXPORT int slim_record_sync(void);

/*
 * What the consumer thread has done: for a benchmark, or a program that
 * reports its own tracing cost.  A pass is one look at every buffer, its
 * writes to the files included; while one lasts, the buffers fill with
 * nothing to drain them, so the longest is the headroom a buffer needs
 * (at the rate it fills).
 */
struct slim_record_stats {
	uint64_t passes;		/* looks at the buffers */
	uint64_t pages;			/* pages taken from the rings */
	uint64_t pass_max_ns;		/* the longest pass, wall clock */
	uint64_t consumer_cpu_ns;	/* the consumer thread's CPU time */
};

/*
 * The current recording's, or once stopped the last one's (final pass
 * included).  0, -EINVAL (st NULL) or -ENOENT (no recording yet).
 */
SLIM_EXPORT int slim_record_get_stats(struct slim_record_stats *st);

/*
 * After a recording process died without finishing (SIGKILL, power
 * loss): rebuild path from path (the header written while recording) and
 * its path.cpuN files, then remove them.  Run from another process.
 * 0, -ENOENT (no data files), -EINVAL (path is not a recording's
 * header; a message on stderr says why) or another -errno.
 */
SLIM_EXPORT int slim_record_recover(const char *path);

SLIM_END_DECLS

#endif /* SLIMTRACE_RECORD_H */
