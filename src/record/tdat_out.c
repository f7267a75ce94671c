// SPDX-License-Identifier: MIT
/*
 * The files of a trace.dat recording and the parts both versions write
 * (tdat_out.h).  Everything but begin and reopen is async-signal-safe
 * (cpus with in_signal set): a fatal signal handler finishes the file
 * with it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "record/rec.h"
#include "record/tdat_out.h"

#define PAGE		SLIM_PAGE_SIZE
#define STAT_ROOM	256	/* tail bytes per CPU: CPUSTAT, index, BUFFER entry */

void wb_put(struct wbuf *w, const void *s, size_t n)
{
	if (!n)
		return;
	if (n > w->cap - w->len) {
		w->over = 1;
		return;
	}
	memcpy(w->p + w->len, s, n);
	w->len += n;
}

void wb_str(struct wbuf *w, const char *s)
{
	wb_put(w, s, strlen(s));
}

void wb_u16(struct wbuf *w, uint16_t v)
{
	wb_put(w, &v, sizeof(v));
}

void wb_u32(struct wbuf *w, uint32_t v)
{
	wb_put(w, &v, sizeof(v));
}

void wb_u64(struct wbuf *w, uint64_t v)
{
	wb_put(w, &v, sizeof(v));
}

void wb_dec(struct wbuf *w, uint64_t v)
{
	char buf[24];
	int i = sizeof(buf);

	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	wb_put(w, buf + i, sizeof(buf) - (size_t)i);
}

void wb_option(struct wbuf *w, uint16_t id, const void *data, uint32_t len)
{
	wb_u16(w, id);
	wb_u32(w, len);
	wb_put(w, data, len);
}

/* An option whose size is known once its text is written. */
static size_t opt_open(struct wbuf *w, uint16_t id)
{
	size_t at;

	wb_u16(w, id);
	at = w->len;
	wb_u32(w, 0);
	return at;
}

static void opt_close(struct wbuf *w, size_t at)
{
	uint32_t len = (uint32_t)(w->len - at - 4);

	if (!w->over)
		memcpy(w->p + at, &len, sizeof(len));
}

/* One CPU's statistics, in the kernel's per_cpu/cpuN/stats words. */
static void put_cpustat(struct wbuf *w, int cpu, const struct rec_cpu_stat *cs)
{
	size_t at = opt_open(w, TDAT_OPT_CPUSTAT);

	wb_str(w, "CPU: ");
	wb_dec(w, (uint64_t)cpu);
	wb_str(w, "\nentries: ");
	wb_dec(w, cs->st.entries);
	wb_str(w, "\noverrun: ");
	wb_dec(w, cs->st.overwritten);
	wb_str(w, "\ndropped events: ");
	wb_dec(w, cs->st.dropped);
	wb_str(w, "\nread events: ");
	wb_dec(w, cs->read);
	wb_put(w, "\n", 2);
	opt_close(w, at);
}

void wb_cpustats(struct wbuf *w, const struct rec_end *e)
{
	static const char note[] = "recovered after the recording process died: "
		"lost events are the ones marked in the pages\n";
	size_t at;
	int i;

	if (!e)
		return;
	if (e->kind == REC_END_RECOVERED) {
		wb_option(w, TDAT_OPT_CPUSTAT, note, sizeof(note));
		return;
	}
	for (i = 0; i < e->nr_cpus; i++)
		put_cpustat(w, i, &e->cpu[i]);
	if (!e->lost_nobuf)
		return;
	at = opt_open(w, TDAT_OPT_CPUSTAT);
	wb_str(w, "events lost for want of a buffer: ");
	wb_dec(w, e->lost_nobuf);
	wb_put(w, "\n", 2);
	opt_close(w, at);
}

