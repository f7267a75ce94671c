// SPDX-License-Identifier: MIT
/*
 * The hangs that used to happen, each under a watchdog:
 *  - fork() while other threads hold the library's locks (a reader of
 *    `trace`, enable/disable, new threads claiming buffers, a resize):
 *    every child must be able to record, read and exit;
 *  - a thread's first event inside a signal handler that interrupted
 *    malloc(): the claim must not use the allocator (the test wraps the
 *    allocator, -Wl,--wrap, and counts calls made from the handler);
 *  - buffer_size_kb written while new threads record their first event;
 *  - trace_pipe read while a writer never pauses: one read is bounded.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <slimtrace/ctl.h>
#include "buffers/buffer.h"
#include "check.h"
#include "sample_events.h"

static int stop;

static int stopping(void)
{
	return __atomic_load_n(&stop, __ATOMIC_RELAXED);
}

static void *reader(void *arg)
{
	(void)arg;
	while (!stopping())
		free(slim_ctl_read("trace"));
	return NULL;
}

static void *toggler(void *arg)
{
	int i = 0;

	(void)arg;
	while (!stopping()) {
		slim_ctl_write("events/sample/sample_second/enable", i++ & 1 ? "1" : "0");
		slim_ctl_write("events/sample/sample_second/filter", i & 2 ? "a > 3" : "0");
	}
	return NULL;
}

static void *one_event(void *arg)
{
	(void)arg;
	trace_sample_first(1, 1);
	return NULL;
}

static void *spawner(void *arg)
{
	pthread_t t;

	(void)arg;
	while (!stopping()) {
		if (pthread_create(&t, NULL, one_event, NULL) == 0)
			pthread_join(t, NULL);
	}
	return NULL;
}

static void *resizer(void *arg)
{
	int i = 0;

	(void)arg;
	while (!stopping())
		slim_ctl_write("buffer_size_kb", i++ & 1 ? "64" : "128");
	return NULL;
}

/* What a child does with the library after fork(); its exit status says how it went. */
/*
 * ASan's allocator (gcc 12's libsanitizer) takes no lock around fork(): a
 * child that frees memory while another thread of the parent was inside
 * that allocator at the fork waits forever on the sanitizer's own mutex
 * (a backtrace showed free() -> the quarantine -> its allocator lock).
 * Under ASan the children record and exit, and leave the heap alone; the
 * other builds read and write the control files in them too.
 */
#if defined(__SANITIZE_ADDRESS__)
# define CHILD_HEAP 0
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define CHILD_HEAP 0
# endif
#endif
#ifndef CHILD_HEAP
# define CHILD_HEAP 1
#endif

static int child_work(void)
{
	char *t;

	trace_sample_first(2, 2);
	if (!CHILD_HEAP)
		return 0;
	t = slim_ctl_read("trace");
	if (!t)
		return 3;
	free(t);
	if (slim_ctl_write("events/sample/sample_custom/enable", "1"))
		return 4;
	trace_sample_custom(1, 2);
	return 0;
}

/* A line of /proc/PID/task/TID/FILE, for the log of a hung child. */
static void show_proc(int pid, const char *tid, const char *file)
{
	char path[96], buf[160] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%s/%s", pid, tid, file);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	fprintf(stderr, "     task %s %s: %s\n", tid, file, buf);
}

/* Where each thread of a hung child waits: what to look at next time. */
static void describe_hung(int pid)
{
	char path[48];
	struct dirent *d;
	DIR *dp;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dp = opendir(path);
	if (!dp)
		return;
	fprintf(stderr, "     child %d hung:\n", pid);
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		show_proc(pid, d->d_name, "comm");
		show_proc(pid, d->d_name, "wchan");
		show_proc(pid, d->d_name, "syscall");
	}
	closedir(dp);
	/* Where it is stuck, when gdb is there to say (a diagnosis, not a check). */
	snprintf(path, sizeof(path), "%d", pid);
	if (system("command -v gdb >/dev/null 2>&1") == 0) {
		char cmd[160];

		snprintf(cmd, sizeof(cmd), "gdb -p %s -batch -nx -ex 'thread apply all bt' "
			 "2>/dev/null | grep '^#' >&2", path);
		if (system(cmd) != 0)
			fprintf(stderr, "     (no backtrace)\n");
	}
}

/* Wait for pid at most ms; -1 if it is still running (then it is killed). */
static int wait_bounded(pid_t pid, int ms)
{
	struct timespec ts = { 0, 2000000 };
	int status, i;

	for (i = 0; i < ms / 2; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		nanosleep(&ts, NULL);
	}
	describe_hung(pid);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

static void test_fork(void)
{
	void *(*fns[])(void *) = { reader, toggler, spawner, resizer };
	pthread_t t[4];
	int i, hung = 0, bad = 0, n = 0;

	slim_ctl_write("set_event", "sample_first");
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, fns[i], NULL);
	for (i = 0; i < 60; i++) {
		pid_t pid = fork();
		int rc;

		if (pid == 0)
			_exit(i & 1 ? child_work() : 0);
		if (pid < 0)
			continue;
		n++;
		rc = wait_bounded(pid, 10000);
		if (rc < 0)
			hung++;
		else if (rc)
			bad++;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	CHECK(n > 50);
	CHECK_EQ_INT(hung, 0);
	CHECK_EQ_INT(bad, 0);
	slim_ctl_write("set_event", "");
	slim_ctl_write("buffer_size_kb", "1024");
}

/* ---- a first event in a signal handler ------------------------------- */

static int handled;
static __thread int in_handler;
static int alloc_in_handler;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);

