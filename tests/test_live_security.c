// SPDX-License-Identifier: MIT
/*
 * Live control's security: only the process's own uid and root get in,
 * checked on the connection (SO_PEERCRED) and not only through file
 * modes; another user is refused and changes nothing; root reaches a
 * user's process where that user's own command would; a socket
 * directory that is a symlink, not a directory, someone else's or open
 * to others is refused by the library and by the command.
 *
 * Needs root (to be another user); says so and skips otherwise.
 */
#include <grp.h>
#include "live_proc.h"

#define NOBODY 65534

static char cli_copy[128], target_copy[128];

/* Binaries nobody may run, wherever the build tree is. */
static int copy_binary(const char *from, char *to, size_t len, const char *name)
{
	char cmd[512];

	snprintf(to, len, "%s/%s", lp_root, name);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chmod 755 '%s'", from, to, to);
	return system(cmd);
}

static void become_nobody(void)
{
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		_exit(119);
}

static char pidbuf[32];

static const char *spid(int pid)
{
	snprintf(pidbuf, sizeof(pidbuf), "%d", pid);
	return pidbuf;
}

/*
 * As nobody, over a socket whose modes let anyone in: HELLO and a WRITE.
 * 0 if refused as it should be, else what went wrong.
 */
static int nobody_client(const char *sock)
{
	struct slim_live_hdr h;
	unsigned char w[64];
	char buf[512];
	uint32_t plen = 9;
	int fd;

	become_nobody();
	fd = raw_connect_path(sock);
	if (fd < 0)
		return 10;
	memcpy(w, &plen, 4);
	memcpy(w + 4, "set_event*:*", 12);
	/*
	 * Sent at once: a refusal must come before anything is read.  The
	 * endpoint may have refused and closed before the write goes out
	 * (EPIPE): what matters is what comes back, and that nothing changed.
	 */
	(void)raw_hello(fd, SLIM_LIVE_VERSION);
	(void)raw_send(fd, SLIM_LIVE_WRITE, 2, w, 16);
	if (raw_recv(fd, &h, buf, sizeof(buf), 3000))
		return 12;
	if (h.op != SLIM_LIVE_DONE || h.status != -EACCES)
		return 13;
	if (!strstr(buf, "uid 65534 may not control process"))
		return 14;
	if (!raw_closed(fd, 3000))
		return 15;
	return 0;
}