/* n bytes at off, or at the file's position when off < 0. */
static int put_all(int fd, const void *buf, size_t n, int64_t off)
{
	const char *p = buf;
	ssize_t w;

	while (n) {
		w = off < 0 ? write(fd, p, n) : pwrite(fd, p, n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		p += w;
		n -= (size_t)w;
		if (off >= 0)
			off += w;
	}
	return 0;
}

int write_all(int fd, const void *buf, size_t n)
{
	return put_all(fd, buf, n, -1);
}

/* o->name = PATH.cpuN */
static const char *cpu_file(struct tdat_out *o, int cpu)
{
	struct wbuf w = { (unsigned char *)o->name, o->path_len, o->path_len + 32, 0 };

	wb_str(&w, ".cpu");
	wb_dec(&w, (uint64_t)cpu);
	wb_put(&w, "", 1);
	return o->name;
}

int tdat_out_begin(struct tdat_out *o, const char *path)
{
	size_t len = strlen(path);

	memset(o, 0, sizeof(*o));
	o->reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
	o->path_len = len;
	o->path = strdup(path);
	o->part = malloc(len + 6);
	o->name = malloc(len + 32);
	o->copy = malloc((size_t)REC_BATCH * PAGE);
	if (!o->path || !o->part || !o->name || !o->copy || tdat_out_cpus(o, 0, 0))
		return -ENOMEM;
	memcpy(o->name, path, len + 1);
	memcpy(o->part, path, len);
	memcpy(o->part + len, ".part", 6);
	return 0;
}

void tdat_out_end(struct tdat_out *o)
{
	int i;

	for (i = 0; i < o->cap; i++)
		if (o->fd[i] >= 0)
			close(o->fd[i]);
	if (o->reserve >= 0)
		close(o->reserve);
	free(o->path);
	free(o->part);
	free(o->name);
	rec_release(o->fd);
	rec_release(o->bytes);
	rec_release(o->used);
	rec_release(o->tail);
	free(o->copy);
	free(o->file);
	memset(o, 0, sizeof(*o));
	o->reserve = -1;
}

/* Each array to cap entries: 0, or -ENOMEM with the old ones kept. */
static int grow_arrays(struct tdat_out *o, int cap, int in_signal)
{
	size_t old = (size_t)o->cap, n = (size_t)cap;
	size_t tail_cap = 2048 + n * STAT_ROOM;
	unsigned char *tail;
	uint64_t *bytes, *used;
	int *fd;

	fd = rec_grow(o->fd, old * sizeof(*fd), n * sizeof(*fd), in_signal);
	if (!fd)
		return -ENOMEM;
	o->fd = fd;
	bytes = rec_grow(o->bytes, old * sizeof(*bytes), n * sizeof(*bytes), in_signal);
	if (!bytes)
		return -ENOMEM;
	o->bytes = bytes;
	used = rec_grow(o->used, old * sizeof(*used), n * sizeof(*used), in_signal);
	if (!used)
		return -ENOMEM;
	o->used = used;
	tail = rec_grow(o->tail, o->tail_cap, tail_cap, in_signal);
	if (!tail)
		return -ENOMEM;
	o->tail = tail;
	o->tail_cap = tail_cap;
	return 0;
}

int tdat_out_cpus(struct tdat_out *o, int nr, int in_signal)
{
	int cap = 2 * nr + 16, i, old = o->cap;

	/* Room to spare: a burst of new threads comes all at once. */
	if (nr > o->cap || !o->cap) {
		if (grow_arrays(o, cap, in_signal))
			return -ENOMEM;
		for (i = old; i < cap; i++) {
			o->fd[i] = -1;
			o->bytes[i] = 0;
			o->used[i] = 0;
		}
		o->cap = cap;
	}
	if (nr > o->nr)
		o->nr = nr;
	return 0;
}

/* Close the spool file written longest ago; 0 if none was open. */
static int close_oldest(struct tdat_out *o)
{
	int i, old = -1;

	for (i = 0; i < o->cap; i++)
		if (o->fd[i] >= 0 && (old < 0 || o->used[i] < o->used[old]))
			old = i;
	if (old < 0)
		return 0;
	close(o->fd[old]);
	o->fd[old] = -1;
	o->nr_open--;
	return 1;
}

/* open(2), making room among our own descriptors when there are none left. */
static int open_room(struct tdat_out *o, const char *name, int flags)
{
	int fd;

	for (;;) {
		fd = open(name, flags | O_CLOEXEC, 0644);
		if (fd >= 0 || (errno != EMFILE && errno != ENFILE))
			return fd;
		if (close_oldest(o))
			continue;
		if (o->reserve < 0)
			return -1;
		close(o->reserve);
		o->reserve = -1;
	}
}

/* CPU cpu's spool file, open: its descriptor or -errno. */
static int cpu_fd(struct tdat_out *o, int cpu)
{
	int flags = o->file ? O_RDONLY : O_RDWR;

	if (o->fd[cpu] >= 0)
		return o->fd[cpu];
	if (o->nr_open >= TDAT_OPEN_MAX)
		close_oldest(o);
	if (!o->used[cpu])
		flags |= O_CREAT | O_TRUNC;
	o->fd[cpu] = open_room(o, cpu_file(o, cpu), flags);
	if (o->fd[cpu] < 0)
		return -errno;
	o->nr_open++;
	if (!o->used[cpu])
		o->used[cpu] = ++o->tick;
	return o->fd[cpu];
}

int tdat_out_page(struct tdat_out *o, int cpu, const void *pages, size_t n)
{
	int fd, ret;

	if (cpu < 0 || cpu >= o->cap)
		return 0;	/* no room: cannot happen with cpus() called */
	fd = cpu_fd(o, cpu);
	if (fd < 0)
		return fd;
	o->used[cpu] = ++o->tick;
	if (cpu >= o->nr)
		o->nr = cpu + 1;
	ret = put_all(fd, pages, n * PAGE, (int64_t)o->bytes[cpu]);
	if (!ret)
		o->bytes[cpu] += (uint64_t)n * PAGE;
	return ret;
}

static int copy_slow(struct tdat_out *o, int in, uint64_t off, uint64_t len, int out)
{
	size_t chunk = (size_t)REC_BATCH * PAGE;
	ssize_t n;
	int ret;

	while (off < len) {
		n = pread(in, o->copy, len - off < chunk ? (size_t)(len - off) : chunk, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		ret = write_all(out, o->copy, (size_t)n);
		if (ret)
			return ret;
		off += (uint64_t)n;
	}
	return 0;
}

int tdat_out_copy(struct tdat_out *o, int cpu, int out)
{
	uint64_t len = o->bytes[cpu];
	int in = cpu_fd(o, cpu);
	loff_t off = 0;
	ssize_t n;

	if (in < 0)
		return in;
	while ((uint64_t)off < len) {
		n = copy_file_range(in, &off, out, NULL, (size_t)(len - (uint64_t)off), 0);
		if (n > 0)
			continue;
		if (n == 0)
			return -EIO;
		if (errno == EINTR)
			continue;
		if (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
		    errno == EOPNOTSUPP || errno == EBADF)
			return copy_slow(o, in, (uint64_t)off, len, out);
		return -errno;
	}
	return 0;
}

int tdat_out_commit(struct tdat_out *o, int (*write)(struct tdat_out *o, int fd, void *arg),
		    void *arg)
{
	int fd, ret;

	fd = open_room(o, o->part, O_WRONLY | O_CREAT | O_TRUNC);
	if (fd < 0)
		return -errno;
	ret = write(o, fd, arg);
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(o->part, o->path))
		ret = -errno;
	if (ret)
		unlink(o->part);
	return ret;
}

void tdat_out_remove_spool(struct tdat_out *o)
{
	int i;

	for (i = 0; i < o->cap; i++) {
		if (!o->used[i])
			continue;
		if (o->fd[i] >= 0) {
			close(o->fd[i]);
			o->fd[i] = -1;
			o->nr_open--;
		}
		o->used[i] = 0;
		unlink(cpu_file(o, i));
	}
}

/* ---- recovery: the files a dead recording left -------------------------- */

static int read_whole(const char *path, unsigned char **buf, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size <= 0)
		ret = -EINVAL;
	else if (!(*buf = malloc((size_t)st.st_size)))
		ret = -ENOMEM;
	else if (pread(fd, *buf, (size_t)st.st_size, 0) != st.st_size)
		ret = -EIO;
	else
		*len = (size_t)st.st_size;
	if (ret) {
		free(*buf);
		*buf = NULL;
	}
	close(fd);
	return ret;
}

