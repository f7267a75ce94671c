// SPDX-License-Identifier: MIT
/*
 * The traces test_viewers converts, recorded by the test itself in a
 * child process: two named threads firing every kind of field, and a
 * run with a tiny buffer in drop mode so that events are lost.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <slimtrace/ctl.h>
#include <slimtrace/record.h>
#include "cv_record.h"
#include "cv_events.h"

static void fire_all(int base)
{
	static const char *const names[] = { "", "x", "a name with spaces", "quote\"and\\slash" };
	int fixed[CV_NR_FIXED] = { base, -base, 0x7fffffff, -0x7fffffff - 1 };
	uint16_t dyn[5] = { 0, 1, 65535, (uint16_t)base, 42 };
	int i;

	trace_cv_ints(0, 0, 0, 0, 0, 0, 0, 0, NULL);
	trace_cv_ints(255, -128, 65535, -32768, 0xffffffffu, INT32_MIN, UINT64_MAX, INT64_MIN,
		      (void *)(uintptr_t)0xdeadbeef);
	trace_cv_ints(7, 127, 1, 32767, 1, INT32_MAX, (uint64_t)base << 33, INT64_MAX, &fixed);
	for (i = 0; i < 4; i++) {
		trace_cv_arrays(fixed, dyn, i + 1, names[i], i == 3 ? "full-tag-x" : "tag");
		trace_cv_start(base + i, names[i % 2 ? 1 : 2]);
		trace_cv_ints((uint8_t)i, (int8_t)-i, (uint16_t)(i * 1000), (int16_t)(-i * 1000),
			      (uint32_t)i << 20, -i * (1 << 20), (uint64_t)i << 40,
			      -(int64_t)i * ((int64_t)1 << 40), dyn);
		usleep(200);
		trace_cv_end(base + i, i - 1);
	}
	trace_cv_arrays(fixed, dyn, 0, "no dyn", "");
}

static void *worker(void *arg)
{
	pthread_setname_np(pthread_self(), "cv-worker");
	fire_all((int)(intptr_t)arg);
	return NULL;
}

static int record_normal(const char *path)
{
	pthread_t th;
	int ok = slim_ctl_write("set_event", "cvtest:*") == 0;

	ok &= slim_record_start(path) == 0;
	pthread_setname_np(pthread_self(), "cv-main");
	ok &= pthread_create(&th, NULL, worker, (void *)(intptr_t)1000) == 0;
	fire_all(0);
	pthread_join(th, NULL);
	ok &= slim_record_stop() == 0;
	return ok;
}

/* Far more than an 8 KiB buffer holds before the consumer wakes. */
static int record_lossy(const char *path)
{
	int ok = slim_ctl_write("set_event", "cvtest:cv_end") == 0, i;

	ok &= slim_ctl_write("buffer_size_kb", "8") == 0;
	ok &= slim_record_start(path) == 0;
	pthread_setname_np(pthread_self(), "cv-lossy");
	for (i = 0; i < 200000; i++)
		trace_cv_end(i, 0);
	ok &= slim_record_stop() == 0;
	return ok;
}

int cv_record(const char *path, int lossy)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit((lossy ? record_lossy(path) : record_normal(path)) ? 0 : 1);
	if (pid < 0)
		return -errno;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}
