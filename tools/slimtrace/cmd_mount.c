// SPDX-License-Identifier: MIT
/*
 * slimtrace mount DIR: every slimtrace process of this user as a
 * directory DIR/<pid>/ holding its control files, served with FUSE, so
 * that a shell reaches a running program as it reaches
 * /sys/kernel/tracing: cat, echo >, echo >>, ls, mkdir, rmdir.
 *
 * Each request opens a connection of its own to the process's endpoint
 * (docs/live.md), so the threads FUSE serves requests on share nothing
 * but the open files' state; a trace_pipe open keeps its connection and
 * streams.  Errors are the errno the control call returned in the
 * process.  Runs until DIR is unmounted (fusermount3 -u DIR) or it is
 * interrupted.  Only this user reaches the mount (FUSE's default).
 */
#ifdef SLIM_NO_FUSE

#include "cli.h"

int cmd_mount(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_fail("mount: this slimtrace was built without FUSE (libfuse3-dev)");
}

#else

#define FUSE_USE_VERSION 312
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "live.h"

/* An open file: a snapshot of its text, or a trace_pipe stream. */
struct mfile {
	int pid;
	int flags;
	int writes;
	char *path;		/* in the process's namespace */
	char *text;		/* what a read sees */
	size_t len;
	int streaming;
	struct live stream;
	char *pending;		/* streamed, not yet read */
	size_t plen, poff;
	pthread_mutex_t lock;
};

/* "/1234/events/x" -> pid 1234, "events/x"; 0 for "/", -ENOENT for others. */
static int split(const char *fpath, int *pid, const char **path)
{
	char *end;
	long v;

	*pid = 0;
	*path = "";
	if (!strcmp(fpath, "/"))
		return 0;
	v = strtol(fpath + 1, &end, 10);
	if (v <= 0 || v > 0x7fffffff || (*end && *end != '/'))
		return -ENOENT;
	*pid = (int)v;
	*path = *end ? end + 1 : "";
	return 0;
}

static int conn(struct live *l, int pid)
{
	int ret = live_open(l, pid);

	return ret == -EPERM || ret == -EACCES ? ret : (ret ? -ENOENT : 0);
}

static int m_getattr(const char *fpath, struct stat *st, struct fuse_file_info *fi)
{
	const char *path;
	struct live l;
	char kind = 'd';
	int pid, ret = split(fpath, &pid, &path);

	(void)fi;
	if (ret)
		return ret;
	memset(st, 0, sizeof(*st));
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_nlink = 1;
	if (pid) {
		ret = conn(&l, pid);
		if (ret)
			return ret;
		if (*path)
			ret = live_stat(&l, path, &kind);
		live_close(&l);
		if (ret)
			return ret;
	}
	/* Sizes are unknown until read, as in tracefs: reads go to EOF. */
	st->st_mode = kind == 'd' ? S_IFDIR | 0755 : S_IFREG | 0644;
	return 0;
}

static int fill_pids(void *buf, fuse_fill_dir_t fill)
{
	char why[512], name[16];
	int *pids, n, i;

	n = live_scan(&pids, why, sizeof(why));
	if (n < 0) {
		fprintf(stderr, "slimtrace: mount: %s\n", why);
		return n;
	}
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%d", pids[i]);
		fill(buf, name, NULL, 0, 0);
	}
	free(pids);
	return 0;
}

static int m_readdir(const char *fpath, void *buf, fuse_fill_dir_t fill, off_t off,
		     struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	char *text = NULL, *line, *save;
	const char *path;
	struct live l;
	int pid, ret = split(fpath, &pid, &path);

	(void)off;
	(void)fi;
	(void)flags;
	if (ret)
		return ret;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	if (!pid)
		return fill_pids(buf, fill);
	ret = conn(&l, pid);
	if (ret)
		return ret;
	ret = live_list(&l, path, &text);
	live_close(&l);
	if (ret)
		return ret;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t n = strlen(line);

		if (n && line[n - 1] == '/')
			line[n - 1] = '\0';
		fill(buf, line, NULL, 0, 0);
	}
	free(text);
	return 0;
}

