// SPDX-License-Identifier: MIT
/*
 * The trace.dat version 7 sink (trace-cmd.dat.v7(5)), uncompressed: the
 * initial format with the compression header "none", then sections,
 * each a 16-byte header (u16 id, u16 flags, u32 description, u64 size)
 * and its content:
 *
 *   16 headers, 17 ftrace events, 18 event formats, 19 kallsyms,
 *   20 printk, 21 command lines    the metadata parts, as in version 6
 *   0  options                     where those are, the clock, uname,
 *                                  CPU statistics, CPU count, BUFFER
 *   3  buffer flyrecord            padding to a page, then each CPU's pages
 *   15 strings                     the descriptions
 *
 * The BUFFER option names the top instance (""), its clock and each
 * CPU's (id, offset, size).  Compression is the slimtrace command's
 * (convert, record --compression), never the library's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record/rec.h"
#include "record/tdat_out.h"
#include "record/tdat_sink.h"

#define PAGE	SLIM_PAGE_SIZE
#define SEC_HDR	16

enum {
	SEC_OPTIONS = 0,
	SEC_FLYRECORD = 3,
	SEC_STRINGS = 15,
	SEC_HEADERS = 16,	/* 16..20: the blocks in enum rec_block order */
	SEC_CMDLINES = 21,
};

/* The descriptions, and where each starts in the strings section. */
static const char strings[] = "headers\0ftrace events\0events format\0kallsyms\0printk\0"
	"command lines\0options\0buffer flyrecord \0strings";
enum { STR_HEADERS = 0, STR_OPTIONS = 66, STR_FLY = 74, STR_STRINGS = 92 };
static const uint32_t block_str[REC_BLOCKS + 1] = { 0, 8, 22, 36, 45, 52 };
_Static_assert(sizeof(strings) == 100, "string ids match the table");

static const unsigned char zeros[PAGE];

static void sec_hdr(unsigned char *p, uint16_t id, uint32_t desc, uint64_t size)
{
	uint16_t flags = 0;

	memcpy(p, &id, 2);
	memcpy(p + 2, &flags, 2);
	memcpy(p + 4, &desc, 4);
	memcpy(p + 8, &size, 8);
}

/* Where things go, computed before anything is written. */
struct plan {
	uint64_t sec[REC_BLOCKS + 1];	/* the metadata sections */
	uint64_t options, fly, data, strings;
	size_t opt_len, fly_at, cpus_at;	/* in the options: BUFFER's offset, CPU list */
	int nr;
};

static void put_clock_name(struct wbuf *w, const char *clock)
{
	const char *p = strchr(clock, '['), *e = p ? strchr(p, ']') : NULL;

	if (e)
		wb_put(w, p + 1, (size_t)(e - p - 1));
	else
		wb_str(w, "local");
	wb_put(w, "", 1);
}

/* The options section's content, in o->tail; 0 if it did not fit. */
static size_t build_options(struct tdat_out *o, const struct tdat_job *job, struct plan *pl)
{
	const struct rec_meta *m = job->m;
	struct wbuf w = { o->tail, 0, o->tail_cap, 0 };
	uint32_t page = PAGE, n = (uint32_t)pl->nr;
	size_t at;
	int i;

	for (i = 0; i <= REC_BLOCKS; i++)
		wb_option(&w, (uint16_t)(SEC_HEADERS + i), &pl->sec[i], 8);
	wb_option(&w, TDAT_OPT_TRACECLOCK, m->clock, (uint32_t)strlen(m->clock) + 1);
	if (m->uname[0])
		wb_option(&w, TDAT_OPT_UNAME, m->uname, (uint32_t)strlen(m->uname) + 1);
	wb_cpustats(&w, job->e);
	wb_option(&w, TDAT_OPT_CPUCOUNT, &n, 4);
	wb_u16(&w, TDAT_OPT_BUFFER);
	at = w.len;
	wb_u32(&w, 0);
	pl->fly_at = w.len;
	wb_u64(&w, 0);
	wb_put(&w, "", 1);		/* the top instance */
	put_clock_name(&w, m->clock);
	wb_u32(&w, page);
	wb_u32(&w, n);
	pl->cpus_at = w.len;
	for (i = 0; i < pl->nr; i++) {
		wb_u32(&w, (uint32_t)i);
		wb_u64(&w, 0);
		wb_u64(&w, 0);
	}
	if (!w.over) {
		uint32_t len = (uint32_t)(w.len - at - 4);

		memcpy(w.p + at, &len, 4);
	}
	wb_u16(&w, TDAT_OPT_DONE);
	wb_u32(&w, 8);
	wb_u64(&w, 0);			/* no further options section */
	return w.over ? 0 : w.len;
}

static int plan_file(struct tdat_out *o, const struct tdat_job *job, struct plan *pl)
{
	const struct rec_meta *m = job->m;
	uint64_t pos = 32, off;
	unsigned char *p;
	int i;

	pl->nr = tdat_cpu_count(o, job->e);
	for (i = 0; i < REC_BLOCKS; i++) {
		pl->sec[i] = pos;
		pos += SEC_HDR + m->len[i];
	}
	pl->sec[REC_BLOCKS] = pos;
	pos += SEC_HDR + 8 + m->cmdlines_len;
	pl->options = pos;
	pl->opt_len = build_options(o, job, pl);
	if (!pl->opt_len)
		return -ENOMEM;
	pl->fly = pos + SEC_HDR + pl->opt_len;
	pl->data = (pl->fly + SEC_HDR + PAGE - 1) / PAGE * PAGE;
	memcpy(o->tail + pl->fly_at, &pl->fly, 8);
	off = pl->data;
	p = o->tail + pl->cpus_at;
	for (i = 0; i < pl->nr; i++) {
		uint64_t size = job->e && i < o->nr ? o->bytes[i] : 0;

		memcpy(p + 4, &off, 8);
		memcpy(p + 12, &size, 8);
		p += 20;
		off += size;
	}
	pl->strings = off;
	return 0;
}

