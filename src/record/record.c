// SPDX-License-Identifier: MIT
/*
 * Recording to disk: the API (include/slimtrace/record.h), the `record`
 * control file, and a recording's life: start, sync, stop, fork, exit.
 * rec.h lists the other parts; docs/trace-dat.md has the file layout
 * and the reasons.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <slimtrace/output.h>
#include "core/fork.h"
#include "record/rec.h"

#define DEFAULT_VERSION	6	/* Trace Compass reads only version 6 */

static pthread_mutex_t api_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rec *active;		/* under api_lock */
/* The process whose recording `active` is (atomic): a vfork child is not it. */
static pid_t active_pid;
/* The buffer set being recorded (atomic): asked with slim_event_mutex held. */
static struct slim_bufset *active_set;
/* The last recording's slim_record_get_stats(), kept at its stop; under api_lock. */
static struct slim_record_stats last_stats;
static int have_stats;

void rec_set_err(struct rec *r, int err)
{
	if (err && !r->err) {
		r->err = err;
		fprintf(stderr, "slimtrace: recording to %s: %s\n", r->path, strerror(-err));
	}
}

/*
 * The end of a recording whose final file could not be written (a full
 * disk, a file size limit): the pages stay in PATH.cpuN, and PATH is
 * the last complete version, so nothing recorded is gone yet.
 */
static void say_unfinished(struct rec *r, int err)
{
	fprintf(stderr, "slimtrace: recording to %s: the final file could not be written: %s; "
		"the recorded pages are kept in %s.cpu*: `slimtrace recover %s` "
		"(or slim_record_recover()) rebuilds it\n", r->path, strerror(-err), r->path,
		r->path);
}

/* The recording SLIMTRACE_OUTPUT started: its end says if it holds nothing. */
static int env_recording;

/*
 * SLIMTRACE_OUTPUT=FILE alone records nothing: events must be enabled
 * too.  Said at the end, as the program may enable them from its code.
 * slimtrace record says it in its own summary (SLIMTRACE_EVENTS_CHECK=0).
 */
static void say_if_empty(struct rec *r)
{
	const char *ev = getenv("SLIMTRACE_EVENTS"), *check = getenv("SLIMTRACE_EVENTS_CHECK");

	if (r->d.pages || (check && !strcmp(check, "0")))
		return;
	if (!ev || !*ev)
		fprintf(stderr, "slimtrace: SLIMTRACE_OUTPUT: %s holds no event: none was enabled "
			"(set SLIMTRACE_EVENTS too, e.g. SLIMTRACE_EVENTS='*:*')\n", r->path);
	else
		fprintf(stderr, "slimtrace: SLIMTRACE_OUTPUT: %s holds no event: none of "
			"SLIMTRACE_EVENTS='%s' fired while recording\n", r->path, ev);
}

static void rec_free(struct rec *r)
{
	if (!r)
		return;
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->wake);
	pthread_cond_destroy(&r->synced);
	rec_drain_free(&r->d);
	rec_meta_free(&r->meta);
	rec_sink_close(&r->sink);
	free(r->path);
	free(r);
}

static struct rec *rec_alloc(const char *path, int version, struct slim_bufset *bufs,
			     int *err)
{
	struct rec *r = calloc(1, sizeof(*r));
	pthread_condattr_t ca;

	*err = -ENOMEM;
	if (!r)
		return NULL;
	r->version = version;
	r->path = strdup(path);
	pthread_mutex_init(&r->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->wake, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&r->synced, NULL);
	rec_meta_setup(&r->meta, rec_src_clock(bufs));
	if (!r->path || (*err = rec_sink_open(&r->sink, version, path)) ||
	    (*err = rec_drain_init(&r->d, &r->sink, bufs))) {
		rec_free(r);
		return NULL;
	}
	return r;
}

static void at_exit(void)
{
	slim_record_stop();
}

static void at_fork_prepare(void)
{
	pthread_mutex_lock(&api_lock);
}

static void at_fork_parent(void)
{
	pthread_mutex_unlock(&api_lock);
}

