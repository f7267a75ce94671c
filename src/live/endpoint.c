// SPDX-License-Identifier: MIT
/*
 * The control endpoint: every process that has events answers the
 * control protocol (docs/live.md) on a Unix socket named after its pid,
 * so that `slimtrace ctl`, `ps`, `record -p` and `mount` reach it from
 * outside, with no daemon.
 *
 * One thread, started by a constructor, serves every client from poll().
 * It touches nothing the record path uses: events are enabled, filtered
 * and recorded through the same slim_ctl_* calls a program makes itself.
 * It blocks no other thread: its sockets never block (a client that
 * stops reading is dropped after STALL_MS, and meanwhile its answer
 * waits in this thread's memory), it holds slim_event_mutex only inside
 * the ctl calls, and the recording threads never see a socket.
 *
 * The socket goes away at exit, exit(), a fatal signal (src/core/fatal.c)
 * and dlclose of the library; SIGKILL leaves it behind, and the slimtrace
 * command removes such stale sockets.
 *
 * The socket appears DELAY_MS after the process starts, and a fork
 * child's DELAY_MS after the fork (the parent's keeps working): a
 * program that is over by then (a short command, fork-and-exec) never
 * makes a directory, binds, renames or removes a socket, and its start
 * never shares the CPUs with that work.  What such a program pays is
 * the thread itself: see start().  The command waits for the socket of
 * a process younger than that (tools/slimtrace/live.c).
 *
 * SLIMTRACE_CONTROL=0 turns it off.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "core/fatal.h"
#include "core/fork.h"
#include "live/conn.h"
#include "live/sockdir.h"

#define MAX_CONNS	16
#define STALL_MS	10000	/* a client that neither sends nor reads */
#define STREAM_MS	10	/* how often an idle trace_pipe is read again */
#define DELAY_MS	100	/* from the start or the fork to the socket */

/*
 * glibc lets the child of a multi-threaded process create threads; ASan
 * and TSan do not (TSan kills the child, ASan can deadlock in its thread
 * registry).  Built with either, a fork child has no endpoint.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CHILD_NO_THREAD	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CHILD_NO_THREAD	1
#endif
#endif
#ifndef CHILD_NO_THREAD
#define CHILD_NO_THREAD	0
#endif
#define JOIN_MS		1000	/* at exit, wait this long for the thread */
#define STACK_SIZE	(512 * 1024)
#define ROUNDS		16	/* requests or stream reads per client per wake-up */
#define PAUSE_MS	100	/* out of descriptors: accept again after this */

struct client {
	int fd;
	struct live_conn c;
	long long deadline;	/* ms: dropped if no progress by then; 0 none */
};

static struct {
	pthread_mutex_t lock;	/* held while a request runs: fork waits */
	pthread_t thread;
	int running;		/* a thread was started and not joined */
	int stopping;		/* futex, atomic: 1 once stop() wants the thread gone */
	int wake[2];		/* atomic: written to stop the thread; made after the delay */
	int listen_fd;
	long long listen_pause;	/* ms: no accept before then */
	int pid;		/* the process the socket is for */
	unsigned int uid;
	char dir[SLIM_LIVE_PATH_MAX];
	char path[SLIM_LIVE_PATH_MAX];	/* the socket, once bound */
	int path_set;		/* atomic: path names our socket */
	struct client clients[MAX_CONNS];
	int nr_clients;
} ep = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = { -1, -1 }, .listen_fd = -1 };

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the socket -------------------------------------------------------------- */

/*
 * Bound to a temporary name, listening, then renamed into place: a
 * client that finds the name can connect, so the command never takes a
 * socket that is being set up for a stale one.
 */
static int open_socket(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char why[256], final[SLIM_LIVE_PATH_MAX];
	int fd, err;

	err = slim_live_dir_make(ep.dir, ep.uid, why, sizeof(why));
	if (err) {
		fprintf(stderr, "slimtrace: control endpoint of pid %d off: %s\n", ep.pid, why);
		return -1;
	}
	if (slim_live_tmp_path(ep.dir, ep.pid, sa.sun_path, sizeof(sa.sun_path)) ||
	    slim_live_sock_path(ep.dir, ep.pid, final, sizeof(final))) {
		fprintf(stderr, "slimtrace: control endpoint off: %s: name too long for a socket\n",
			ep.dir);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	unlink(sa.sun_path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, MAX_CONNS))
		goto fail_close;
	/* Ours alone: the directory already keeps others out. */
	if (chmod(sa.sun_path, 0600) || rename(sa.sun_path, final))
		goto fail_unlink;
	memcpy(ep.path, final, sizeof(final));
	__atomic_store_n(&ep.path_set, 1, __ATOMIC_RELEASE);
	ep.listen_fd = fd;
	return 0;
fail_unlink:
	err = errno;
	unlink(sa.sun_path);
	errno = err;
fail_close:
	err = errno;
	close(fd);
	errno = err;
fail:
	fprintf(stderr, "slimtrace: control endpoint of pid %d off: %s: %s\n",
		ep.pid, final, strerror(errno));
	return -1;
}