static int is_pipe(const char *path)
{
	size_t n = strlen(path);

	return !strcmp(path, "trace_pipe") || (n > 11 && !strcmp(path + n - 11, "/trace_pipe"));
}

static void mfile_free(struct mfile *f)
{
	if (f->streaming) {
		live_stream_stop(&f->stream);
		live_close(&f->stream);
	}
	pthread_mutex_destroy(&f->lock);
	free(f->pending);
	free(f->text);
	free(f->path);
	free(f);
}

static int m_open(const char *fpath, struct fuse_file_info *fi)
{
	struct mfile *f;
	const char *path;
	struct live l;
	int pid, ret = split(fpath, &pid, &path);

	if (ret || !pid || !*path)
		return ret ? ret : -EISDIR;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return -ENOMEM;
	}
	pthread_mutex_init(&f->lock, NULL);
	f->pid = pid;
	f->flags = fi->flags;
	if ((fi->flags & O_ACCMODE) == O_RDONLY && is_pipe(path)) {
		ret = conn(&f->stream, pid);
		if (ret) {
			mfile_free(f);
			return ret;
		}
		ret = live_stream_start(&f->stream, path);
		if (ret) {
			live_close(&f->stream);
			mfile_free(f);
			return ret;
		}
		f->streaming = 1;
		fi->nonseekable = 1;
	} else if ((fi->flags & O_ACCMODE) != O_WRONLY) {
		ret = conn(&l, pid);
		if (!ret) {
			ret = live_read(&l, path, &f->text, &f->len);
			live_close(&l);
		}
		if (ret) {
			mfile_free(f);
			return ret;
		}
	}
	fi->direct_io = 1;
	fi->fh = (uint64_t)(uintptr_t)f;
	return 0;
}

/* What the stream has: waits, as a pipe does, until something comes. */
static int read_stream(struct mfile *f, char *buf, size_t size)
{
	int ret;

	while (f->poff >= f->plen) {
		char *text;
		size_t len;

		if (fuse_interrupted())
			return -EINTR;
		ret = live_stream_next(&f->stream, &text, &len, 200);
		if (ret == -EPIPE)
			return 0;	/* the process exited: end of file */
		if (ret < 0 && ret != -EINTR)
			return ret;
		if (ret == 1) {
			free(f->pending);
			f->pending = text;
			f->plen = len;
			f->poff = 0;
		}
	}
	if (size > f->plen - f->poff)
		size = f->plen - f->poff;
	memcpy(buf, f->pending + f->poff, size);
	f->poff += size;
	return (int)size;
}

static int m_read(const char *fpath, char *buf, size_t size, off_t off,
		  struct fuse_file_info *fi)
{
	struct mfile *f = (struct mfile *)(uintptr_t)fi->fh;
	int ret;

	(void)fpath;
	pthread_mutex_lock(&f->lock);
	if (f->streaming) {
		ret = read_stream(f, buf, size);
	} else if ((size_t)off >= f->len) {
		ret = 0;
	} else {
		if (size > f->len - (size_t)off)
			size = f->len - (size_t)off;
		memcpy(buf, f->text + off, size);
		ret = (int)size;
	}
	pthread_mutex_unlock(&f->lock);
	return ret;
}

/*
 * Each write(2) is one control write, as each is one parse in tracefs;
 * the first of an open without O_APPEND replaces, the rest append.
 */
static int m_write(const char *fpath, const char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct mfile *f = (struct mfile *)(uintptr_t)fi->fh;
	struct live l;
	char *text;
	int ret;

	(void)fpath;
	(void)off;
	text = malloc(size + 1);
	if (!text)
		return -ENOMEM;
	memcpy(text, buf, size);
	text[size] = '\0';
	pthread_mutex_lock(&f->lock);
	ret = conn(&l, f->pid);
	if (!ret) {
		ret = live_write(&l, f->path, text, (f->flags & O_APPEND) || f->writes);
		live_close(&l);
	}
	if (!ret)
		f->writes++;
	pthread_mutex_unlock(&f->lock);
	free(text);
	return ret ? ret : (int)size;
}

