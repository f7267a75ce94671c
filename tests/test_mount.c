// SPDX-License-Identifier: MIT
/*
 * slimtrace mount: a running program's control files as a FUSE
 * filesystem, reached with real shell commands as /sys/kernel/tracing
 * is.  Needs /dev/fuse and fusermount3 (root on these machines); where
 * they are missing it says so and checks only the refusal.
 */
#include "live_proc.h"

static char mnt[128];
static pid_t server;

/* sh -c CMD: its exit code, stdout and stderr in r. */
static int sh_run(struct run *r, const char *cmd)
{
	run_prog_sig(r, "/bin/sh", (const char *[]){ "-c", cmd, NULL }, 0, 0, NULL);
	return lp_exit_code(r->status);
}

static int sh_ok(const char *cmd, const char *want_out)
{
	struct run r;
	int ok;

	ok = sh_run(&r, cmd) == 0 && (!want_out || has(r.out, want_out));
	if (!ok)
		fprintf(stderr, "     $ %s\n     exit %d\n     out: %s\n     err: %s\n", cmd,
			lp_exit_code(r.status), r.out, r.err);
	run_free(&r);
	return ok;
}

static int mounted(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/mounts", "r");
	int found = 0;

	while (f && fgets(line, sizeof(line), f))
		found |= strstr(line, mnt) != NULL && strstr(line, "fuse") != NULL;
	if (f)
		fclose(f);
	return found;
}