static void remove_socket(void)
{
	if (__atomic_exchange_n(&ep.path_set, 0, __ATOMIC_ACQ_REL) && getpid() == ep.pid)
		unlink(ep.path);
}

/* In a signal handler: async-signal-safe only. */
static void fatal_hook(int sig)
{
	(void)sig;
	if (__atomic_load_n(&ep.path_set, __ATOMIC_ACQUIRE) && getpid() == ep.pid)
		unlink(ep.path);
}

/* ---- clients ----------------------------------------------------------------- */

static void drop(int i)
{
	close(ep.clients[i].fd);
	live_conn_free(&ep.clients[i].c);
	ep.clients[i] = ep.clients[--ep.nr_clients];
}

/* Only this user and root: checked on the connection, whatever the file modes. */
static int peer_allowed(int fd, char *why, size_t len)
{
	struct ucred cr;
	socklen_t n = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &n)) {
		snprintf(why, len, "no peer credentials: %s", strerror(errno));
		return 0;
	}
	if (cr.uid == ep.uid || cr.uid == 0)
		return 1;
	snprintf(why, len, "uid %u may not control process %d (only uid %u and root may)",
		 (unsigned int)cr.uid, ep.pid, ep.uid);
	return 0;
}

/* Say why, as far as the socket takes it at once, and close. */
static void refuse(int fd, int status, const char *why)
{
	struct live_conn c;
	unsigned char junk[256];

	live_conn_init(&c, ep.pid);
	live_conn_refuse(&c, status, why);
	/* If it does not go out at once, the client still sees the close. */
	send(fd, c.out.data + c.out.head, c.out.len, MSG_NOSIGNAL | MSG_DONTWAIT);
	/* Unread bytes would turn the client's read of the reply into a reset. */
	while (recv(fd, junk, sizeof(junk), MSG_DONTWAIT) > 0)
		;
	live_conn_free(&c);
	close(fd);
}

