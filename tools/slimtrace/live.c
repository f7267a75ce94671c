// SPDX-License-Identifier: MIT
/*
 * The control protocol's client (docs/live.md).  The endpoint of pid P
 * of uid U is the socket P in U's directory (src/live/sockdir.c, shared
 * with the library); U is the owner of /proc/P, so that root reaches a
 * user's process at the same place that user does.
 *
 * Trust goes both ways: the directory must be U's own (0700, not a
 * symlink), and the process at the other end of the socket must be P,
 * running as U (SO_PEERCRED), or the command does not talk to it.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "live.h"
#include "live/proto.h"
#include "live/sockdir.h"

#define MAX_REASON	(64u * 1024)

int live_dir(unsigned int uid, char *buf, size_t len)
{
	return slim_live_dir(uid, buf, len);
}

void live_comm(int pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f || !fgets(buf, (int)len, f))
		snprintf(buf, len, "?");
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

static int fail(struct live *l, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct live *l, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(l->why, sizeof(l->why), fmt, ap);
	va_end(ap);
	return err;
}

static int proc_uid(int pid, unsigned int *uid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (stat(path, &st))
		return -errno;
	*uid = st.st_uid;
	return 0;
}

/*
 * The endpoint makes its socket 0.1 s after the process starts or forks
 * (DELAY_MS in src/live/endpoint.c): a process younger than YOUNG_MS
 * that has none yet is waited for, so that a client started with the
 * program (`prog & slimtrace ctl $!`) finds it.  The margin covers a
 * loaded machine, and an exec some time after the fork (the kernel's
 * start time is the fork's).
 */
#define YOUNG_MS	500
#define YOUNG_POLL_MS	10

/* How long ago pid started, in ms; -1 if unknown. */
static long long age_ms(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start;
	struct timespec ts;
	long tck = sysconf(_SC_CLK_TCK);
	size_t n;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* After the command's ")": state is field 3, starttime field 22. */
	p = strrchr(buf, ')');
	for (i = 0; p && i < 20; i++)
		p = strchr(p + 1, ' ');
	if (!p || tck <= 0 || sscanf(p, " %llu", &start) != 1 ||
	    clock_gettime(CLOCK_BOOTTIME, &ts))
		return -1;
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 -
	       (long long)(start * 1000 / (unsigned long long)tck);
}

/* 1 after a short sleep if pid is young enough that its socket may come. */
static int wait_young(int pid)
{
	struct timespec ts = { 0, YOUNG_POLL_MS * 1000000L };
	long long age = age_ms(pid);

	if (age < 0 || age >= YOUNG_MS)
		return 0;
	nanosleep(&ts, NULL);
	return 1;
}

static void set_timeouts(int fd)
{
	struct timeval tv = { LIVE_TIMEOUT_MS / 1000, 0 };

	/* A Unix connect waits for the listener's backlog this long at most. */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* 0 and *fd, or -errno of connect(). */
static int connect_to(const char *sock, int *fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), err;

	if (s < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	set_timeouts(s);
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		close(s);
		return err;
	}
	*fd = s;
	return 0;
}

/* ---- messages ------------------------------------------------------------------ */

