// SPDX-License-Identifier: MIT
/*
 * libtraceevent's filter parser trusts its input: a dangling operator, an
 * unterminated string or a stray '=' can make it free twice or read
 * through a NULL pointer (tests/test_cli.c lists expressions that did in
 * libtraceevent 1.7).  So each expression is first parsed in a forked
 * child, with the same handle; what the child reports decides whether
 * the parent may parse it.  The parent never parses an expression the
 * child failed on, since a refusal may come after its heap was damaged.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <traceevent/event-parse.h>
#include "cli.h"

/* A parse taking longer than this is a hang, not a parse. */
#define PROBE_SECONDS	10

struct probe_msg {
	int index;
	int done;			/* 0: about to parse it */
	int ret;
	char msg[200];
};

static void probe_child(int fd, struct tep_handle *tep, const char *const *filters, int from, int nr)
{
	struct tep_event_filter *filter = tep_filter_alloc(tep);
	struct probe_msg m;
	int devnull = open("/dev/null", O_WRONLY);
	int i;

	/* Its complaints, and a sanitizer's, are the parent's to make. */
	if (devnull >= 0)
		dup2(devnull, 2);
	signal(SIGALRM, SIG_DFL);
	alarm(PROBE_SECONDS);
	if (!filter)
		_exit(3);
	for (i = from; i < nr; i++) {
		memset(&m, 0, sizeof(m));
		m.index = i;
		if (write(fd, &m, sizeof(m)) != sizeof(m))
			_exit(3);
		m.ret = tep_filter_add_filter_str(filter, filters[i]);
		if (m.ret < 0)
			tep_filter_strerror(filter, m.ret, m.msg, sizeof(m.msg));
		m.done = 1;
		if (write(fd, &m, sizeof(m)) != sizeof(m))
			_exit(3);
	}
	_exit(0);
}

static void crashed(struct cli_filter_result *r, int status)
{
	r->status = CLI_FILTER_CRASHED;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		snprintf(r->msg, sizeof(r->msg), "libtraceevent's filter parser hangs on it "
			 "(stopped after %d s)", PROBE_SECONDS);
	else if (WIFSIGNALED(status))
		snprintf(r->msg, sizeof(r->msg), "libtraceevent's filter parser crashes on it "
			 "(signal %d, %s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(r->msg, sizeof(r->msg), "libtraceevent's filter parser dies on it "
			 "(exit status %d)", WEXITSTATUS(status));
}

/* Probe FILTERS[from..nr) in one child; the index to go on from. */
static int probe_from(struct tep_handle *tep, const char *const *filters, int from, int nr,
		      struct cli_filter_result *res)
{
	struct probe_msg m;
	int fds[2], status, pending = -1, i;
	pid_t pid;

	if (pipe(fds)) {
		for (i = from; i < nr; i++)
			snprintf(res[i].msg, sizeof(res[i].msg), "cannot check the filter: %s",
				 strerror(errno));
		return nr;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		probe_child(fds[1], tep, filters, from, nr);
	}
	close(fds[1]);
	while (pid > 0 && read(fds[0], &m, sizeof(m)) == sizeof(m)) {
		if (m.index < from || m.index >= nr)
			break;
		if (!m.done) {
			pending = m.index;
			continue;
		}
		pending = -1;
		res[m.index].ret = m.ret;
		res[m.index].status = m.ret < 0 ? CLI_FILTER_REFUSED : CLI_FILTER_OK;
		m.msg[sizeof(m.msg) - 1] = '\0';
		memcpy(res[m.index].msg, m.msg, sizeof(m.msg));
	}
	close(fds[0]);
	if (pid < 0) {
		for (i = from; i < nr; i++)
			snprintf(res[i].msg, sizeof(res[i].msg), "cannot check the filter: %s",
				 strerror(errno));
		return nr;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (pending < 0 && WIFEXITED(status) && !WEXITSTATUS(status))
		return nr;
	if (pending < 0) {
		/* Died between two expressions: blame the next one. */
		for (pending = from; pending < nr && res[pending].status != CLI_FILTER_CRASHED; pending++)
			;
		if (pending == nr)
			return nr;
	}
	crashed(&res[pending], status);
	return pending + 1;
}

void cli_filter_probe(struct tep_handle *tep, const char *const *filters, int nr,
		      struct cli_filter_result *res)
{
	int i, next = 0;

	for (i = 0; i < nr; i++) {
		memset(&res[i], 0, sizeof(res[i]));
		res[i].status = CLI_FILTER_CRASHED;
	}
	while (next < nr)
		next = probe_from(tep, filters, next, nr, res);
}
