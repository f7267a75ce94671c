// SPDX-License-Identifier: MIT
/*
 * trace.dat out of an open struct tdat (tdat_write.h).  Layouts:
 * trace-cmd.dat.v6(5) and trace-cmd.dat.v7(5); docs/trace-dat.md.
 *
 * Version 7: the metadata sections, the options section (BUFFER
 * options whose offsets and sizes are patched in once the data is
 * written), one flyrecord section per buffer, then the strings.
 * Compressed, a metadata section is one zstd frame behind a u32
 * compressed and a u32 uncompressed size, and a CPU's data is a u32
 * chunk count and chunks of up to CHUNK_PAGES pages, each the same
 * pair of sizes and a frame; as trace-cmd, the CPU's size in its BUFFER
 * option leaves out the chunk count.  Options sections stay plain.
 */
#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include "tdat_write.h"

#define CHUNK_PAGES	256	/* 1 MiB of pages per compressed chunk */
#define SEC_HDR		16

enum {
	SEC_OPTIONS = 0, SEC_FLYRECORD = 3, SEC_STRINGS = 15,
	SEC_HEADERS = 16, SEC_FTRACE, SEC_FORMATS, SEC_KALLSYMS, SEC_PRINTK, SEC_CMDLINES,
};

/* A growing byte buffer in the file's byte order. */
struct out {
	struct tdat *t;
	const struct tdat_write_opts *o;
	int fd;
	uint64_t pos;			/* bytes written */
	unsigned char *b;
	size_t len, cap;
	int oom;
	ZSTD_CCtx *z;
	char *err;
	size_t errlen;
};