static int write_v7(struct tdat_out *o, int fd, void *arg)
{
	const struct tdat_job *job = arg;
	const struct rec_meta *m = job->m;
	unsigned char head[64], sh[SEC_HDR];
	struct plan pl;
	uint64_t len;
	size_t n;
	int ret, i;

	ret = plan_file(o, job, &pl);
	if (ret)
		return ret;
	n = tdat_initial(head, 7);
	memcpy(head + n, "none\0", 6);	/* no compression, an empty version */
	n += 6;
	memcpy(head + n, &pl.options, 8);
	n += 8;
	ret = write_all(fd, head, n);
	for (i = 0; !ret && i < REC_BLOCKS; i++) {
		sec_hdr(sh, (uint16_t)(SEC_HEADERS + i), block_str[i], m->len[i]);
		ret = write_all(fd, sh, SEC_HDR);
		if (!ret)
			ret = write_all(fd, m->block[i], m->len[i]);
	}
	len = m->cmdlines_len;
	sec_hdr(sh, SEC_CMDLINES, block_str[REC_BLOCKS], 8 + len);
	if (!ret)
		ret = write_all(fd, sh, SEC_HDR);
	if (!ret)
		ret = write_all(fd, &len, 8);
	if (!ret)
		ret = write_all(fd, m->cmdlines, m->cmdlines_len);
	sec_hdr(sh, SEC_OPTIONS, STR_OPTIONS, pl.opt_len);
	if (!ret)
		ret = write_all(fd, sh, SEC_HDR);
	if (!ret)
		ret = write_all(fd, o->tail, pl.opt_len);
	/* The flyrecord section: padding to a page, then the data. */
	sec_hdr(sh, SEC_FLYRECORD, STR_FLY, pl.strings - pl.fly - SEC_HDR);
	if (!ret)
		ret = write_all(fd, sh, SEC_HDR);
	if (!ret)
		ret = write_all(fd, zeros, (size_t)(pl.data - pl.fly - SEC_HDR));
	for (i = 0; !ret && job->e && i < o->nr; i++)
		if (o->bytes[i])
			ret = tdat_out_copy(o, i, fd);
	sec_hdr(sh, SEC_STRINGS, STR_STRINGS, sizeof(strings));
	if (!ret)
		ret = write_all(fd, sh, SEC_HDR);
	if (!ret)
		ret = write_all(fd, strings, sizeof(strings));
	return ret;
}

/* ---- reading back the header a recording wrote ----------------------------- */

/* The TRACECLOCK option of an options section's content. */
static void find_clock(struct tdat_sink *ts, const unsigned char *p, uint64_t len)
{
	uint64_t at = 0;
	uint32_t size;
	uint16_t id;

	while (at + 6 <= len) {
		memcpy(&id, p + at, 2);
		memcpy(&size, p + at + 2, 4);
		at += 6;
		if (size > len - at)
			return;
		if (id == TDAT_OPT_TRACECLOCK && size && size < sizeof(ts->clock)) {
			memcpy(ts->clock, p + at, size);
			ts->clock[size - 1] = '\0';
		}
		if (id == TDAT_OPT_DONE)
			return;
		at += size;
	}
}

static int parse_v7(struct tdat_sink *ts)
{
	const unsigned char *f = ts->o.file;
	size_t len = ts->o.file_len, at;
	unsigned char head[64];
	uint64_t size, cmd;
	uint16_t id, flags;
	unsigned int found = 0;

	at = tdat_initial(head, 7);
	memcpy(head + at, "none\0", 6);
	at += 6;
	if (len < at + 8 || memcmp(f, head, at)) {
		fprintf(stderr, "slimtrace: recover %s: not an uncompressed version 7 "
			"trace.dat of this host\n", ts->o.path);
		return -EINVAL;
	}
	for (at += 8; at + SEC_HDR <= len; at += SEC_HDR + size) {
		memcpy(&id, f + at, 2);
		memcpy(&flags, f + at + 2, 2);
		memcpy(&size, f + at + 8, 8);
		if (size > len - at - SEC_HDR || flags)
			break;
		if (id >= SEC_HEADERS && id < SEC_HEADERS + REC_BLOCKS) {
			ts->rm.block[id - SEC_HEADERS] = f + at + SEC_HDR;
			ts->rm.len[id - SEC_HEADERS] = (size_t)size;
			found |= 1u << (id - SEC_HEADERS);
		} else if (id == SEC_CMDLINES && size >= 8) {
			memcpy(&cmd, f + at + SEC_HDR, 8);
			if (cmd > size - 8)
				break;
			ts->rm.cmdlines = (const char *)f + at + SEC_HDR + 8;
			ts->rm.cmdlines_len = (size_t)cmd;
			found |= 1u << REC_BLOCKS;
		} else if (id == SEC_OPTIONS) {
			find_clock(ts, f + at + SEC_HDR, size);
		}
	}
	if (found != (1u << (REC_BLOCKS + 1)) - 1) {
		fprintf(stderr, "slimtrace: recover %s: the header written while recording "
			"is incomplete (section at byte %zu)\n", ts->o.path, at);
		return -EINVAL;
	}
	return 0;
}

static const struct tdat_layout layout_v7 = { write_v7, parse_v7 };

TDAT_SINK_DEFINE(rec_sink_tdat7, "trace.dat v7", layout_v7);
