/* SPDX-License-Identifier: MIT */
/*
 * "tracefs, in your process": the kernel's tracing control files, with
 * their names and semantics, reached by path (relative to the tracing
 * root: "set_event", "events/sched/sched_switch/filter", "trace"...).
 * docs/ctl.md lists every file.  Errors are negative errno values, and
 * the reason is appended to "error_log", as the kernel does.
 */
#ifndef SLIMTRACE_CTL_H
#define SLIMTRACE_CTL_H

#include <stddef.h>
#include <slimtrace/compiler.h>

/* echo text > path: 0 or -errno. */
SLIM_EXPORT int slim_ctl_write(const char *path, const char *text);
/* echo text >> path: 0 or -errno. */
SLIM_EXPORT int slim_ctl_append(const char *path, const char *text);
/* The file's text, malloc'd (free it); NULL with errno set on error. */
SLIM_EXPORT char *slim_ctl_read(const char *path);
/* The same, with its length: trace_options bin makes `trace` binary. */
SLIM_EXPORT char *slim_ctl_read_len(const char *path, size_t *len);

#endif /* SLIMTRACE_CTL_H */