static void test_other_user_refused(void)
{
	struct target t;
	struct run r;
	char sock[108], *text;
	int pid, status;
	pid_t child;

	if (!CHECK(target_start(&t, NULL, 1) == 0))
		return;
	pid = t.pids[0];
	lp_sock_path(pid, sock, sizeof(sock));

	/* The modes would let nobody in: the credentials still keep it out. */
	CHECK(chmod(lp_dir, 0711) == 0 && chmod(sock, 0777) == 0);
	fflush(NULL);
	child = fork();
	if (child == 0) {
		check_watchdog(NULL, 0);
		_exit(nobody_client(sock));
	}
	CHECK(waitpid(child, &status, 0) == child);
	if (!CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		fprintf(stderr, "     the client as nobody: status %#x\n", status);
	CHECK(chmod(lp_dir, 0700) == 0 && chmod(sock, 0600) == 0);
	text = raw_read_file(pid, "set_event");
	CHECK_EQ_STR(text, "");
	free(text);

	/* The command as nobody, the usual way: refused, with the reason. */
	run_prog_sig(&r, "setpriv", (const char *[]){ "--reuid=nobody", "--regid=nogroup",
			"--clear-groups", cli_copy, "ctl", spid(pid), "write", "set_event", "*:*",
			NULL }, 0, 0, NULL);
	CHECK_EQ_INT(lp_exit_code(r.status), 1);
	CHECK(has(r.err, "permission denied: process"));
	CHECK(has(r.err, "belongs to uid 0"));
	run_free(&r);
	run_prog_sig(&r, "setpriv", (const char *[]){ "--reuid=nobody", "--regid=nogroup",
			"--clear-groups", cli_copy, "ps", NULL }, 0, 0, NULL);
	CHECK_EQ_INT(lp_exit_code(r.status), 0);
	CHECK_EQ_INT(count_lines(r.out, NULL), 1);
	run_free(&r);
	text = raw_read_file(pid, "set_event");
	CHECK_EQ_STR(text, "");
	free(text);
	text = raw_read_file(pid, "tracing_on");
	CHECK_EQ_STR(text, "1\n");
	free(text);
	target_stop(&t, SIGTERM);
}

/* Root reaches a user's process in that user's directory. */
static void test_root_attaches(void)
{
	struct target t;
	struct run r;
	char sock[108];
	int pid, i;

	if (!CHECK(target_start_ex(&t, target_copy, NULL, 1, NULL, 0, become_nobody) == 0))
		return;
	pid = t.pids[0];
	snprintf(sock, sizeof(sock), "%s/slimtrace-%d/%d", lp_root, NOBODY, pid);
	for (i = 0; i < 500 && access(sock, F_OK); i++)
		lp_sleep_ms(10);
	CHECK(access(sock, F_OK) == 0);
	CHECK(cli_ok(&r, (const char *[]){ "ctl", spid(pid), "write", "set_event", "live_tick",
				 NULL }));
	run_free(&r);
	CHECK(cli_ok(&r, (const char *[]){ "ctl", spid(pid), "read", "set_event", NULL }));
	CHECK_EQ_STR(r.out, "live:live_tick\n");
	run_free(&r);
	/* ps lists this user's processes: not nobody's. */
	CHECK(cli_ok(&r, (const char *[]){ "ps", NULL }));
	CHECK(!has(r.out, spid(pid)));
	run_free(&r);
	run_prog_sig(&r, "setpriv", (const char *[]){ "--reuid=nobody", "--regid=nogroup",
			"--clear-groups", cli_copy, "ps", NULL }, 0, 0, NULL);
	CHECK_EQ_INT(lp_exit_code(r.status), 0);
	CHECK(has(r.out, spid(pid)));
	CHECK(has(r.out, "live_target"));
	run_free(&r);
	target_stop(&t, SIGTERM);
	CHECK(access(sock, F_OK) != 0);
}

/* A bad directory: the library says why and stays off; the command refuses it. */
static void bad_dir(const char *what, void (*make)(const char *dir), const char *want)
{
	char root[96], dir[128], errfile[128], *err;
	struct target t;
	struct run r;

	snprintf(root, sizeof(root), "%s/bad-XXXXXX", lp_root);
	if (!CHECK(mkdtemp(root) != NULL))
		return;
	chmod(root, 01777);
	snprintf(dir, sizeof(dir), "%s/slimtrace-%u", root, (unsigned int)geteuid());
	make(dir);
	snprintf(errfile, sizeof(errfile), "%s/target.err", lp_root);
	setenv("SLIMTRACE_CONTROL_DIR", root, 1);
	if (CHECK(target_start_ex(&t, TARGET, NULL, 1, errfile, 0, NULL) == 0)) {
		lp_sleep_ms(300);
		err = lp_slurp(errfile);
		if (!CHECK(has(err, "control endpoint of pid") && has(err, want)))
			fprintf(stderr, "     %s: the program said '%s'\n", what, err);
		free(err);
		run_cli(&r, (const char *[]){ "ps", NULL });
		CHECK_EQ_INT(lp_exit_code(r.status), 1);
		if (!CHECK(has(r.err, want)))
			fprintf(stderr, "     %s: ps said '%s'\n", what, r.err);
		run_free(&r);
		run_cli(&r, (const char *[]){ "ctl", spid(t.pids[0]), "read", "trace", NULL });
		CHECK_EQ_INT(lp_exit_code(r.status), 1);
		CHECK(has(r.err, "not using"));
		run_free(&r);
		target_stop(&t, SIGTERM);
	}
	setenv("SLIMTRACE_CONTROL_DIR", lp_root, 1);
}

static char link_to[96];

static void make_symlink(const char *dir)
{
	snprintf(link_to, sizeof(link_to), "%s/elsewhere", lp_root);
	mkdir(link_to, 0700);
	CHECK(symlink(link_to, dir) == 0);
}

static void make_open(const char *dir)
{
	CHECK(mkdir(dir, 0700) == 0 && chmod(dir, 0755) == 0);
}

static void make_foreign(const char *dir)
{
	CHECK(mkdir(dir, 0700) == 0 && chown(dir, NOBODY, NOBODY) == 0);
}

static void make_file(const char *dir)
{
	int fd = open(dir, O_WRONLY | O_CREAT, 0600);

	CHECK(fd >= 0);
	close(fd);
}

static void test_directories(void)
{
	bad_dir("symlink", make_symlink, "is a symbolic link, not a directory");
	/* Nothing was made through the link: it is still empty. */
	CHECK(rmdir(link_to) == 0);
	bad_dir("mode", make_open, "has mode 0755: others may enter it (want 0700)");
	bad_dir("owner", make_foreign, "is owned by uid 65534, not by uid 0");
	bad_dir("file", make_file, "is not a directory");
}

int main(void)
{
	check_watchdog("live_security", 120);
	if (geteuid() != 0) {
		printf("NOTE live_security: not root: cannot run a client as another user; skipped\n");
		return check_done("live_security");
	}
	if (!CHECK(access(CLI, X_OK) == 0) || !CHECK(access(TARGET, X_OK) == 0))
		return check_done("live_security");
	lp_setup("sec");
	if (!CHECK(copy_binary(CLI, cli_copy, sizeof(cli_copy), "slimtrace") == 0) ||
	    !CHECK(copy_binary(TARGET, target_copy, sizeof(target_copy), "live_target") == 0))
		return check_done("live_security");
	test_other_user_refused();
	test_root_attaches();
	test_directories();
	lp_cleanup();
	return check_done("live_security");
}
