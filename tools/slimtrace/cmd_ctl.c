// SPDX-License-Identifier: MIT
/*
 * slimtrace ctl PID OP PATH [TEXT]: a control file of a running
 * program, as `cat` and `echo` reach /sys/kernel/tracing.  The errors
 * are the ones the program would get calling slim_ctl_* itself, with the
 * entry the call wrote to its error_log.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "live.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

int cli_parse_pid(const char *cmd, const char *arg, int *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (!*arg || *end || errno || v <= 0 || v > 0x7fffffff)
		return cli_bad_usage(cmd, "'%s' is not a pid", arg);
	*pid = (int)v;
	return 0;
}

int cli_live_failed(struct live *l, const char *what, int ret)
{
	const char *r = l->reason;

	/* The connection failed: l->why says how. */
	if (ret == -EPIPE || ret == -ETIMEDOUT || ret == -EPROTO)
		return cli_fail("%s: %s", what, l->why);
	if (!r || !*r)
		return cli_fail("process %d: %s: %s", l->pid, what, strerror(-ret));
	/* An error_log entry begins with its time stamp; else the server's own words. */
	if (r[0] != '[')
		return cli_fail("process %d: %s: %s: %s", l->pid, what, strerror(-ret), r);
	cli_fail("process %d: %s: %s", l->pid, what, strerror(-ret));
	fprintf(stderr, "error_log of process %d:\n%s%s", l->pid, r,
		r[strlen(r) - 1] == '\n' ? "" : "\n");
	return EXIT_FAIL;
}

/* TEXT as echo would write it: the words, one blank between. */
static char *join(int argc, char **argv)
{
	size_t n = 1;
	char *text;
	int i;

	for (i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
	text = malloc(n);
	if (!text)
		return NULL;
	text[0] = '\0';
	for (i = 0; i < argc; i++) {
		if (i)
			strcat(text, " ");
		strcat(text, argv[i]);
	}
	return text;
}

static int stream(struct live *l, const char *path)
{
	struct sigaction sa = { .sa_handler = on_signal }, ign = { .sa_handler = SIG_IGN };
	char *text;
	size_t len;
	int ret;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGPIPE, &ign, NULL);
	ret = live_stream_start(l, path);
	while (!ret && !interrupted) {
		ret = live_stream_next(l, &text, &len, 200);
		if (ret == 1) {
			ret = fwrite(text, 1, len, stdout) == len && fflush(stdout) == 0 ? 0 : 1;
			free(text);
			if (ret)
				break;	/* the reader went away: stop as cat would */
		} else if (ret == -EINTR) {
			ret = 0;
		}
	}
	if (ret == 1 || (!ret && interrupted)) {
		ret = live_stream_stop(l);
		return ret == -EPIPE ? 0 : (ret ? cli_live_failed(l, path, ret) : 0);
	}
	if (ret == -EPIPE && !l->reason) {
		fprintf(stderr, "slimtrace: process %d exited\n", l->pid);
		return 0;
	}
	return cli_live_failed(l, path, ret);
}

static int run_op(struct live *l, const char *op, const char *path, char *text)
{
	char *out = NULL, what[1200];
	size_t len = 0;
	int ret;

	snprintf(what, sizeof(what), "%s %s", op, path);
	if (!strcmp(op, "cat") && (!strcmp(path, "trace_pipe") ||
				   (strlen(path) > 11 && !strcmp(path + strlen(path) - 11, "/trace_pipe"))))
		return stream(l, path);
	if (!strcmp(op, "read") || !strcmp(op, "cat"))
		ret = live_read(l, path, &out, &len);
	else if (!strcmp(op, "ls"))
		ret = live_list(l, path, &out), len = out ? strlen(out) : 0;
	else if (!strcmp(op, "write") || !strcmp(op, "append"))
		ret = live_write(l, path, text, !strcmp(op, "append"));
	else if (!strcmp(op, "mkdir"))
		ret = live_mkdir(l, path);
	else
		ret = live_rmdir(l, path);
	if (ret)
		return cli_live_failed(l, what, ret);
	if (out && fwrite(out, 1, len, stdout) != len)
		ret = cli_fail("writing the output: %s", strerror(errno));
	free(out);
	return ret;
}

int cmd_ctl(int argc, char **argv)
{
	static const char *const ops[] = { "read", "cat", "write", "append", "mkdir", "rmdir",
					   "ls", NULL };
	struct live l;
	const char *op, *path;
	char *text = NULL;
	int pid, ret, i;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return cli_usage("ctl", stdout), 0;
	if (argc < 3)
		return cli_bad_usage("ctl", "expected PID OPERATION PATH");
	if ((ret = cli_parse_pid("ctl", argv[1], &pid)))
		return ret;
	op = argv[2];
	for (i = 0; ops[i] && strcmp(ops[i], op); i++)
		;
	if (!ops[i])
		return cli_bad_usage("ctl", "no operation '%s' (read, cat, write, append, mkdir, "
				     "rmdir, ls)", op);
	path = argc > 3 ? argv[3] : "";
	if (!*path && strcmp(op, "ls"))
		return cli_bad_usage("ctl", "%s: which file?", op);
	if (!strcmp(op, "write") || !strcmp(op, "append")) {
		if (argc < 5)
			return cli_bad_usage("ctl", "%s %s: what text? (use '' for none)", op, path);
		text = join(argc - 4, argv + 4);
		if (!text)
			return cli_fail("out of memory");
	} else if (argc > 4) {
		return cli_bad_usage("ctl", "%s takes no text after the path", op);
	}
	ret = live_open(&l, pid);
	if (ret) {
		free(text);
		return cli_fail("%s", l.why);
	}
	ret = run_op(&l, op, path, text);
	live_close(&l);
	free(text);
	return ret;
}