static void note_alloc(void)
{
	if (in_handler)
		__atomic_fetch_add(&alloc_in_handler, 1, __ATOMIC_RELAXED);
}

void *__wrap_malloc(size_t n)
{
	note_alloc();
	return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	note_alloc();
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	note_alloc();
	return __real_realloc(p, n);
}

void *__wrap_aligned_alloc(size_t align, size_t n)
{
	note_alloc();
	return __real_aligned_alloc(align, n);
}

static void on_signal(int sig)
{
	(void)sig;
	in_handler = 1;
	trace_sample_second(7, 7);
	in_handler = 0;
	__atomic_fetch_add(&handled, 1, __ATOMIC_RELAXED);
}

static void *allocating(void *arg)
{
	int *go = arg;

	while (!__atomic_load_n(go, __ATOMIC_RELAXED))
		free(malloc((size_t)(rand() % 4096) + 1));
	return NULL;
}

static void test_signal_first_event(void)
{
	struct slim_rb_stats before, after;
	struct timespec ts = { 0, 200000 };
	int i, rounds = 40;

	signal(SIGUSR1, on_signal);
	slim_ctl_write("set_event", "sample_second");
	slim_bufset_stats(&slim_bufset_top, &before);
	handled = 0;
	for (i = 0; i < rounds; i++) {
		int go = 0, want = i + 1;
		pthread_t t;

		pthread_create(&t, NULL, allocating, &go);
		nanosleep(&ts, NULL);
		pthread_kill(t, SIGUSR1);
		while (__atomic_load_n(&handled, __ATOMIC_RELAXED) < want)
			nanosleep(&ts, NULL);
		__atomic_store_n(&go, 1, __ATOMIC_RELAXED);
		pthread_join(t, NULL);
	}
	slim_bufset_stats(&slim_bufset_top, &after);
	CHECK_EQ_INT(handled, rounds);
	/* An allocator the handler interrupted could be holding its own lock. */
	CHECK_EQ_INT(alloc_in_handler, 0);
	/* Each handler's event is recorded, or at worst counted lost. */
	CHECK_EQ_INT(after.written + after.dropped - before.written - before.dropped, rounds);
	signal(SIGUSR1, SIG_DFL);
	slim_ctl_write("set_event", "");
}

/* ---- resize while new threads take their first buffer ------------------ */

static void test_resize_vs_claim(void)
{
	struct slim_rb_stats before, after;
	pthread_t t[2];
	int i;

	slim_ctl_write("set_event", "sample_first");
	slim_bufset_stats(&slim_bufset_top, &before);
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	pthread_create(&t[0], NULL, spawner, NULL);
	pthread_create(&t[1], NULL, spawner, NULL);
	for (i = 0; i < 200; i++)
		slim_ctl_write("buffer_size_kb", i & 1 ? "8" : "16");
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	slim_bufset_stats(&slim_bufset_top, &after);
	CHECK(after.written > before.written);
	slim_ctl_write("set_event", "");
	slim_ctl_write("buffer_size_kb", "1024");
}

/* ---- trace_pipe under a writer that never pauses ---------------------- */

static void *writer(void *arg)
{
	long i = 0;

	(void)arg;
	while (!stopping())
		trace_sample_first((int)(i & 0xffff), i), i++;
	return NULL;
}

static void test_pipe_bounded(void)
{
	size_t len = 0, most = 0;
	pthread_t t;
	char *text;
	int i;

	slim_ctl_write("buffer_size_kb", "65536");
	slim_ctl_write("set_event", "sample_first");
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	pthread_create(&t, NULL, writer, NULL);
	/* 20 reads, and more while none found anything: the writer may start late. */
	for (i = 0; i < 20 || (!most && i < 20000); i++) {
		text = slim_ctl_read_len("trace_pipe", &len);
		if (len > most)
			most = len;
		free(text);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	/* One read stops after about 1 MiB of text, the rest waits. */
	if (!CHECK(most <= (1u << 20) + 4096))
		fprintf(stderr, "     one read returned %zu bytes\n", most);
	CHECK(most > 0);
	slim_ctl_write("set_event", "");
	slim_ctl_write("trace", "");
	slim_ctl_write("buffer_size_kb", "1024");
}

int main(void)
{
	check_watchdog("hazards", 240);
	test_resize_vs_claim();
	test_signal_first_event();
	test_fork();
	test_pipe_bounded();
	return check_done("hazards");
}
