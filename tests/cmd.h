/* SPDX-License-Identifier: MIT */
/*
 * Running commands from a test: argv in, exit code, stdout and stderr
 * out (each into a file first, so a large output cannot block the
 * child).  Used by the tests that run the slimtrace command and the
 * viewers beside it.
 */
#ifndef SLIM_TESTS_CMD_H
#define SLIM_TESTS_CMD_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a sanitizer exits with when it finds something: never 0, 1 or 2. */
#define CMD_SAN_EXIT 86

struct cmd {
	int code;			/* exit status; 1000 + signal when killed */
	char *out, *err;
};

static inline char *cmd_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc(n + 1);
		if (buf && fread(buf, 1, n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		if (buf) {
			buf[n] = '\0';
			if (len)
				*len = n;
		}
	}
	fclose(f);
	return buf;
}

static inline void cmd_free(struct cmd *c)
{
	free(c->out);
	free(c->err);
	c->out = c->err = NULL;
}

/* Run ARGV (argv[0] looked up in PATH); TAG names the capture files. */
static inline void cmd_run(struct cmd *c, const char *tag, const char *const argv[])
{
	char out[256], err[256];
	int status = 0;
	pid_t pid;

	snprintf(out, sizeof(out), "%s.out", tag);
	snprintf(err, sizeof(err), "%s.err", tag);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int in = open("/dev/null", O_RDONLY);

		if (o < 0 || e < 0 || in < 0)
			_exit(120);
		dup2(in, 0);
		dup2(o, 1);
		dup2(e, 2);
		alarm(0);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	c->code = -1;
	if (pid > 0) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		c->code = WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
	}
	c->out = cmd_slurp(out, NULL);
	c->err = cmd_slurp(err, NULL);
	if (!c->out)
		c->out = strdup("");
	if (!c->err)
		c->err = strdup("");
	unlink(out);
	unlink(err);
}

static inline int cmd_on_path(const char *prog)
{
	const char *path = getenv("PATH"), *p;
	char buf[4096];
	size_t n;

	for (p = path ? path : ""; *p; p += n + (p[n] == ':')) {
		n = strcspn(p, ":");
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, prog);
		if (!access(buf, X_OK))
			return 1;
	}
	return 0;
}

/*
 * A sanitizer report in a command run makes it exit CMD_SAN_EXIT.
 * libtraceevent's own leaks are suppressed (tests/cli/lsan.supp); the
 * slow unwinder is needed to see its frames, as it has no frame pointers.
 */
static inline void cmd_sanitizer_exit_codes(const char *srcdir)
{
	static const char *const vars[] = { "ASAN_OPTIONS", "UBSAN_OPTIONS", "TSAN_OPTIONS" };
	char buf[1024];
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *old = getenv(vars[i]);

		snprintf(buf, sizeof(buf), "%s%sexitcode=%d%s", old ? old : "", old && *old ? ":" : "",
			 CMD_SAN_EXIT, i == 0 ? ":fast_unwind_on_malloc=0" : "");
		setenv(vars[i], buf, 1);
	}
	snprintf(buf, sizeof(buf), "%s%ssuppressions=%s/tests/cli/lsan.supp",
		 getenv("LSAN_OPTIONS") ? getenv("LSAN_OPTIONS") : "",
		 getenv("LSAN_OPTIONS") ? ":" : "", srcdir);
	setenv("LSAN_OPTIONS", buf, 1);
}

static inline int cmd_has(const char *text, const char *what)
{
	return text && strstr(text, what) != NULL;
}

#endif
