/* SPDX-License-Identifier: MIT */
/*
 * Where control endpoints live (src/live/sockdir.c), shared by the
 * library and the slimtrace command so that both find the same place:
 *
 *   $SLIMTRACE_CONTROL_DIR/slimtrace-UID/PID    (the directory default: /tmp)
 *
 * one directory per user, mode 0700, owned by that user; one socket per
 * process, named after its pid.  docs/live.md says why there.
 */
#ifndef SLIM_LIVE_SOCKDIR_H
#define SLIM_LIVE_SOCKDIR_H

#include <stddef.h>

/* Internal: reached directly, not through the GOT, from the library. */
#pragma GCC visibility push(hidden)

/* The longest socket path that fits sun_path, with its NUL. */
#define SLIM_LIVE_PATH_MAX	108

/* uid's directory in buf: 0 or -ENAMETOOLONG. */
int slim_live_dir(unsigned int uid, char *buf, size_t len);

/*
 * Is dir a directory (not a symlink to one) owned by uid that no one
 * else may enter (no group or other permission bits)?  0, or -errno
 * with the reason in why ("... is owned by uid 1001").
 */
int slim_live_dir_check(const char *dir, unsigned int uid, char *why, size_t len);

/* The same, after creating dir (mode 0700) if it does not exist. */
int slim_live_dir_make(const char *dir, unsigned int uid, char *why, size_t len);

/* The socket of pid, and the temporary name it is bound to first. */
int slim_live_sock_path(const char *dir, int pid, char *buf, size_t len);
int slim_live_tmp_path(const char *dir, int pid, char *buf, size_t len);

/*
 * The pid a directory entry belongs to, or 0 for a name that is not
 * ours; *tmp says whether it is a temporary name.
 */
int slim_live_name_pid(const char *name, int *tmp);

#pragma GCC visibility pop

#endif
