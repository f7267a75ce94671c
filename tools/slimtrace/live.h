/* SPDX-License-Identifier: MIT */
/*
 * The client side of the control protocol (docs/live.md): reach the
 * endpoint of a running program by its pid, and call its control files.
 */
#ifndef SLIMTRACE_LIVE_H
#define SLIMTRACE_LIVE_H

#include <stddef.h>
#include <stdint.h>

#define LIVE_TIMEOUT_MS	10000	/* a reply must come by then */

struct live {
	int fd;
	int pid;
	unsigned int uid;		/* the process's */
	uint32_t seq;
	uint32_t stream_seq;		/* the stream under way, if any */
	char sock[108];
	char why[1024];			/* the last error, said in full */
	char *reason;			/* the last DONE's text (error_log's entry) */
	size_t reason_len;
};

/*
 * Connect to pid's endpoint and say HELLO.  0, or -errno with l->why
 * telling what is wrong (no such process, no endpoint, another user's).
 * A stale socket met on the way is removed.
 */
int live_open(struct live *l, int pid);
void live_close(struct live *l);

/*
 * The requests.  Each returns the status of the reply: 0 or the -errno
 * the control call returned in the target, with l->reason holding the
 * error_log entry it wrote (or NULL), or -EPIPE / -ETIMEDOUT / -EPROTO
 * when the connection failed (l->why says how).
 */
int live_read(struct live *l, const char *path, char **text, size_t *len);
int live_write(struct live *l, const char *path, const char *text, int append);
int live_mkdir(struct live *l, const char *path);
int live_rmdir(struct live *l, const char *path);
/* One name per line, a directory's with a '/' after it (slim_ctl_list). */
int live_list(struct live *l, const char *path, char **text);
/* What path is: 'd' (a directory) or 'f' (a file) in *kind. */
int live_stat(struct live *l, const char *path, char *kind);

/*
 * Streaming a trace_pipe: start, then take what arrives (1 with *text,
 * 0 when nothing came within timeout_ms, or a negative status: the
 * stream ended), then stop (waits for the end).
 */
int live_stream_start(struct live *l, const char *path);
int live_stream_next(struct live *l, char **text, size_t *len, int timeout_ms);
int live_stream_stop(struct live *l);

/*
 * The pids with a live endpoint in this user's directory, sorted; stale
 * sockets are removed.  Count, or -errno with why.
 */
int live_scan(int **pids, char *why, size_t len);

/* The directory the endpoints of uid are in. */
int live_dir(unsigned int uid, char *buf, size_t len);

/* /proc/pid/comm, or "?" */
void live_comm(int pid, char *buf, size_t len);

#endif