static int send_all(struct live *l, const void *buf, size_t n)
{
	const unsigned char *p = buf;

	while (n) {
		ssize_t w = send(l->fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return fail(l, errno == EAGAIN ? -ETIMEDOUT : -EPIPE,
				    "process %d: sending: %s", l->pid,
				    errno == EAGAIN ? "it does not read (timed out)" : strerror(errno));
		p += w;
		n -= w;
	}
	return 0;
}

static int send_msg(struct live *l, uint16_t op, const void *a, size_t alen,
		    const void *b, size_t blen)
{
	struct slim_live_hdr h = { (uint32_t)(alen + blen), op, 0, 0, ++l->seq };
	unsigned char hdr[SLIM_LIVE_HDR_SIZE];
	int ret;

	if (alen + blen > SLIM_LIVE_MAX_REQUEST)
		return fail(l, -EMSGSIZE, "a request of %zu bytes: the most is %u",
			    alen + blen, SLIM_LIVE_MAX_REQUEST);
	slim_live_hdr_pack(hdr, &h);
	ret = send_all(l, hdr, sizeof(hdr));
	if (!ret && alen)
		ret = send_all(l, a, alen);
	if (!ret && blen)
		ret = send_all(l, b, blen);
	return ret;
}

/* n bytes, waiting at most timeout_ms for the first (-1: LIVE_TIMEOUT_MS); 0, 1 (nothing came), <0 */
static int recv_all(struct live *l, void *buf, size_t n, int timeout_ms)
{
	unsigned char *p = buf;
	int first = 1;

	while (n) {
		struct pollfd pfd = { l->fd, POLLIN, 0 };
		int t = first && timeout_ms >= 0 ? timeout_ms : LIVE_TIMEOUT_MS;
		ssize_t r;

		r = poll(&pfd, 1, t);
		if (r < 0 && errno == EINTR)
			return -EINTR;
		if (r == 0 && first && timeout_ms >= 0)
			return 1;
		if (r == 0)
			return fail(l, -ETIMEDOUT, "process %d does not answer (%d s)", l->pid,
				    LIVE_TIMEOUT_MS / 1000);
		r = recv(l->fd, p, n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return fail(l, -EPIPE, "process %d closed the connection%s%s", l->pid,
				    r < 0 ? ": " : " (it exited?)", r < 0 ? strerror(errno) : "");
		p += r;
		n -= r;
		first = 0;
	}
	return 0;
}

/* One reply: header and payload (malloc'd, NUL-terminated). 0, 1 (timeout_ms passed), <0. */
static int recv_msg(struct live *l, struct slim_live_hdr *h, char **payload, int timeout_ms)
{
	unsigned char hdr[SLIM_LIVE_HDR_SIZE];
	int ret = recv_all(l, hdr, sizeof(hdr), timeout_ms);

	*payload = NULL;
	if (ret)
		return ret;
	slim_live_hdr_unpack(h, hdr);
	if ((h->op != SLIM_LIVE_DATA && h->op != SLIM_LIVE_DONE) || h->flags ||
	    h->len > (h->op == SLIM_LIVE_DATA ? SLIM_LIVE_MAX_CHUNK : MAX_REASON))
		return fail(l, -EPROTO, "process %d: not a reply of the control protocol "
			    "(op %u, %u bytes)", l->pid, h->op, h->len);
	*payload = malloc(h->len + 1);
	if (!*payload)
		return fail(l, -ENOMEM, "out of memory");
	ret = recv_all(l, *payload, h->len, -1);
	if (ret) {
		free(*payload);
		*payload = NULL;
		return ret < 0 ? ret : fail(l, -ETIMEDOUT, "process %d: reply cut short", l->pid);
	}
	(*payload)[h->len] = '\0';
	return 0;
}

static int append(char **text, size_t *len, const char *p, size_t n)
{
	char *t = realloc(*text, *len + n + 1);

	if (!t)
		return -ENOMEM;
	memcpy(t + *len, p, n);
	*len += n;
	t[*len] = '\0';
	*text = t;
	return 0;
}

/* The replies to request seq, until its DONE: its status. */
static int collect(struct live *l, uint32_t seq, char **text, size_t *len)
{
	struct slim_live_hdr h;
	char *p;
	size_t dummy = 0;
	int ret;

	if (!len)
		len = &dummy;
	*len = 0;
	free(l->reason);
	l->reason = NULL;
	for (;;) {
		ret = recv_msg(l, &h, &p, -1);
		if (ret)
			return ret;
		if (h.seq != seq) {
			free(p);
			return fail(l, -EPROTO, "process %d answered request %u, not %u",
				    l->pid, h.seq, seq);
		}
		if (h.op == SLIM_LIVE_DONE)
			break;
		if (text && append(text, len, p, h.len)) {
			free(p);
			return fail(l, -ENOMEM, "out of memory");
		}
		free(p);
	}
	if (h.status > 0 || h.status < -4095) {
		free(p);
		return fail(l, -EPROTO, "process %d: status %d is no errno", l->pid, h.status);
	}
	if (h.status && h.len) {
		l->reason = p;
		l->reason_len = h.len;
	}
	else if (text && !h.status && h.len && append(text, len, p, h.len))
		ret = -ENOMEM;
	if (l->reason != p)
		free(p);
	if (text && !*text && !h.status)
		*text = strdup("");
	return ret ? ret : h.status;
}

static int hello(struct live *l)
{
	struct slim_live_hello in, out = { SLIM_LIVE_MAGIC, SLIM_LIVE_VERSION, 0, 0 };
	unsigned char buf[SLIM_LIVE_HELLO_SIZE];
	char *reply = NULL;
	size_t len = 0;
	int ret;

	slim_live_hello_pack(buf, &out);
	ret = send_msg(l, SLIM_LIVE_HELLO, buf, sizeof(buf), NULL, 0);
	if (ret)
		return ret;
	ret = collect(l, l->seq, &reply, &len);
	if (ret == -EPROTONOSUPPORT) {
		/* The server's HELLO comes with the refusal: it says its version. */
		in.version = 0;
		if (l->reason && l->reason_len >= 6)
			memcpy(&in.version, l->reason + 4, 2);
		free(reply);
		return fail(l, ret, "process %d speaks version %u of the control protocol, "
			    "this slimtrace version %d", l->pid, in.version, SLIM_LIVE_VERSION);
	}
	if (ret < 0) {
		free(reply);
		if (l->reason)
			return fail(l, ret, "process %d refused: %s", l->pid, l->reason);
		return ret == -EPIPE ? fail(l, -EACCES, "process %d closed the connection at once "
					    "(refused?)", l->pid) : ret;
	}
	if (len != SLIM_LIVE_HELLO_SIZE) {
		free(reply);
		return fail(l, -EPROTO, "process %d: a HELLO reply of %zu bytes", l->pid, len);
	}
	slim_live_hello_unpack(&in, (unsigned char *)reply);
	free(reply);
	if (in.magic != SLIM_LIVE_MAGIC || in.pid != l->pid)
		return fail(l, -EPROTO, "process %d: its HELLO reply names pid %d", l->pid, in.pid);
	return 0;
}

/* ---- connecting ------------------------------------------------------------------ */

static int no_endpoint(struct live *l, const char *dir)
{
	char comm[32];

	live_comm(l->pid, comm, sizeof(comm));
	return fail(l, -ENOENT, "process %d (%s) has no slimtrace control endpoint in %s: it does "
		    "not link slimtrace or has no events, runs with SLIMTRACE_CONTROL=0 or another "
		    "SLIMTRACE_CONTROL_DIR, or has not made its socket yet (it does 0.1 s after "
		    "it starts or forks)",
		    l->pid, comm, dir);
}

static int check_peer(struct live *l)
{
	struct ucred cr;
	socklen_t n = sizeof(cr);

	if (getsockopt(l->fd, SOL_SOCKET, SO_PEERCRED, &cr, &n))
		return fail(l, -errno, "%s: no peer credentials: %s", l->sock, strerror(errno));
	if (cr.pid != l->pid)
		return fail(l, -ESRCH, "%s is served by pid %d, not by %d", l->sock, cr.pid, l->pid);
	if (cr.uid != l->uid)
		return fail(l, -EPERM, "%s is served by uid %u, but process %d runs as uid %u",
			    l->sock, (unsigned int)cr.uid, l->pid, l->uid);
	return 0;
}

int live_open(struct live *l, int pid)
{
	char dir[SLIM_LIVE_PATH_MAX], why[256];
	int ret;

	memset(l, 0, sizeof(*l));
	l->fd = -1;
	l->pid = pid;
	if (pid <= 0)
		return fail(l, -EINVAL, "'%d' is not a pid", pid);
	if (proc_uid(pid, &l->uid))
		l->uid = geteuid();
	if (slim_live_dir(l->uid, dir, sizeof(dir)) ||
	    slim_live_sock_path(dir, pid, l->sock, sizeof(l->sock)))
		return fail(l, -ENAMETOOLONG, "SLIMTRACE_CONTROL_DIR is too long for a socket path");
	if (kill(pid, 0) && errno == ESRCH) {
		if (unlink(l->sock) == 0)
			return fail(l, -ESRCH, "no process %d (removed its stale socket %s)", pid, l->sock);
		return fail(l, -ESRCH, "no process %d", pid);
	}
again:
	ret = slim_live_dir_check(dir, l->uid, why, sizeof(why));
	if (ret == -ENOENT && wait_young(pid))
		goto again;
	if (ret == -ENOENT)
		return no_endpoint(l, dir);
	if (ret == -EACCES)
		return fail(l, ret, "%s: permission denied: process %d belongs to uid %u (only that "
			    "user and root may control it)", dir, pid, l->uid);
	if (ret)
		return fail(l, ret, "not using %s", why);
	ret = connect_to(l->sock, &l->fd);
	if (ret == -ECONNREFUSED) {
		/* Nobody listens: the process died, or the pid is another's now. */
		unlink(l->sock);
		return no_endpoint(l, dir);
	}
	if (ret == -ENOENT && wait_young(pid))
		goto again;
	if (ret == -ENOENT)
		return no_endpoint(l, dir);
	if (ret == -EACCES)
		return fail(l, ret, "%s: permission denied: process %d belongs to uid %u (only that "
			    "user and root may control it)", l->sock, pid, l->uid);
	if (ret)
		return fail(l, ret, "%s: %s", l->sock, strerror(-ret));
	ret = check_peer(l);
	if (!ret)
		ret = hello(l);
	if (ret) {
		close(l->fd);
		l->fd = -1;
	}
	return ret;
}

void live_close(struct live *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	free(l->reason);
	l->reason = NULL;
}

/* ---- requests ---------------------------------------------------------------------- */

static int path_request(struct live *l, uint16_t op, const char *path, char **text, size_t *len)
{
	int ret;

	if (text)
		*text = NULL;
	ret = send_msg(l, op, path, strlen(path), NULL, 0);
	if (ret)
		return ret;
	ret = collect(l, l->seq, text, len);
	if (ret && text) {
		free(*text);
		*text = NULL;
	}
	return ret;
}

int live_read(struct live *l, const char *path, char **text, size_t *len)
{
	return path_request(l, SLIM_LIVE_READ, path, text, len);
}

int live_write(struct live *l, const char *path, const char *text, int append)
{
	unsigned char head[4 + SLIM_LIVE_MAX_PATH];
	uint32_t plen = strlen(path);
	int ret;

	if (plen > SLIM_LIVE_MAX_PATH)
		return fail(l, -ENAMETOOLONG, "%s: path too long", path);
	memcpy(head, &plen, 4);
	memcpy(head + 4, path, plen);
	ret = send_msg(l, append ? SLIM_LIVE_APPEND : SLIM_LIVE_WRITE, head, 4 + plen,
		       text, strlen(text));
	return ret ? ret : collect(l, l->seq, NULL, NULL);
}

int live_mkdir(struct live *l, const char *path)
{
	return path_request(l, SLIM_LIVE_MKDIR, path, NULL, NULL);
}

int live_rmdir(struct live *l, const char *path)
{
	return path_request(l, SLIM_LIVE_RMDIR, path, NULL, NULL);
}

int live_list(struct live *l, const char *path, char **text)
{
	/* The top is "" in the namespace; the protocol wants one byte at least. */
	return path_request(l, SLIM_LIVE_LIST, *path ? path : "/", text, NULL);
}

int live_stat(struct live *l, const char *path, char *kind)
{
	char *text = NULL;
	size_t len = 0;
	int ret = path_request(l, SLIM_LIVE_STAT, *path ? path : "/", &text, &len);

	if (!ret && (len != 1 || (text[0] != 'd' && text[0] != 'f')))
		ret = fail(l, -EPROTO, "process %d: a STAT reply of %zu bytes", l->pid, len);
	if (!ret)
		*kind = text[0];
	free(text);
	return ret;
}

int live_stream_start(struct live *l, const char *path)
{
	int ret = send_msg(l, SLIM_LIVE_STREAM, path, strlen(path), NULL, 0);

	l->stream_seq = l->seq;
	return ret;
}

int live_stream_next(struct live *l, char **text, size_t *len, int timeout_ms)
{
	struct slim_live_hdr h;
	char *p;
	int ret = recv_msg(l, &h, &p, timeout_ms);

	*text = NULL;
	if (ret)
		return ret > 0 ? 0 : ret;
	if (h.seq != l->stream_seq) {
		free(p);
		return fail(l, -EPROTO, "process %d: a reply to %u in stream %u", l->pid, h.seq,
			    l->stream_seq);
	}
	if (h.op == SLIM_LIVE_DONE) {
		free(l->reason);
		l->reason = h.len ? p : NULL;
		if (!h.len)
			free(p);
		return h.status < 0 ? h.status : -EPIPE;
	}
	*text = p;
	*len = h.len;
	return 1;
}

int live_stream_stop(struct live *l)
{
	struct slim_live_hdr h = { 0, SLIM_LIVE_STOP, 0, 0, l->stream_seq };
	unsigned char hdr[SLIM_LIVE_HDR_SIZE];
	int ret;

	slim_live_hdr_pack(hdr, &h);
	ret = send_all(l, hdr, sizeof(hdr));
	/* What was under way still comes, then the stream's DONE. */
	return ret ? ret : collect(l, l->stream_seq, NULL, NULL);
}

/* ---- finding the processes ------------------------------------------------------------ */

static int pid_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int proc_alive(int pid)
{
	return !(kill(pid, 0) && errno == ESRCH);
}

/* Is anyone listening on the socket?  Removes it when no one is. */
static int listening(const char *sock)
{
	int fd, ret = connect_to(sock, &fd);

	if (ret == -ECONNREFUSED) {
		unlink(sock);
		return 0;
	}
	if (ret)
		return 0;
	close(fd);
	return 1;
}

int live_scan(int **pids, char *why, size_t len)
{
	char dir[SLIM_LIVE_PATH_MAX], sock[SLIM_LIVE_PATH_MAX + 280];
	unsigned int uid = geteuid();
	struct dirent *d;
	int n = 0, cap = 0, pid, tmp, ret;
	DIR *dp;

	*pids = NULL;
	if (slim_live_dir(uid, dir, sizeof(dir)))
		return snprintf(why, len, "SLIMTRACE_CONTROL_DIR is too long"), -ENAMETOOLONG;
	ret = slim_live_dir_check(dir, uid, why, len);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	dp = opendir(dir);
	if (!dp)
		return ret = -errno, snprintf(why, len, "%s: %s", dir, strerror(-ret)), ret;
	while ((d = readdir(dp))) {
		pid = slim_live_name_pid(d->d_name, &tmp);
		if (!pid)
			continue;
		snprintf(sock, sizeof(sock), "%s/%s", dir, d->d_name);
		if (!proc_alive(pid)) {
			unlink(sock);
			continue;
		}
		if (tmp || !listening(sock))
			continue;
		if (n == cap) {
			int *p = realloc(*pids, (cap = cap ? 2 * cap : 16) * sizeof(*p));

			if (!p) {
				closedir(dp);
				return snprintf(why, len, "out of memory"), -ENOMEM;
			}
			*pids = p;
		}
		(*pids)[n++] = pid;
	}
	closedir(dp);
	if (n)
		qsort(*pids, n, sizeof(**pids), pid_cmp);
	return n;
}