static int werr(struct out *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int werr(struct out *w, const char *fmt, ...)
{
	va_list ap;

	if (!w->err[0]) {
		va_start(ap, fmt);
		vsnprintf(w->err, w->errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int swap(const struct out *w)
{
	return w->t->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
}

static void put(struct out *w, const void *p, size_t n)
{
	if (n > w->cap - w->len) {
		size_t cap = (w->cap + n) * 2;
		unsigned char *b = realloc(w->b, cap);

		if (!b) {
			w->oom = 1;
			return;
		}
		w->b = b;
		w->cap = cap;
	}
	memcpy(w->b + w->len, p, n);
	w->len += n;
}

static void put16(struct out *w, uint16_t v)
{
	v = swap(w) ? bswap_16(v) : v;
	put(w, &v, 2);
}

static void put32(struct out *w, uint32_t v)
{
	v = swap(w) ? bswap_32(v) : v;
	put(w, &v, 4);
}

static void put64(struct out *w, uint64_t v)
{
	v = swap(w) ? bswap_64(v) : v;
	put(w, &v, 8);
}

static void putstr(struct out *w, const char *s)
{
	put(w, s, strlen(s) + 1);
}

static void set64(struct out *w, size_t at, uint64_t v)
{
	v = swap(w) ? bswap_64(v) : v;
	memcpy(w->b + at, &v, 8);
}

/* The buffer, written out and emptied. */
static int flush(struct out *w)
{
	size_t done = 0;
	ssize_t n;

	if (w->oom)
		return werr(w, "out of memory");
	while (done < w->len) {
		n = write(w->fd, w->b + done, w->len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return werr(w, "writing: %s", n ? strerror(errno) : "no progress");
		done += (size_t)n;
	}
	w->pos += w->len;
	w->len = 0;
	return 0;
}

static int pwrite64_at(struct out *w, uint64_t at, uint64_t v)
{
	v = swap(w) ? bswap_64(v) : v;
	if (pwrite(w->fd, &v, 8, (off_t)at) != 8)
		return werr(w, "writing at offset %llu: %s", (unsigned long long)at, strerror(errno));
	return 0;
}

static void pad_to_page(struct out *w)
{
	static const unsigned char zeros[4096];
	uint64_t at = w->pos + w->len, ps = w->t->page_size, n = (ps - at % ps) % ps;

	while (n) {
		size_t k = n > sizeof(zeros) ? sizeof(zeros) : (size_t)n;

		put(w, zeros, k);
		n -= k;
	}
}

/* ---- the metadata blocks, the same in both versions --------------------------- */

static void put_sized_text(struct out *w, const char *text, uint64_t len)
{
	put64(w, len);
	put(w, text, (size_t)len);
}

static void block_headers(struct out *w)
{
	struct tdat *t = w->t;

	put(w, "header_page", 12);
	put_sized_text(w, t->header_page, t->header_page_len);
	put(w, "header_event", 13);
	put_sized_text(w, t->header_event, t->header_event_len);
}

static void block_ftrace(struct out *w)
{
	struct tdat *t = w->t;
	uint32_t n = 0;
	int i;

	for (i = 0; i < t->nr_events; i++)
		n += t->events[i].ftrace;
	put32(w, n);
	for (i = 0; i < t->nr_events; i++)
		if (t->events[i].ftrace)
			put_sized_text(w, t->events[i].format, t->events[i].format_len);
}

static int first_of_system(struct tdat *t, int i)
{
	int j;

	for (j = 0; j < i; j++)
		if (!t->events[j].ftrace && !strcmp(t->events[j].system, t->events[i].system))
			return 0;
	return 1;
}

static void block_formats(struct out *w)
{
	struct tdat *t = w->t;
	uint32_t nsys = 0, n;
	int i, j;

	for (i = 0; i < t->nr_events; i++)
		nsys += !t->events[i].ftrace && first_of_system(t, i);
	put32(w, nsys);
	for (i = 0; i < t->nr_events; i++) {
		if (t->events[i].ftrace || !first_of_system(t, i))
			continue;
		putstr(w, t->events[i].system);
		for (n = 0, j = i; j < t->nr_events; j++)
			n += !t->events[j].ftrace && !strcmp(t->events[j].system, t->events[i].system);
		put32(w, n);
		for (j = i; j < t->nr_events; j++)
			if (!t->events[j].ftrace && !strcmp(t->events[j].system, t->events[i].system))
				put_sized_text(w, t->events[j].format, t->events[j].format_len);
	}
}

static void block_kallsyms(struct out *w)
{
	put32(w, w->t->kallsyms_len);
	put(w, w->t->kallsyms, w->t->kallsyms_len);
}

static void block_printk(struct out *w)
{
	put32(w, w->t->printk_len);
	put(w, w->t->printk, w->t->printk_len);
}

static void block_cmdlines(struct out *w)
{
	put_sized_text(w, w->t->cmdlines, w->t->cmdlines_len);
}

static void (*const blocks[])(struct out *w) = {
	block_headers, block_ftrace, block_formats, block_kallsyms, block_printk, block_cmdlines,
};

/* The options carried over: all but those that say where things are. */
static int carried(unsigned int id)
{
	return id != TDAT_OPT_BUFFER && !(id >= TDAT_OPT_HEADER_INFO && id <= TDAT_OPT_CMDLINES);
}

static void put_options(struct out *w)
{
	struct tdat *t = w->t;
	int i;

	for (i = 0; i < t->nr_options; i++) {
		if (!carried(t->options[i].id))
			continue;
		put16(w, (uint16_t)t->options[i].id);
		put32(w, t->options[i].size);
		put(w, t->options[i].data, t->options[i].size);
	}
}

/* ---- CPU data ------------------------------------------------------------------ */

/* Copy a CPU's pages as they are: the bytes written, or -1. */
static int64_t copy_pages(struct out *w, int slot)
{
	struct tdat_cursor c;
	const uint8_t *page;
	int64_t n = 0;
	int ret;

	if (tdat_cursor_init(&c, w->t, slot))
		return werr(w, "%s", w->t->err);
	while ((ret = tdat_cursor_page(&c, &page)) > 0) {
		put(w, page, w->t->page_size);
		n += w->t->page_size;
		if (w->len >= (1u << 20) && flush(w)) {
			ret = -1;
			break;
		}
	}
	if (ret < 0 && !w->err[0])
		werr(w, "%s", w->t->err);
	tdat_cursor_fini(&c);
	return ret < 0 || flush(w) ? -1 : n;
}

/* One zstd frame of src behind u32 compressed and u32 uncompressed sizes. */
static int put_frame(struct out *w, const void *src, size_t len)
{
	size_t bound = ZSTD_compressBound(len), got;
	unsigned char *dst = malloc(bound ? bound : 1);

	if (!dst)
		return werr(w, "out of memory");
	got = ZSTD_compressCCtx(w->z, dst, bound, src, len, w->o->level ? w->o->level : ZSTD_CLEVEL_DEFAULT);
	if (ZSTD_isError(got)) {
		free(dst);
		return werr(w, "zstd: %s", ZSTD_getErrorName(got));
	}
	put32(w, (uint32_t)got);
	put32(w, (uint32_t)len);
	put(w, dst, got);
	free(dst);
	return 0;
}

/* A CPU's pages in compressed chunks: the size (without the count), or -1. */
static int64_t compress_pages(struct out *w, int slot)
{
	size_t chunk_len = (size_t)CHUNK_PAGES * w->t->page_size, used = 0;
	unsigned char *chunk = malloc(chunk_len);
	uint64_t count_at = w->pos + w->len, start;
	struct tdat_cursor c;
	const uint8_t *page;
	uint32_t chunks = 0;
	int ret;

	if (!chunk || tdat_cursor_init(&c, w->t, slot)) {
		free(chunk);
		return werr(w, "%s", chunk ? w->t->err : "out of memory");
	}
	put32(w, 0);
	start = w->pos + w->len;
	for (;;) {
		ret = tdat_cursor_page(&c, &page);
		if (ret > 0) {
			memcpy(chunk + used, page, w->t->page_size);
			used += w->t->page_size;
		}
		if (used && (ret <= 0 || used == chunk_len)) {
			if (put_frame(w, chunk, used) || flush(w)) {
				ret = -1;
				break;
			}
			chunks++;
			used = 0;
		}
		if (ret <= 0)
			break;
	}
	if (ret < 0 && !w->err[0])
		werr(w, "%s", w->t->err);
	tdat_cursor_fini(&c);
	free(chunk);
	if (ret < 0 || flush(w))
		return -1;
	if (pwrite(w->fd, &(uint32_t){ swap(w) ? bswap_32(chunks) : chunks }, 4, (off_t)count_at) != 4)
		return werr(w, "writing: %s", strerror(errno));
	return (int64_t)(w->pos - start);
}

/* ---- version 6 --------------------------------------------------------------------- */

/* The one buffer a version 6 file can hold: the only one with data. */
static int v6_buffer(struct out *w)
{
	struct tdat *t = w->t;
	int i, b = -1;

	for (i = 0; i < t->nr_cpus; i++) {
		if (!t->cpus[i].size || t->cpus[i].buffer == b)
			continue;
		if (b >= 0)
			return werr(w, "buffers \"%s\" and \"%s\" both have data: a version 6 file "
				    "holds one (write version 7)", t->buffers[b].name,
				    t->buffers[t->cpus[i].buffer].name);
		b = t->cpus[i].buffer;
	}
	return b < 0 ? 0 : b;
}

static int write_v6(struct out *w)
{
	struct tdat *t = w->t;
	const struct tdat_option *clock = tdat_option(t, TDAT_OPT_TRACECLOCK);
	int b = v6_buffer(w), i, n = 0, k;
	size_t table;
	int64_t size;
	uint64_t at;

	if (b < 0)
		return -1;
	for (i = 0; i < t->nr_cpus; i++)
		n += t->cpus[i].buffer == b;
	for (i = 0; i < 6; i++)
		blocks[i](w);
	put32(w, (uint32_t)n);
	put(w, "options  ", 10);
	put_options(w);
	put16(w, 0);
	put(w, "flyrecord", 10);
	table = w->len;
	for (i = 0; i < 2 * n; i++)
		put64(w, 0);
	if (clock) {
		size_t len = strnlen(clock->data, clock->size);

		put64(w, len);
		put(w, clock->data, len);
	}
	pad_to_page(w);
	at = w->pos + table;
	if (flush(w))
		return -1;
	for (i = 0, k = 0; i < t->nr_cpus; i++) {
		if (t->cpus[i].buffer != b)
			continue;
		if (pwrite64_at(w, at + 16 * k, w->pos))
			return -1;
		size = copy_pages(w, i);
		if (size < 0 || pwrite64_at(w, at + 16 * k + 8, (uint64_t)size))
			return -1;
		k++;
	}
	return 0;
}

/* ---- version 7 --------------------------------------------------------------------- */

static const char strings[] = "headers\0ftrace events\0events format\0kallsyms\0printk\0"
	"command lines\0options\0buffer flyrecord\0strings";
static const uint32_t sec_str[] = { 0, 8, 22, 36, 45, 52 };
enum { STR_OPTIONS = 66, STR_FLY = 74, STR_STRINGS = 91 };

static size_t sec_header(struct out *w, uint16_t id, uint16_t flags, uint32_t desc)
{
	size_t at;

	put16(w, id);
	put16(w, flags);
	put32(w, desc);
	at = w->len;
	put64(w, 0);
	return at;
}

/* A metadata section: its block, compressed or not. */
static int meta_section(struct out *w, int i, uint64_t *offset)
{
	struct out blk = *w;
	size_t size_at;

	*offset = w->pos + w->len;
	size_at = sec_header(w, (uint16_t)(SEC_HEADERS + i), w->o->zstd, sec_str[i]);
	blk.b = NULL;
	blk.len = blk.cap = 0;
	blk.oom = 0;
	blocks[i](&blk);
	if (blk.oom) {
		free(blk.b);
		return werr(w, "out of memory");
	}
	if (w->o->zstd) {
		if (put_frame(w, blk.b, blk.len)) {
			free(blk.b);
			return -1;
		}
	} else {
		put(w, blk.b, blk.len);
	}
	free(blk.b);
	set64(w, size_at, w->pos + w->len - (size_at + 8 + w->pos));
	return 0;
}

/* Where a buffer's BUFFER option holds the places patched once known. */
struct v7_buf {
	uint64_t fly_at;	/* file offset of the flyrecord offset */
	uint64_t cpus_at;	/* of the first CPU entry (u32 id, u64 offset, u64 size) */
};

/* A buffer's flyrecord section; its CPUs' places patched into the option. */
static int fly_section(struct out *w, int b, const struct v7_buf *vb)
{
	struct tdat *t = w->t;
	uint64_t start = w->pos + w->len, at;
	int64_t size;
	int i, k = 0;

	sec_header(w, SEC_FLYRECORD, (uint16_t)w->o->zstd, STR_FLY);
	if (flush(w) || pwrite64_at(w, vb->fly_at, start))
		return -1;
	for (i = 0; i < t->nr_cpus; i++) {
		if (t->cpus[i].buffer != b)
			continue;
		pad_to_page(w);
		if (flush(w))
			return -1;
		at = w->pos;
		size = w->o->zstd ? compress_pages(w, i) : copy_pages(w, i);
		if (size < 0 || pwrite64_at(w, vb->cpus_at + 20 * k + 4, at) ||
		    pwrite64_at(w, vb->cpus_at + 20 * k + 12, (uint64_t)size))
			return -1;
		k++;
	}
	return pwrite64_at(w, start + 8, w->pos - start - SEC_HDR);
}

static void put_buffer_option(struct out *w, int b, struct v7_buf *vb)
{
	struct tdat *t = w->t;
	const char *clock = t->buffers[b].clock[0] ? t->buffers[b].clock : t->clock;
	uint32_t len;
	size_t at;
	int i, n = 0;

	for (i = 0; i < t->nr_cpus; i++)
		n += t->cpus[i].buffer == b;
	put16(w, TDAT_OPT_BUFFER);
	at = w->len;
	put32(w, 0);
	vb->fly_at = w->pos + w->len;
	put64(w, 0);
	putstr(w, t->buffers[b].name);
	putstr(w, clock[0] ? clock : "local");
	put32(w, t->page_size);
	put32(w, (uint32_t)n);
	vb->cpus_at = w->pos + w->len;
	for (i = 0; i < t->nr_cpus; i++) {
		if (t->cpus[i].buffer != b)
			continue;
		put32(w, (uint32_t)t->cpus[i].cpu);
		put64(w, 0);
		put64(w, 0);
	}
	len = (uint32_t)(w->len - at - 4);
	len = swap(w) ? bswap_32(len) : len;
	if (!w->oom)
		memcpy(w->b + at, &len, 4);
}

/*
 * The options go before the data, their offsets and sizes patched in
 * after: a file cut short still says what its buffers are.
 */
static int write_v7(struct out *w)
{
	struct tdat *t = w->t;
	struct v7_buf *vb = calloc(t->nr_bufs ? t->nr_bufs : 1, sizeof(*vb));
	uint64_t sec[6];
	size_t size_at, first_at;
	int i, b, ret = -1;

	if (!vb)
		return werr(w, "out of memory");
	putstr(w, w->o->zstd ? "zstd" : "none");
	putstr(w, w->o->zstd ? ZSTD_versionString() : "");
	first_at = w->len;
	put64(w, 0);
	for (i = 0; i < 6; i++)
		if (meta_section(w, i, &sec[i]))
			goto out;
	set64(w, first_at, w->pos + w->len);
	size_at = sec_header(w, SEC_OPTIONS, 0, STR_OPTIONS);
	for (i = 0; i < 6; i++) {
		put16(w, (uint16_t)(SEC_HEADERS + i));
		put32(w, 8);
		put64(w, sec[i]);
	}
	put_options(w);
	for (b = 0; b < t->nr_bufs; b++)
		put_buffer_option(w, b, &vb[b]);
	put16(w, 0);
	put32(w, 8);
	put64(w, 0);
	if (w->oom) {
		werr(w, "out of memory");
		goto out;
	}
	set64(w, size_at, w->len - size_at - 8);
	for (b = 0; b < t->nr_bufs; b++)
		if (fly_section(w, b, &vb[b]))
			goto out;
	size_at = sec_header(w, SEC_STRINGS, (uint16_t)w->o->zstd, STR_STRINGS);
	if (w->o->zstd ? put_frame(w, strings, sizeof(strings)) : (put(w, strings, sizeof(strings)), 0))
		goto out;
	set64(w, size_at, w->len - size_at - 8);
	ret = flush(w);
out:
	free(vb);
	return ret;
}

int tdat_write(struct tdat *t, const char *path, const struct tdat_write_opts *o,
	       char *err, size_t errlen)
{
	struct out w = { .t = t, .o = o, .fd = -1, .err = err, .errlen = errlen };
	char part[4096];
	uint32_t ps;
	int ret;

	err[0] = '\0';
	if (o->version != 6 && o->version != 7)
		return werr(&w, "no trace.dat version %d (6 or 7)", o->version);
	if (o->zstd && o->version != 7)
		return werr(&w, "version 6 cannot be compressed");
	if (o->zstd && !(w.z = ZSTD_createCCtx()))
		return werr(&w, "out of memory");
	snprintf(part, sizeof(part), "%s.part", path);
	w.fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w.fd < 0) {
		ZSTD_freeCCtx(w.z);
		return werr(&w, "cannot create %s: %s", part, strerror(errno));
	}
	put(&w, "\x17\x08\x44tracing", 10);
	putstr(&w, o->version == 7 ? "7" : "6");
	put(&w, &(unsigned char){ (unsigned char)t->big_endian }, 1);
	put(&w, &(unsigned char){ (unsigned char)t->long_size }, 1);
	ps = t->page_size;
	put32(&w, ps);
	ret = o->version == 7 ? write_v7(&w) : write_v6(&w);
	if (!ret)
		ret = flush(&w);
	if (close(w.fd) && !ret)
		ret = werr(&w, "closing %s: %s", part, strerror(errno));
	if (!ret && rename(part, path))
		ret = werr(&w, "renaming %s: %s", part, strerror(errno));
	if (ret)
		unlink(part);
	free(w.b);
	ZSTD_freeCCtx(w.z);
	return ret;
}
