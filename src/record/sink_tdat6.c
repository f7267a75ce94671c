// SPDX-License-Identifier: MIT
/*
 * The trace.dat version 6 sink (trace-cmd.dat.v6(5)): the metadata one
 * part after the other, the options, the CPU table, the pages.
 * docs/trace-dat.md has the layout and why the clock is in two places.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record/rec.h"
#include "record/tdat_out.h"
#include "record/tdat_sink.h"

#define PAGE	SLIM_PAGE_SIZE

static const unsigned char zeros[PAGE];

/* Everything after the cmdlines; *index_at: where the CPU table starts. */
static size_t build_tail(struct tdat_out *o, const struct rec_meta *m,
			 const struct rec_end *e, int nr, size_t *index_at)
{
	struct wbuf w = { o->tail, 0, o->tail_cap, 0 };
	int i;

	wb_u32(&w, (uint32_t)nr);
	wb_put(&w, "options  ", 10);
	/*
	 * TRACECLOCK, with the clock text (trace-cmd 3.1 parses it; an empty
	 * one makes it parse whatever memory it got), which a v6 reader also
	 * finds after the CPU table.
	 */
	wb_option(&w, TDAT_OPT_TRACECLOCK, m->clock, (uint32_t)strlen(m->clock) + 1);
	if (m->uname[0])
		wb_option(&w, TDAT_OPT_UNAME, m->uname, (uint32_t)strlen(m->uname) + 1);
	wb_cpustats(&w, e);
	wb_u16(&w, TDAT_OPT_DONE);
	wb_put(&w, "flyrecord", 10);
	*index_at = w.len;
	for (i = 0; i < nr; i++) {
		wb_u64(&w, 0);
		wb_u64(&w, 0);
	}
	wb_u64(&w, strlen(m->clock));
	wb_str(&w, m->clock);
	return w.over ? 0 : w.len;
}

static void fill_index(struct tdat_out *o, size_t index_at, uint64_t start, int nr, int data)
{
	unsigned char *p = o->tail + index_at;
	uint64_t off = start, size;
	int i;

	for (i = 0; i < nr; i++) {
		size = data && i < o->nr ? o->bytes[i] : 0;
		memcpy(p, &off, 8);
		memcpy(p + 8, &size, 8);
		p += 16;
		off += size;
	}
}

static int write_v6(struct tdat_out *o, int fd, void *arg)
{
	const struct tdat_job *job = arg;
	const struct rec_meta *m = job->m;
	size_t index_at, tail_len, head, i;
	unsigned char init[32];
	uint64_t start, len;
	int nr = tdat_cpu_count(o, job->e), ret, c;

	tail_len = build_tail(o, m, job->e, nr, &index_at);
	if (!tail_len)
		return -ENOMEM;
	head = tdat_initial(init, 6) + 8 + m->cmdlines_len + tail_len;
	for (i = 0; i < REC_BLOCKS; i++)
		head += m->len[i];
	start = (head + PAGE - 1) / PAGE * PAGE;
	fill_index(o, index_at, start, nr, job->e != NULL);
	ret = write_all(fd, init, tdat_initial(init, 6));
	for (i = 0; !ret && i < REC_BLOCKS; i++)
		ret = write_all(fd, m->block[i], m->len[i]);
	len = m->cmdlines_len;
	if (!ret)
		ret = write_all(fd, &len, sizeof(len));
	if (!ret)
		ret = write_all(fd, m->cmdlines, m->cmdlines_len);
	if (!ret)
		ret = write_all(fd, o->tail, tail_len);
	if (!ret)
		ret = write_all(fd, zeros, (size_t)(start - head));
	for (c = 0; !ret && job->e && c < o->nr; c++)
		if (o->bytes[c])
			ret = tdat_out_copy(o, c, fd);
	return ret;
}

/* ---- reading back the header a recording wrote ----------------------------- */

struct reader {
	const unsigned char *p;
	size_t len, off;
	const char *err;
};

static int rd_skip(struct reader *rd, uint64_t n, const char *what)
{
	if (rd->err)
		return -1;
	if (n > rd->len - rd->off) {
		rd->err = what;
		return -1;
	}
	rd->off += (size_t)n;
	return 0;
}