static void accept_clients(void)
{
	char why[160];
	int fd;

	for (;;) {
		fd = accept4(ep.listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			break;
		struct client *cl;

		if (!peer_allowed(fd, why, sizeof(why))) {
			refuse(fd, -EACCES, why);
			continue;
		}
		if (ep.nr_clients == MAX_CONNS) {
			refuse(fd, -EBUSY, "too many control connections (16): try again later");
			continue;
		}
		cl = &ep.clients[ep.nr_clients++];
		cl->fd = fd;
		cl->deadline = 0;
		live_conn_init(&cl->c, ep.pid);
	}
	/* Out of descriptors: polling the listener again would spin. */
	if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
		ep.listen_pause = now_ms() + PAUSE_MS;
}

/* Send what is queued; -1 when the client is gone. */
static int flush(struct client *cl)
{
	while (cl->c.out.len) {
		ssize_t n = send(cl->fd, cl->c.out.data + cl->c.out.head, cl->c.out.len,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		live_conn_sent(&cl->c, n);
	}
	return 0;
}

/* Receive what the client sent; -1 when it is gone. */
static int receive(struct client *cl)
{
	for (;;) {
		size_t room = 65536;
		unsigned char *p = live_conn_in_space(&cl->c, &room);
		ssize_t n;

		if (!p)
			return 0;
		n = recv(cl->fd, p, room, MSG_DONTWAIT);
		if (n == 0)
			return -1;
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		live_conn_received(&cl->c, n);
	}
}

/*
 * One client's turn: send, handle what arrived, stream.  -1 when it is
 * to be dropped.
 */
static int serve(struct client *cl, short revents, long long now)
{
	size_t before_out = cl->c.out.len, before_in = cl->c.in.len;
	int i;

	if ((revents & POLLOUT) && flush(cl))
		return -1;
	if ((revents & (POLLIN | POLLHUP | POLLERR)) && !cl->c.out.len && receive(cl))
		return -1;
	/* A few rounds, so that one busy client does not keep the others waiting. */
	for (i = 0; i < ROUNDS; i++) {
		live_conn_process(&cl->c);
		live_conn_stream(&cl->c);
		if (!cl->c.out.len)
			break;
		if (flush(cl))
			return -1;
		if (cl->c.out.len)
			break;
	}
	if (cl->c.state == LIVE_CLOSING && !cl->c.out.len)
		return -1;
	/* Progress moves the deadline; waiting with nothing owed has none. */
	if (cl->c.out.len != before_out || cl->c.in.len != before_in)
		cl->deadline = 0;
	if (cl->c.out.len || (cl->c.in.len && cl->c.state != LIVE_STREAMING)) {
		if (!cl->deadline)
			cl->deadline = now + STALL_MS;
	} else {
		cl->deadline = 0;
	}
	if (cl->deadline && now >= cl->deadline)
		return -1;
	return 0;
}

static int poll_timeout(long long now)
{
	long long t = -1;
	int i;

	for (i = 0; i < ep.nr_clients; i++) {
		struct client *cl = &ep.clients[i];
		long long d = -1;

		if (cl->c.state == LIVE_STREAMING && !cl->c.out.len)
			d = cl->c.stream_hot ? 0 : STREAM_MS;
		else if (cl->deadline)
			d = cl->deadline > now ? cl->deadline - now : 0;
		if (d >= 0 && (t < 0 || d < t))
			t = d;
	}
	return (int)t;
}

static void serve_all(struct pollfd *pfd, long long now)
{
	int i;

	for (i = ep.nr_clients - 1; i >= 0; i--) {
		if (serve(&ep.clients[i], pfd[2 + i].revents, now))
			drop(i);
	}
}

/*
 * The delay, on a futex: the new thread often runs first on its
 * creator's CPU, so what it does before it blocks counts in the
 * program's start, and a futex wait is the least (a timed poll() on a
 * pipe made by the constructor cost ~5 µs more, the pipe included, in
 * a microbenchmark).
 * 1 if stop() ended it.
 */
static int wait_delay(void)
{
	struct timespec ts;
	long long left, end = 0;

	for (;;) {
		if (__atomic_load_n(&ep.stopping, __ATOMIC_SEQ_CST))
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		left = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
		if (!end)
			end = left + DELAY_MS * 1000000LL;
		left = end - left;
		if (left <= 0)
			return 0;
		ts.tv_sec = left / 1000000000LL;
		ts.tv_nsec = left % 1000000000LL;
		/* Returns at once if stopping is no longer 0: no wake-up is lost. */
		syscall(SYS_futex, &ep.stopping, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
	}
}

/*
 * The wake pipe, then stopping looked at again: stop() sets stopping,
 * then looks for the pipe, so one of the two sees the other's store
 * (both sequentially consistent) and the thread never polls a pipe
 * nobody will write.  -1 if it is not to go on.
 */
static int open_wake(void)
{
	int fds[2];

	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK))
		return -1;
	__atomic_store_n(&ep.wake[0], fds[0], __ATOMIC_SEQ_CST);
	__atomic_store_n(&ep.wake[1], fds[1], __ATOMIC_SEQ_CST);
	return __atomic_load_n(&ep.stopping, __ATOMIC_SEQ_CST) ? -1 : 0;
}

static void *endpoint_thread(void *arg)
{
	struct pollfd pfd[2 + MAX_CONNS];
	int i, n, timeout;

	(void)arg;
	if (wait_delay())
		return NULL;
	/* Named by itself, now: from the creator it costs an open of /proc. */
	prctl(PR_SET_NAME, "slimtrace-ctl");
	if (open_wake() || open_socket())
		return NULL;
	for (;;) {
		pfd[0] = (struct pollfd){ ep.wake[0], POLLIN, 0 };
		pfd[1] = (struct pollfd){ ep.listen_fd, POLLIN, 0 };
		if (ep.listen_pause && now_ms() < ep.listen_pause)
			pfd[1].fd = -1;
		for (i = 0; i < ep.nr_clients; i++) {
			struct client *cl = &ep.clients[i];

			pfd[2 + i] = (struct pollfd){ cl->fd, cl->c.out.len ? POLLOUT : POLLIN, 0 };
		}
		n = 2 + ep.nr_clients;
		timeout = poll_timeout(now_ms());
		if (pfd[1].fd < 0 && (timeout < 0 || timeout > PAUSE_MS))
			timeout = PAUSE_MS;
		if (poll(pfd, n, timeout) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			break;
		pthread_mutex_lock(&ep.lock);
		if (pfd[1].revents)
			accept_clients();
		serve_all(pfd, now_ms());
		pthread_mutex_unlock(&ep.lock);
	}
	return NULL;
}

/* ---- starting and stopping ----------------------------------------------------- */

static void close_all(void)
{
	while (ep.nr_clients)
		drop(ep.nr_clients - 1);
	if (ep.listen_fd >= 0)
		close(ep.listen_fd);
	ep.listen_fd = -1;
	for (int i = 0; i < 2; i++) {
		if (ep.wake[i] >= 0)
			close(ep.wake[i]);
		ep.wake[i] = -1;
	}
}

/*
 * All the program's own thread does is pthread_create, which costs
 * what a bare thread created by the program itself costs (the
 * attributes cost nothing measurable; bench/live_bench.c measures the
 * endpoint against such a thread and against none); everything else
 * waits in the thread for DELAY_MS.
 */
static void start(void)
{
	pthread_attr_t attr;
	sigset_t all;

	ep.pid = getpid();
	ep.uid = geteuid();
	if (slim_live_dir(ep.uid, ep.dir, sizeof(ep.dir))) {
		fprintf(stderr, "slimtrace: control endpoint off: SLIMTRACE_CONTROL_DIR is too long\n");
		return;
	}
	ep.stopping = 0;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	/* Signals meant for the program go to its threads, never to this one. */
	sigfillset(&all);
	pthread_attr_setsigmask_np(&attr, &all);
	if (pthread_create(&ep.thread, &attr, endpoint_thread, NULL) == 0)
		ep.running = 1;
	pthread_attr_destroy(&attr);
}

/* At exit and at unload: the thread first, so that the socket goes for good. */
static void stop(void)
{
	struct timespec ts;
	ssize_t n;
	int fd;

	if (ep.running && getpid() == ep.pid) {
		ep.running = 0;
		__atomic_store_n(&ep.stopping, 1, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, &ep.stopping, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		/* One byte ever: the pipe cannot be full.  None yet: see open_wake(). */
		fd = __atomic_load_n(&ep.wake[1], __ATOMIC_SEQ_CST);
		if (fd >= 0) {
			n = write(fd, "", 1);
			(void)n;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += (JOIN_MS % 1000) * 1000000L;
		ts.tv_sec += JOIN_MS / 1000 + ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		if (pthread_timedjoin_np(ep.thread, NULL, &ts) == 0) {
			remove_socket();
			close_all();
			return;
		}
	}
	remove_socket();
}

static void fork_prepare(void)
{
	pthread_mutex_lock(&ep.lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&ep.lock);
}

/*
 * The parent's thread did not come along; its sockets are the parent's.
 * Last of the library's child hooks (first taken): every other lock is
 * free again when the child's thread starts.
 */
static void fork_child(void)
{
	int i;

	pthread_mutex_unlock(&ep.lock);
	__atomic_store_n(&ep.path_set, 0, __ATOMIC_RELEASE);
	/* A connected client's instances are its own: the child has no client. */
	for (i = 0; i < ep.nr_clients; i++)
		live_conn_drop_made(&ep.clients[i].c);
	close_all();
	if (ep.running && !CHILD_NO_THREAD)
		start();
	else
		ep.running = 0;
}

static struct slim_fork_hook fork_hook = {
	SLIM_FORK_ENDPOINT, fork_prepare, fork_parent, fork_child, NULL
};

__attribute__((constructor)) static void endpoint_ctor(void)
{
	const char *v = getenv("SLIMTRACE_CONTROL");

	if (v && strcmp(v, "0") == 0)
		return;
	start();
	if (!ep.running)
		return;
	atexit(stop);
	slim_fork_hook_add(&fork_hook);
	/*
	 * Here, not in the thread before its socket, although a program
	 * that is over before DELAY_MS never needs it: a handler is only
	 * installed where the program kept the default, and that test and
	 * the install are two calls, safe only while the program cannot
	 * install its own in between: while the constructors run at
	 * start-up there is one thread, once main runs there may be more.
	 * The 28 sigaction calls cost ~4 µs.
	 */
	slim_fatal_hook(fatal_hook);
}

__attribute__((destructor)) static void endpoint_dtor(void)
{
	stop();
}

/* Referenced by the registry so that a static link keeps the endpoint. */
const char slim_endpoint_linked = 1;
