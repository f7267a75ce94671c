/* SPDX-License-Identifier: MIT */
/*
 * What the live-control tests share: a private control directory, the
 * test target (tests/live_target) run as a real process, the slimtrace
 * command run as a user runs it, and a raw protocol client.  Tests run
 * from build/<variant>/tests.
 */
#ifndef SLIM_TESTS_LIVE_PROC_H
#define SLIM_TESTS_LIVE_PROC_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "live/proto.h"

#define CLI "../tools/slimtrace"
#define TARGET "./live_target"
/* What a sanitizer exits with when it finds something: never 0, 1 or 2. */
#define SAN_EXIT 86

static char lp_root[64];	/* SLIMTRACE_CONTROL_DIR */
static char lp_dir[88];	/* its slimtrace-UID */

struct run {
	int status;
	char *out, *err;
};

static inline void lp_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static inline char *lp_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return strdup("");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n + 1);
	if (buf && fread(buf, 1, n, f) != (size_t)n)
		n = 0;
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

/*
 * A control directory of our own, so that the processes of the other
 * tests running on this machine stay out of ours.  Sanitizer reports in
 * the processes we start become a distinct exit code.
 */
static inline void lp_setup(const char *name)
{
	static const char *const vars[] = { "ASAN_OPTIONS", "UBSAN_OPTIONS", "TSAN_OPTIONS" };
	char buf[1024];
	size_t i;

	snprintf(lp_root, sizeof(lp_root), "/tmp/slimtrace-test-%s-XXXXXX", name);
	if (!mkdtemp(lp_root)) {
		perror("mkdtemp");
		exit(1);
	}
	/* As /tmp: everyone may make a directory there, and remove only their own. */
	chmod(lp_root, 01777);
	setenv("SLIMTRACE_CONTROL_DIR", lp_root, 1);
	snprintf(lp_dir, sizeof(lp_dir), "%s/slimtrace-%u", lp_root, (unsigned int)geteuid());
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *old = getenv(vars[i]);

		snprintf(buf, sizeof(buf), "%s%sexitcode=%d", old ? old : "", old && *old ? ":" : "",
			 SAN_EXIT);
		setenv(vars[i], buf, 1);
	}
}

static inline void lp_cleanup(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", lp_root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", lp_root);
}

static inline int lp_exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

static inline int has(const char *text, const char *what)
{
	return text && strstr(text, what) != NULL;
}

static inline int count_lines(const char *text, const char *what)
{
	const char *p;
	int n = 0;

	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		if (!what || !strncmp(p, what, strlen(what)))
			n++;
	return n;
}

static inline void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

/*
 * Start PROG ARGV... with stdout and stderr in files; interrupt it with
 * sig after ms (0: let it end), and wait.  pre, if not NULL, runs in the
 * child before exec (to change user).
 */
static inline void run_prog_sig(struct run *r, const char *prog, const char *const argv[],
				int sig, int ms, void (*pre)(void))
{
	const char *args[64];
	pid_t pid;
	int i, n = 0;

	args[n++] = prog;
	for (i = 0; argv[i] && n < 63; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int o = open("live.out", O_WRONLY | O_CREAT | O_TRUNC, 0666);
		int e = open("live.err", O_WRONLY | O_CREAT | O_TRUNC, 0666);

		check_watchdog(NULL, 0);
		if (o < 0 || e < 0)
			_exit(120);
		dup2(o, 1);
		dup2(e, 2);
		if (pre)
			pre();
		execvp(prog, (char *const *)args);
		_exit(121);
	}
	r->status = -1;
	if (pid > 0 && sig) {
		lp_sleep_ms(ms);
		kill(pid, sig);
	}
	if (pid > 0)
		while (waitpid(pid, &r->status, 0) < 0 && errno == EINTR)
			;
	r->out = lp_slurp("live.out");
	r->err = lp_slurp("live.err");
}

static inline void run_cli(struct run *r, const char *const argv[])
{
	run_prog_sig(r, CLI, argv, 0, 0, NULL);
}

static inline int cli_ok(struct run *r, const char *const argv[])
{
	run_cli(r, argv);
	if (lp_exit_code(r->status) != 0)
		fprintf(stderr, "     slimtrace %s %s %s: exit %d: %s", argv[0], argv[1] ? argv[1] : "",
			argv[1] && argv[2] ? argv[2] : "", lp_exit_code(r->status), r->err);
	return lp_exit_code(r->status) == 0;
}