/* A number of 2, 4 or 8 bytes in the host's order. */
static uint64_t rd_num(struct reader *rd, size_t size, const char *what)
{
	uint16_t v2;
	uint32_t v4;
	uint64_t v8;

	if (rd->err || size > rd->len - rd->off) {
		if (!rd->err)
			rd->err = what;
		return 0;
	}
	memcpy(size == 2 ? (void *)&v2 : size == 4 ? (void *)&v4 : (void *)&v8,
	       rd->p + rd->off, size);
	rd->off += size;
	return size == 2 ? v2 : size == 4 ? v4 : v8;
}

static void rd_expect(struct reader *rd, const void *s, size_t n, const char *what)
{
	if (!rd->err && (n > rd->len - rd->off || memcmp(rd->p + rd->off, s, n)))
		rd->err = what;
	else
		rd_skip(rd, n, what);
}

/* Skip sized texts: a u32 count of them, each sized in 8 bytes. */
static void rd_texts(struct reader *rd, const char *what)
{
	uint64_t n = rd_num(rd, 4, what);

	while (!rd->err && n--)
		rd_skip(rd, rd_num(rd, 8, what), what);
}

static void rd_block(struct reader *rd, struct rec_meta *m, int b, size_t from)
{
	m->block[b] = rd->p + from;
	m->len[b] = rd->off - from;
}

/* The metadata of a header this sink wrote; 0 or -1 with rd->err set. */
static int parse_meta(struct reader *rd, struct rec_meta *m)
{
	unsigned char init[32];
	size_t at;
	uint64_t nsys, len;

	rd_expect(rd, init, tdat_initial(init, 6), "not a version 6 trace.dat of this host");
	at = rd->off;
	rd_expect(rd, "header_page", 12, "no header_page");
	rd_skip(rd, rd_num(rd, 8, "header_page size"), "header_page text");
	rd_expect(rd, "header_event", 13, "no header_event");
	rd_skip(rd, rd_num(rd, 8, "header_event size"), "header_event text");
	rd_block(rd, m, REC_BLK_HEADERS, at);
	at = rd->off;
	rd_texts(rd, "ftrace formats");
	rd_block(rd, m, REC_BLK_FTRACE, at);
	at = rd->off;
	nsys = rd_num(rd, 4, "event systems");
	while (!rd->err && nsys--) {
		const void *nul = memchr(rd->p + rd->off, 0, rd->len - rd->off);

		if (!nul) {
			rd->err = "system name";
			break;
		}
		rd->off = (size_t)((const unsigned char *)nul - rd->p) + 1;
		rd_texts(rd, "event formats");
	}
	rd_block(rd, m, REC_BLK_FORMATS, at);
	at = rd->off;
	rd_skip(rd, rd_num(rd, 4, "kallsyms size"), "kallsyms");
	rd_block(rd, m, REC_BLK_KALLSYMS, at);
	at = rd->off;
	rd_skip(rd, rd_num(rd, 4, "printk size"), "printk formats");
	rd_block(rd, m, REC_BLK_PRINTK, at);
	len = rd_num(rd, 8, "cmdlines size");
	m->cmdlines = (const char *)rd->p + rd->off;
	m->cmdlines_len = (size_t)len;
	rd_skip(rd, len, "cmdlines");
	return rd->err ? -1 : 0;
}

/* The trace clock from the rest of the header written while recording. */
static void parse_clock(struct reader *rd, char *clock, size_t cap)
{
	uint64_t cpus, len;

	cpus = rd_num(rd, 4, "cpus");
	rd_expect(rd, "options  ", 10, "options");
	while (!rd->err && rd_num(rd, 2, "option"))
		rd_skip(rd, rd_num(rd, 4, "option size"), "option");
	rd_expect(rd, "flyrecord", 10, "flyrecord");
	rd_skip(rd, cpus * 16, "index");
	len = rd_num(rd, 8, "clock size");
	if (rd->err || len + 1 > cap || len > rd->len - rd->off)
		return;
	memcpy(clock, rd->p + rd->off, (size_t)len);
	clock[len] = '\0';
}

static int parse_v6(struct tdat_sink *ts)
{
	struct reader rd = { ts->o.file, ts->o.file_len, 0, NULL };

	if (parse_meta(&rd, &ts->rm)) {
		fprintf(stderr, "slimtrace: recover %s: %s (at byte %zu)\n", ts->o.path,
			rd.err, rd.off);
		return -EINVAL;
	}
	parse_clock(&rd, ts->clock, sizeof(ts->clock));
	return 0;
}

static const struct tdat_layout layout_v6 = { write_v6, parse_v6 };

TDAT_SINK_DEFINE(rec_sink_tdat6, "trace.dat v6", layout_v6);