/* A recording still reachable, so that leak checkers do not report it. */
static struct rec *forked_away;

static void at_fork_child(void)
{
	/* The consumer did not come along: the child leaves the files alone. */
	rec_signals_detach(0);
	if (active) {
		rec_signals_remove();
		forked_away = active;
		active = NULL;
		/* Nor is the set recorded here: its instance may go (rmdir). */
		__atomic_store_n(&active_set, NULL, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&api_lock);
}

/*
 * In the library's fork plan, not a pthread_atfork of its own: handlers
 * registered later run first, so api_lock was taken before the endpoint's
 * lock, while the endpoint takes api_lock under its own (a client's
 * write of `record`): a fork at that moment deadlocked.  Added at load,
 * not at the first start: that may run under the endpoint's lock, and
 * adding takes the plan's own lock, which fork takes before it.
 */
static struct slim_fork_hook fork_hook = {
	SLIM_FORK_RECORD, at_fork_prepare, at_fork_parent, at_fork_child, NULL
};

__attribute__((constructor)) static void record_fork_ctor(void)
{
	slim_fork_hook_add(&fork_hook);
}

static void once_setup(void)
{
	atexit(at_exit);
}

/* Without the metadata yet, at least say now if the file cannot be made. */
static int check_writable(const char *path)
{
	char part[PATH_MAX];
	int fd;

	snprintf(part, sizeof(part), "%s.part", path);
	fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	close(fd);
	unlink(part);
	return 0;
}

static int check_path(const char *path)
{
	if (!path || !*path)
		return -EINVAL;
	if (strlen(path) > PATH_MAX - 32)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * A relative path is taken from the directory of now: the program may
 * chdir() while it records, and the final file must land beside the
 * pages.
 */
static int absolute(const char *path, char *buf, size_t len)
{
	size_t n;

	if (path[0] == '/') {
		snprintf(buf, len, "%s", path);
		return 0;
	}
	if (!getcwd(buf, len))
		return -errno;
	n = strlen(buf);
	if (n + 1 + strlen(path) > PATH_MAX - 32)
		return -ENAMETOOLONG;
	snprintf(buf + n, len - n, "%s%s", n && buf[n - 1] == '/' ? "" : "/", path);
	return 0;
}

/*
 * The file is put in place by rename(2), which says EBUSY for "." and
 * EISDIR for another folder: say what is wrong before that, so a
 * folder is not taken for a recording already running.
 */
static int not_a_dir(const char *path)
{
	struct stat st;
	size_t n = strlen(path);

	if ((n && path[n - 1] == '/') || (!stat(path, &st) && S_ISDIR(st.st_mode)))
		return -EISDIR;
	return 0;
}

/* SLIMTRACE_FILE_VERSION: 6 (the default) or 7. */
static int file_version(void)
{
	const char *v = getenv("SLIMTRACE_FILE_VERSION");

	if (!v || !*v)
		return DEFAULT_VERSION;
	if (!strcmp(v, "6") || !strcmp(v, "7"))
		return *v - '0';
	fprintf(stderr, "slimtrace: SLIMTRACE_FILE_VERSION=%s: not 6 or 7\n", v);
	return -EINVAL;
}

static int start(const char *rel, enum rec_meta_lock how, struct slim_bufset *bufs)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int ret = check_path(rel), version = file_version();
	char path[PATH_MAX];
	struct rec *r;

	if (!ret)
		ret = absolute(rel, path, sizeof(path));
	if (!ret)
		ret = not_a_dir(path);
	if (ret)
		return ret;
	if (version < 0)
		return version;
	pthread_once(&once, once_setup);
	pthread_mutex_lock(&api_lock);
	ret = -EBUSY;
	if (active)
		goto out;
	r = rec_alloc(path, version, bufs, &ret);
	if (!r)
		goto out;
	/*
	 * The calibration table, now: a fatal signal before the consumer's
	 * first pass would otherwise convert nothing and leave raw cycles.
	 */
	rec_stage_calibrate(&r->d.stage);
	/* A file that reads as an empty trace from the start, if we can. */
	ret = rec_refresh(r, how, 1);
	if (ret == -EAGAIN)
		ret = check_writable(r->path);
	if (ret) {
		rec_free(r);
		goto out;
	}
	ret = pthread_create(&r->thread, NULL, rec_consumer, r);
	if (ret) {
		unlink(r->path);
		rec_free(r);
		ret = -ret;
		goto out;
	}
	active = r;
	__atomic_store_n(&active_pid, getpid(), __ATOMIC_RELEASE);
	__atomic_store_n(&active_set, bufs, __ATOMIC_RELEASE);
	rec_signals_install(r);
out:
	pthread_mutex_unlock(&api_lock);
	return ret;
}

static int stop_locked(enum rec_meta_lock how);

static int stop(enum rec_meta_lock how)
{
	pthread_mutex_lock(&api_lock);
	return stop_locked(how);
}

/* With api_lock held, which it releases. */
static int stop_locked(enum rec_meta_lock how)
{
	struct rec *r;
	int ret;

	r = active;
	if (!r) {
		pthread_mutex_unlock(&api_lock);
		return -ENOENT;
	}
	pthread_mutex_lock(&r->lock);
	r->stop = 1;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	last_stats = r->st;
	have_stats = 1;
	ret = rec_finish(r, how);
	if (ret && ret != -ENODATA)
		say_unfinished(r, ret);
	else if (env_recording)
		say_if_empty(r);
	env_recording = 0;
	if (!ret)
		ret = r->err;
	rec_signals_remove();
	rec_signals_detach(1);
	active = NULL;
	__atomic_store_n(&active_set, NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&api_lock);
	rec_free(r);
	return ret;
}

static uint64_t stat_load(const uint64_t *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

SLIM_EXPORT int slim_record_get_stats(struct slim_record_stats *st)
{
	int ret = 0;

	if (!st)
		return -EINVAL;
	pthread_mutex_lock(&api_lock);
	if (active) {
		st->passes = stat_load(&active->st.passes);
		st->pages = stat_load(&active->st.pages);
		st->pass_max_ns = stat_load(&active->st.pass_max_ns);
		st->consumer_cpu_ns = stat_load(&active->st.consumer_cpu_ns);
	} else if (have_stats) {
		*st = last_stats;
	} else {
		ret = -ENOENT;
	}
	pthread_mutex_unlock(&api_lock);
	return ret;
}

SLIM_EXPORT int slim_record_start(const char *path)
{
	return start(path, REC_META_TRY, rec_src_set());
}

SLIM_EXPORT int slim_record_stop(void)
{
	return stop(REC_META_WAIT);
}

/*
 * SLIMTRACE_OUTPUT_PER_PROCESS: every process writes a file of its own,
 * OUTPUT.PID, so that the programs a script runs one after another (or
 * at once) each leave theirs.  A program exec'd in place keeps the pid,
 * so the name is claimed with O_EXCL and the next one is OUTPUT.PID-1.
 */
static int per_process_path(const char *out, char *buf, size_t len)
{
	int i, fd;

	for (i = 0; i < 1000; i++) {
		if (i)
			snprintf(buf, len, "%s.%d-%d", out, (int)getpid(), i);
		else
			snprintf(buf, len, "%s.%d", out, (int)getpid());
		fd = open(buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

static int per_process(void)
{
	const char *v = getenv("SLIMTRACE_OUTPUT_PER_PROCESS");

	return v && *v && strcmp(v, "0");
}

/*
 * The variable names this process's file: it goes from the environment,
 * so that a program this one execs (which may link slimtrace too) does
 * not record into the same file and destroy it.  Per process, it stays:
 * each program then names a file of its own.
 */
SLIM_EXPORT int slim_record_env_start(void)
{
	const char *v = getenv("SLIMTRACE_OUTPUT");
	char *path, own[PATH_MAX];
	int ret;

	if (!v || !*v)
		return 0;
	if (per_process()) {
		if (check_path(v))
			return check_path(v);
		ret = per_process_path(v, own, sizeof(own));
		if (ret)
			return ret;
		ret = start(own, REC_META_TRY, rec_src_set());
		if (ret)
			unlink(own);
		env_recording = !ret;
		return ret;
	}
	path = strdup(v);
	unsetenv("SLIMTRACE_OUTPUT");
	if (!path)
		return -ENOMEM;
	ret = start(path, REC_META_TRY, rec_src_set());
	free(path);
	env_recording = !ret;
	return ret;
}

/*
 * Before this process execs (record/exec.c): the recording ends as
 * slim_record_stop() ends it, every buffer drained and the file
 * finished, because the exec would drop the buffers and the consumer.
 * Not in a vfork child, which shares the parent's memory and must not
 * touch its recording, nor when api_lock is taken (an exec from a
 * signal handler that interrupted it): then the exec ends it as a crash
 * would.  Returns what rec_exec_failed() needs.
 */
int rec_exec_prepare(void)
{
	int again;

	if (__atomic_load_n(&active_pid, __ATOMIC_ACQUIRE) != getpid())
		return REC_EXEC_NONE;
	if (pthread_mutex_trylock(&api_lock))
		return REC_EXEC_NONE;
	if (!active) {
		pthread_mutex_unlock(&api_lock);
		return REC_EXEC_NONE;
	}
	/* Per process, the file is named anew: another can follow it. */
	again = env_recording && per_process();
	stop_locked(REC_META_TRY);
	return again ? REC_EXEC_RESTART : REC_EXEC_STOPPED;
}

/* The exec failed (errno err): the program goes on, and says so. */
void rec_exec_failed(int how, const char *what, int err)
{
	int ret;

	if (how == REC_EXEC_NONE)
		return;
	if (how == REC_EXEC_RESTART) {
		ret = slim_record_env_start();
		fprintf(stderr, "slimtrace: %s failed (%s): the recording before it "
			"ended; ", what, strerror(err));
		if (ret)
			fprintf(stderr, "no new one could start (%s): what the "
				"program records now is not written\n", strerror(-ret));
		else
			fprintf(stderr, "a new one goes on in a file of its own\n");
		return;
	}
	fprintf(stderr, "slimtrace: %s failed (%s): the recording ended before "
		"it, and what the program records now is not written\n",
		what, strerror(err));
}

SLIM_EXPORT int slim_record_sync(void)
{
	struct rec *r;
	uint64_t req;

	pthread_mutex_lock(&api_lock);
	r = active;
	if (!r) {
		pthread_mutex_unlock(&api_lock);
		return -ENOENT;
	}
	pthread_mutex_lock(&r->lock);
	req = ++r->sync_req;
	pthread_cond_signal(&r->wake);
	while (r->sync_done < req && !r->exited)
		pthread_cond_wait(&r->synced, &r->lock);
	pthread_mutex_unlock(&r->lock);
	pthread_mutex_unlock(&api_lock);
	return 0;
}

int slim_record_ctl_write(struct slim_bufset *bs, const char *text)
{
	char path[PATH_MAX];
	size_t n;
	int ret;

	while (*text == ' ' || *text == '\t' || *text == '\n')
		text++;
	n = strlen(text);
	while (n && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\n'))
		n--;
	if (n >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, text, n);
	path[n] = '\0';
	if (n && strcmp(path, "0") != 0)
		return start(path, REC_META_WAIT, bs);
	/* "0" stops this instance's recording, not another's. */
	if (!slim_record_records(bs))
		return 0;
	ret = stop(REC_META_WAIT);
	return ret == -ENOENT ? 0 : ret;
}

int slim_record_records(struct slim_bufset *bs)
{
	return __atomic_load_n(&active_set, __ATOMIC_ACQUIRE) == bs;
}

int slim_record_ctl_read(struct slim_bufset *bs, struct slim_seq *s)
{
	int ret = 0;

	pthread_mutex_lock(&api_lock);
	if (active && active->d.bufs == bs)
		ret = slim_seq_printf(s, "%s\n", active->path);
	pthread_mutex_unlock(&api_lock);
	return ret;
}