static inline void lp_sock_path(int pid, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%d", lp_dir, pid);
}

static inline int lp_sock_exists(int pid)
{
	char path[108];

	lp_sock_path(pid, path, sizeof(path));
	return access(path, F_OK) == 0;
}

/* Wait until pid's socket is there (want 1) or gone (want 0); 1 if so. */
static inline int lp_wait_sock(int pid, int want, int ms)
{
	for (; ms > 0; ms -= 10) {
		if (lp_sock_exists(pid) == want)
			return 1;
		lp_sleep_ms(10);
	}
	return lp_sock_exists(pid) == want;
}

struct target {
	pid_t pid;		/* the one we started */
	int pids[2];		/* what it printed: itself, and a fork child with -F */
	int nr;
	int in;			/* its stdin (-E: closing it ends it) */
	FILE *out;
};

/* Signal it (0: close its stdin for -E) and reap it: its exit status. */
static inline int target_stop(struct target *t, int sig)
{
	int status = -1;

	if (t->pid <= 0)
		return -1;
	if (sig)
		kill(t->pid, sig);
	else
		close(t->in);
	while (waitpid(t->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (sig)
		close(t->in);
	if (t->out)
		fclose(t->out);
	t->pid = 0;
	return status;
}

/*
 * Run PROG (live_target) ARGS with stderr to errfile (NULL: ours), after
 * pre() in the child; wait for nr "pid N" lines, and their sockets if
 * wait.
 */
static inline int target_start_ex(struct target *t, const char *prog, const char *const argv[],
				  int nr, const char *errfile, int wait, void (*pre)(void))
{
	const char *args[32];
	int out[2], in[2], i, n = 0;
	char line[64];

	memset(t, 0, sizeof(*t));
	args[n++] = prog;
	for (i = 0; argv && argv[i] && n < 31; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	if (pipe(out) || pipe(in))
		return -1;
	fflush(NULL);
	t->pid = fork();
	if (t->pid == 0) {
		check_watchdog(NULL, 0);
		/* A test that dies takes its programs along (they hold its pipes). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(out[1], 1);
		dup2(in[0], 0);
		close(out[0]);
		close(in[1]);
		if (errfile) {
			int e = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0666);

			if (e < 0)
				_exit(120);
			dup2(e, 2);
		}
		if (pre)
			pre();
		execv(prog, (char *const *)args);
		_exit(121);
	}
	close(out[1]);
	close(in[0]);
	t->in = in[1];
	t->out = fdopen(out[0], "r");
	for (i = 0; i < nr && fgets(line, sizeof(line), t->out); i++)
		t->pids[t->nr++] = atoi(line + 4);
	for (i = 0; t->nr == nr && wait && i < nr; i++) {
		if (!lp_wait_sock(t->pids[i], 1, 5000))
			break;
	}
	if (t->nr == nr && (!wait || i == nr))
		return 0;
	fprintf(stderr, "     %s: %d of %d pids, sockets missing\n", prog, t->nr, nr);
	for (i = 0; i < t->nr; i++)
		if (t->pids[i] != t->pid)
			kill(t->pids[i], SIGKILL);
	target_stop(t, SIGKILL);
	return -1;
}

/* Run live_target ARGS; wait for nr "pid N" lines and their sockets. */
static inline int target_start(struct target *t, const char *const argv[], int nr)
{
	return target_start_ex(t, TARGET, argv, nr, NULL, 1, NULL);
}

/* ---- a raw client of the protocol ----------------------------------------------- */

static inline int raw_connect_path(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

static inline int raw_connect(int pid)
{
	char path[108];

	lp_sock_path(pid, path, sizeof(path));
	return raw_connect_path(path);
}

static inline int raw_send_hdr(int fd, uint32_t len, uint16_t op, uint16_t flags, int32_t status,
			       uint32_t seq, const void *payload, size_t plen)
{
	struct slim_live_hdr h = { len, op, flags, status, seq };
	unsigned char buf[SLIM_LIVE_HDR_SIZE + 4096];

	if (plen > 4096)
		return -1;
	slim_live_hdr_pack(buf, &h);
	if (plen)
		memcpy(buf + SLIM_LIVE_HDR_SIZE, payload, plen);
	return send(fd, buf, SLIM_LIVE_HDR_SIZE + plen, MSG_NOSIGNAL) ==
	       (ssize_t)(SLIM_LIVE_HDR_SIZE + plen) ? 0 : -1;
}

static inline int raw_send(int fd, uint16_t op, uint32_t seq, const void *payload, size_t plen)
{
	return raw_send_hdr(fd, (uint32_t)plen, op, 0, 0, seq, payload, plen);
}

static inline int raw_hello(int fd, uint16_t version)
{
	struct slim_live_hello h = { SLIM_LIVE_MAGIC, version, 0, 0 };
	unsigned char buf[SLIM_LIVE_HELLO_SIZE];

	slim_live_hello_pack(buf, &h);
	return raw_send(fd, SLIM_LIVE_HELLO, 1, buf, sizeof(buf));
}

/* n bytes within ms: 0, -1 at EOF or error, -2 on timeout. */
static inline int raw_read_n(int fd, void *buf, size_t n, int ms)
{
	unsigned char *p = buf;

	while (n) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		ssize_t r;

		if (poll(&pfd, 1, ms) <= 0)
			return -2;
		r = recv(fd, p, n, 0);
		if (r <= 0)
			return -1;
		p += r;
		n -= r;
	}
	return 0;
}

/* One reply (payload NUL-terminated in buf): 0, -1 EOF, -2 timeout, -3 too big. */
static inline int raw_recv(int fd, struct slim_live_hdr *h, char *buf, size_t cap, int ms)
{
	unsigned char hdr[SLIM_LIVE_HDR_SIZE];
	int ret = raw_read_n(fd, hdr, sizeof(hdr), ms);

	if (ret)
		return ret;
	slim_live_hdr_unpack(h, hdr);
	if (h->len >= cap)
		return -3;
	ret = raw_read_n(fd, buf, h->len, ms);
	buf[h->len] = '\0';
	return ret;
}

/* The connection is closed by the other end (EOF within ms). */
static inline int raw_closed(int fd, int ms)
{
	char buf[4096];
	struct pollfd pfd = { fd, POLLIN, 0 };

	for (;;) {
		ssize_t r;

		if (poll(&pfd, 1, ms) <= 0)
			return 0;
		r = recv(fd, buf, sizeof(buf), 0);
		if (r <= 0)
			return 1;
	}
}

/* The other end closed (POLLHUP) within ms, without reading what it sent. */
static inline int raw_hung_up(int fd, int ms)
{
	struct pollfd pfd = { fd, POLLRDHUP, 0 };

	for (; ms > 0; ms -= 50) {
		if (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLHUP | POLLRDHUP)))
			return 1;
		lp_sleep_ms(50);
	}
	return 0;
}

/* READ path over a fresh connection: the text (malloc'd) or NULL. */
static inline char *raw_read_file(int pid, const char *path)
{
	struct slim_live_hdr h;
	static char buf[SLIM_LIVE_MAX_CHUNK + 1];
	char *text = strdup("");
	size_t len = 0;
	int fd, tries;

	/*
	 * Connections just closed may not be reaped yet (a loaded machine):
	 * a refusal for too many is retried for up to two seconds.
	 */
	for (tries = 0;; tries++) {
		fd = raw_connect(pid);
		if (fd < 0 || raw_hello(fd, SLIM_LIVE_VERSION) ||
		    raw_recv(fd, &h, buf, sizeof(buf), 5000))
			goto fail;
		if (h.status != -EBUSY || tries == 40)
			break;
		close(fd);
		lp_sleep_ms(50);
	}
	if (h.status || raw_send(fd, SLIM_LIVE_READ, 2, path, strlen(path)))
		goto fail;
	for (;;) {
		if (raw_recv(fd, &h, buf, sizeof(buf), 5000) || h.seq != 2)
			goto fail;
		if (h.op == SLIM_LIVE_DONE)
			break;
		text = realloc(text, len + h.len + 1);
		memcpy(text + len, buf, h.len);
		len += h.len;
		text[len] = '\0';
	}
	close(fd);
	if (h.status) {
		free(text);
		return NULL;
	}
	return text;
fail:
	if (fd >= 0)
		close(fd);
	free(text);
	return NULL;
}

#endif