/* `: > trace` and `: > set_event` clear, as an O_TRUNC open does in tracefs. */
static int m_release(const char *fpath, struct fuse_file_info *fi)
{
	struct mfile *f = (struct mfile *)(uintptr_t)fi->fh;
	const char *base = strrchr(f->path, '/');
	struct live l;

	(void)fpath;
	base = base ? base + 1 : f->path;
	if ((f->flags & O_TRUNC) && !f->writes &&
	    (!strcmp(base, "trace") || !strcmp(base, "set_event")) && !conn(&l, f->pid)) {
		live_write(&l, f->path, "", 0);
		live_close(&l);
	}
	mfile_free(f);
	return 0;
}

/* O_TRUNC comes as a truncate to 0: the open handles it. */
static int m_truncate(const char *fpath, off_t size, struct fuse_file_info *fi)
{
	(void)fpath;
	(void)fi;
	return size ? -EINVAL : 0;
}

static int m_dirop(const char *fpath, int make)
{
	const char *path;
	struct live l;
	int pid, ret = split(fpath, &pid, &path);

	if (ret || !pid || !*path)
		return ret ? ret : -EPERM;
	ret = conn(&l, pid);
	if (ret)
		return ret;
	ret = make ? live_mkdir(&l, path) : live_rmdir(&l, path);
	live_close(&l);
	return ret;
}

static int m_mkdir(const char *fpath, mode_t mode)
{
	(void)mode;
	return m_dirop(fpath, 1);
}

static int m_rmdir(const char *fpath)
{
	return m_dirop(fpath, 0);
}

static const struct fuse_operations ops = {
	.getattr = m_getattr,
	.readdir = m_readdir,
	.open = m_open,
	.read = m_read,
	.write = m_write,
	.release = m_release,
	.truncate = m_truncate,
	.mkdir = m_mkdir,
	.rmdir = m_rmdir,
};

/* Serve until unmounted or interrupted: 0, or -1 with the reason said. */
static int serve(const char *dir)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct fuse_loop_config *cfg = NULL;
	struct fuse *fs = NULL;
	int ret = -1;

	if (fuse_opt_add_arg(&args, "slimtrace") || fuse_opt_add_arg(&args, "-o") ||
	    fuse_opt_add_arg(&args, "fsname=slimtrace,subtype=slimtrace"))
		goto out;
	fs = fuse_new(&args, &ops, sizeof(ops), NULL);
	if (!fs)
		goto out;
	/* Before the mount: an interrupt once it shows must unmount, not kill. */
	if (fuse_set_signal_handlers(fuse_get_session(fs)) != 0)
		goto out;
	if (fuse_mount(fs, dir) == 0) {
		cfg = fuse_loop_cfg_create();
		if (cfg) {
			/* A few streams at once, each holding a thread while it waits. */
			fuse_loop_cfg_set_max_threads(cfg, 32);
			ret = fuse_loop_mt(fs, cfg) < 0 ? -1 : 0;
			fuse_loop_cfg_destroy(cfg);
		}
		fuse_unmount(fs);
	}
	fuse_remove_signal_handlers(fuse_get_session(fs));
out:
	if (fs)
		fuse_destroy(fs);
	fuse_opt_free_args(&args);
	return ret;
}

int cmd_mount(int argc, char **argv)
{
	struct stat st;

	if (argc != 2 || argv[1][0] == '-')
		return cli_bad_usage("mount", "expected one argument: the directory to mount on");
	if (stat(argv[1], &st) != 0)
		return cli_fail("mount: %s: %s", argv[1], strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return cli_fail("mount: %s: not a directory", argv[1]);
	if (access("/dev/fuse", R_OK | W_OK) != 0)
		return cli_fail("mount: /dev/fuse: %s (FUSE is not usable here)", strerror(errno));
	if (serve(argv[1]))
		return cli_fail("mount: %s: FUSE could not serve it (see above)", argv[1]);
	return 0;
}

#endif /* SLIM_NO_FUSE */