static int mount_start(void)
{
	int i;

	fflush(NULL);
	server = fork();
	if (server == 0) {
		check_watchdog(NULL, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execl(CLI, CLI, "mount", mnt, (char *)NULL);
		_exit(121);
	}
	for (i = 0; i < 500 && !mounted(); i++)
		lp_sleep_ms(10);
	return mounted();
}

static int mount_stop(int use_signal)
{
	char cmd[256];
	int status = -1;

	if (use_signal) {
		kill(server, SIGINT);
	} else {
		snprintf(cmd, sizeof(cmd), "fusermount3 -u '%s'", mnt);
		if (system(cmd) != 0)
			kill(server, SIGINT);
	}
	while (waitpid(server, &status, 0) < 0 && errno == EINTR)
		;
	/* A server that died leaves its mount: take it away for the next test. */
	if (mounted()) {
		snprintf(cmd, sizeof(cmd), "fusermount3 -u -z '%s'", mnt);
		if (system(cmd) != 0)
			fprintf(stderr, "     could not unmount %s\n", mnt);
	}
	return status;
}

static void test_shell(void)
{
	struct target t;
	struct run r;
	char m[200], cmd[1024];
	int st;

	if (!CHECK(target_start(&t, (const char *[]){ "-t", "1", "-i", "500", NULL }, 1) == 0))
		return;
	if (!CHECK(mount_start())) {
		target_stop(&t, SIGTERM);
		return;
	}
	snprintf(m, sizeof(m), "%s/%d", mnt, t.pids[0]);

	/* The process is a directory; its files are the control namespace. */
	snprintf(cmd, sizeof(cmd), "ls '%s'", mnt);
	CHECK(sh_ok(cmd, strchr(m + strlen(mnt), '/') + 1));
	snprintf(cmd, sizeof(cmd), "ls '%s'", m);
	CHECK(sh_ok(cmd, "set_event"));
	snprintf(cmd, sizeof(cmd), "cat '%s/available_events'", m);
	CHECK(sh_ok(cmd, "live:live_parse"));
	snprintf(cmd, sizeof(cmd), "cat '%s/events/live/live_parse/format'", m);
	CHECK(sh_ok(cmd, "name: live_parse"));

	/* echo > and >> as in tracefs. */
	snprintf(cmd, sizeof(cmd), "echo 'live:live_parse' > '%s/set_event' && "
		 "echo 'live:live_reply' >> '%s/set_event' && cat '%s/set_event'", m, m, m);
	CHECK(sh_ok(cmd, "live:live_reply"));
	CHECK(sh_ok(cmd, "live:live_parse"));
	snprintf(cmd, sizeof(cmd), "echo 'usecs > 10' > '%s/events/live/live_parse/filter' && "
		 "cat '%s/events/live/live_parse/filter'", m, m);
	CHECK(sh_ok(cmd, "usecs > 10"));

	/*
	 * A refused write fails echo with the control call's errno (bash
	 * names it; dash says "I/O error" for any), and leaves the filter.
	 */
	snprintf(cmd, sizeof(cmd), "bash -c \"echo 'nosuch >' > '%s/events/live/live_parse/filter'\"",
		 m);
	st = sh_run(&r, cmd);
	CHECK(st != 0);
	CHECK(has(r.err, "Invalid argument"));
	run_free(&r);
	snprintf(cmd, sizeof(cmd), "cat '%s/error_log'", m);
	CHECK(sh_ok(cmd, "Command: nosuch >"));
	snprintf(cmd, sizeof(cmd), "echo nosuch:event > '%s/set_event'", m);
	CHECK(sh_run(&r, cmd) != 0);
	run_free(&r);
	snprintf(cmd, sizeof(cmd), "cat '%s/no_such_file'", m);
	CHECK(sh_run(&r, cmd) != 0);
	CHECK(has(r.err, "No such file"));
	run_free(&r);

	/* Instances: mkdir, their own files, a streaming trace_pipe, rmdir. */
	snprintf(cmd, sizeof(cmd), "mkdir '%s/instances/mine' && ls '%s/instances'", m, m);
	CHECK(sh_ok(cmd, "mine"));
	snprintf(cmd, sizeof(cmd), "mkdir '%s/instances/mine'", m);
	CHECK(sh_run(&r, cmd) != 0);
	CHECK(has(r.err, "exists"));
	run_free(&r);
	snprintf(cmd, sizeof(cmd), "echo live:live_tick > '%s/instances/mine/set_event' && "
		 "timeout 10 head -n 3 '%s/instances/mine/trace_pipe'", m, m);
	CHECK(sh_ok(cmd, "live_tick: a=0"));
	snprintf(cmd, sizeof(cmd), "rmdir '%s/instances/mine' && ls '%s/instances'", m, m);
	CHECK(sh_ok(cmd, NULL));
	snprintf(cmd, sizeof(cmd), "test ! -e '%s/instances/mine'", m);
	CHECK(sh_ok(cmd, NULL));

	/* Another user does not get in: FUSE's own rule, without allow_other. */
	if (geteuid() == 0 && system("command -v setpriv >/dev/null") == 0) {
		snprintf(cmd, sizeof(cmd), "setpriv --reuid=nobody --regid=nogroup --clear-groups "
			 "cat '%s/set_event'", m);
		CHECK(sh_run(&r, cmd) != 0);
		CHECK(has(r.err, "Permission denied"));
		run_free(&r);
	}

	/* `: > set_event` clears it, as an O_TRUNC open does in tracefs. */
	snprintf(cmd, sizeof(cmd), ": > '%s/set_event' && test -z \"$(cat '%s/set_event')\"", m, m);
	CHECK(sh_ok(cmd, NULL));

	/* fusermount3 -u ends the server, which exits 0. */
	st = mount_stop(0);
	CHECK_EQ_INT(lp_exit_code(st), 0);
	CHECK(!mounted());
	CHECK_EQ_INT(lp_exit_code(target_stop(&t, SIGTERM)), 1000 + SIGTERM);
}

/* Ctrl-C unmounts too. */
static void test_interrupt(void)
{
	if (!CHECK(mount_start()))
		return;
	CHECK_EQ_INT(lp_exit_code(mount_stop(1)), 0);
	CHECK(!mounted());
}

static void test_refusals(void)
{
	struct run r;

	run_cli(&r, (const char *[]){ "mount", "/nonexistent/dir", NULL });
	CHECK_EQ_INT(lp_exit_code(r.status), 1);
	CHECK(has(r.err, "/nonexistent/dir: No such file or directory"));
	run_free(&r);
	run_cli(&r, (const char *[]){ "mount", NULL });
	CHECK_EQ_INT(lp_exit_code(r.status), 2);
	run_free(&r);
}

int main(void)
{
	check_watchdog("mount", 120);
	if (!CHECK(access(CLI, X_OK) == 0) || !CHECK(access(TARGET, X_OK) == 0))
		return check_done("mount");
	lp_setup("mnt");
	test_refusals();
	snprintf(mnt, sizeof(mnt), "%s/mnt", lp_root);
	mkdir(mnt, 0700);
	if (access("/dev/fuse", R_OK | W_OK) != 0 || system("command -v fusermount3 >/dev/null") != 0) {
		printf("NOTE mount: /dev/fuse or fusermount3 is not usable here: "
		       "the filesystem itself was not tested\n");
	} else {
		test_shell();
		test_interrupt();
	}
	rmdir(mnt);
	lp_cleanup();
	return check_done("mount");
}