/* The number N of a directory entry named base.cpuN; -1 if it is not one. */
static int cpu_number(const char *entry, const char *base)
{
	size_t n = strlen(base);
	char *end;
	long v;

	if (strncmp(entry, base, n) || strncmp(entry + n, ".cpu", 4))
		return -1;
	entry += n + 4;
	if (*entry < '0' || *entry > '9')
		return -1;
	v = strtol(entry, &end, 10);
	return *end || v > 65535 ? -1 : (int)v;
}

static int open_spool(struct tdat_out *o)
{
	char *slash = strrchr(o->path, '/');
	char dir[PATH_MAX];
	const char *base = slash ? slash + 1 : o->path;
	struct dirent *d;
	struct stat st;
	DIR *dp;
	int cpu, ret = 0;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - o->path) + 1 : 1,
		 slash ? o->path : ".");
	dp = opendir(dir);
	if (!dp)
		return -errno;
	while (!ret && (d = readdir(dp))) {
		cpu = cpu_number(d->d_name, base);
		if (cpu < 0)
			continue;
		if (tdat_out_cpus(o, cpu + 1, 0)) {
			ret = -ENOMEM;
			break;
		}
		if (stat(cpu_file(o, cpu), &st)) {
			ret = -errno;
			break;
		}
		/* Opened when copied: as many as there are, a few at a time. */
		o->used[cpu] = ++o->tick;
		/* A page cut short by the kill is dropped. */
		o->bytes[cpu] = (uint64_t)st.st_size / PAGE * PAGE;
		if (cpu >= o->nr)
			o->nr = cpu + 1;
	}
	closedir(dp);
	return ret ? ret : o->nr;
}

int tdat_out_reopen(struct tdat_out *o)
{
	int ret = read_whole(o->path, &o->file, &o->file_len);

	if (ret) {
		if (ret == -EINVAL)
			fprintf(stderr, "slimtrace: recover %s: empty file\n", o->path);
		return ret;
	}
	return open_spool(o);
}
