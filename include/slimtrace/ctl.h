/* SPDX-License-Identifier: MIT */
/*
 * "tracefs, in your process": the kernel's tracing control files, with
 * their names and semantics, reached by path (relative to the tracing
 * root: "set_event", "events/sched/sched_switch/filter", "trace"...).
 * docs/ctl.md lists every file.  Errors are negative errno values, and
 * the reason is appended to "error_log", as the kernel does.
 *
 * "instances/NAME/..." holds the files of an independent session (its
 * own buffers, set_event, filters, tracing_on, trace_clock, trace,
 * trace_pipe, error_log, record), created and removed as the kernel's
 * tracefs instances are: with mkdir and rmdir.
 */
#ifndef SLIMTRACE_CTL_H
#define SLIMTRACE_CTL_H

#include <stddef.h>
#include <slimtrace/compiler.h>

SLIM_BEGIN_DECLS

/* echo text > path: 0 or -errno. */
SLIM_EXPORT int slim_ctl_write(const char *path, const char *text);
/* echo text >> path: 0 or -errno. */
SLIM_EXPORT int slim_ctl_append(const char *path, const char *text);
/* The file's text, malloc'd (free it); NULL with errno set on error. */
SLIM_EXPORT char *slim_ctl_read(const char *path);
/* The same, with its length: trace_options bin makes `trace` binary. */
SLIM_EXPORT char *slim_ctl_read_len(const char *path, size_t *len);

/*
 * mkdir/rmdir of "instances/NAME": 0, -EEXIST (it exists), -ENOENT (no
 * such instance, or not under instances/), -EBUSY (rmdir of an instance
 * being read through trace_pipe or recorded), -EINVAL (an empty name, a
 * name with '/', or longer than 255 bytes).
 */
SLIM_EXPORT int slim_ctl_mkdir(const char *path);
SLIM_EXPORT int slim_ctl_rmdir(const char *path);

/*
 * What a directory holds ("" is the root, "events/demo", "instances"):
 * one name per line, directories with a trailing '/'; malloc'd.  NULL
 * with errno ENOENT if there is no such directory.
 */
SLIM_EXPORT char *slim_ctl_list(const char *path);

/*
 * A file opened for reading in pieces.  trace_pipe reads the records as
 * they come (consuming them) and keeps its instance busy while open;
 * every other file reads as it was when opened.
 */
struct slim_ctl_stream;
/* NULL with *err set (-ENOENT, -EACCES, -ENOMEM, -EINVAL). */
SLIM_EXPORT struct slim_ctl_stream *slim_ctl_open(const char *path, int *err);
/*
 * Up to len bytes: the count, 0 at the end (trace_pipe: nothing came
 * within timeout_ms), or -errno.
 */
SLIM_EXPORT long slim_ctl_stream_read(struct slim_ctl_stream *st, char *buf, size_t len,
				      int timeout_ms);
SLIM_EXPORT void slim_ctl_close(struct slim_ctl_stream *st);

SLIM_END_DECLS

#endif /* SLIMTRACE_CTL_H */
