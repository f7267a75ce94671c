/* SPDX-License-Identifier: MIT */
/*
 * A trace.dat (version 6 or 7) reader that trusts nothing: every size,
 * offset and count is checked against the file before it is used, and an
 * error names what is wrong and at which byte offset.
 *
 * The header is read whole at open; the CPU data is read one page (or,
 * compressed, one chunk) at a time by per-CPU cursors, so a report
 * streams however long the trace.  Every buffer of a version 7 file (the
 * top one and the instances) is read; its CPUs are the file's "CPUs",
 * one after the other.
 *
 * A file whose data is cut short (a machine that lost power) opens: the
 * cursors stop where the data ends, and t->cut_short says where.
 */
#ifndef SLIMTRACE_CLI_TDAT_H
#define SLIMTRACE_CLI_TDAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "ring/page.h"

struct tep_handle;
struct tep_event;

/* trace-cmd's option ids, as stored in the file. */
enum {
	TDAT_OPT_DATE = 1,
	TDAT_OPT_CPUSTAT = 2,
	TDAT_OPT_BUFFER = 3,
	TDAT_OPT_TRACECLOCK = 4,
	TDAT_OPT_UNAME = 5,
	TDAT_OPT_CPUCOUNT = 8,
	TDAT_OPT_VERSION = 9,
	TDAT_OPT_HEADER_INFO = 16,	/* v7: 16..21 point at the metadata sections */
	TDAT_OPT_CMDLINES = 21,
};

struct tdat_option {
	unsigned int id;
	uint32_t size;
	off_t offset;			/* of the data, in the file */
	char *data;			/* size bytes + a NUL */
};

/* One dynamic (__data_loc / __rel_loc) field, checked on every record. */
struct tdat_dyn {
	int offset;			/* of the 4-byte locator */
	int relative;			/* __rel_loc: from the end of the locator */
	const char *name;
};

struct tdat_event {
	int id;
	const char *system;
	const char *name;
	struct tep_event *tep;
	int min_size;			/* end of the last fixed field */
	int nr_dyn;
	struct tdat_dyn *dyn;
	off_t format_offset;		/* of the format text, for errors */
	const char *format;		/* the text as stored */
	size_t format_len;
	/* Counters the commands may use. */
	unsigned long long count;
	int selected;
	int ftrace;			/* from the ftrace formats, not a system */
};

/* Per-CPU statistics from the CPUSTAT option; -1 when not given. */
struct tdat_cpustat {
	long long entries;
	long long overrun;
	long long dropped;
	long long read;
};

/* A CPU of a buffer: the unit a cursor walks. */
struct tdat_cpu {
	int cpu;			/* its number in its buffer */
	int buffer;			/* index in t->buffers */
	off_t offset;			/* of the CPU's data */
	uint64_t size;			/* as the file says (compressed: the chunks, not their count) */
	uint64_t avail;			/* what the file holds of it */
	int compressed;			/* zstd chunks */
	off_t table;			/* where offset and size are written, for errors */
	struct tdat_cpustat stat;
};

struct tdat_buffer {
	char *name;			/* "" for the top buffer */
	char clock[32];
};

struct tdat {
	const char *path;
	int fd;
	off_t file_size;
	int big_endian;
	int long_size;			/* user space long, from the initial format */
	uint32_t page_size;
	/* From header_page: where the commit word and the data are. */
	int commit_offset, commit_size;
	int data_offset, data_size;
	char *header_page, *header_event;
	uint64_t header_page_len, header_event_len;
	char *kallsyms, *printk;
	uint32_t kallsyms_len, printk_len;
	char *cmdlines;
	uint64_t cmdlines_len;
	int nr_events;
	struct tdat_event *events;	/* sorted by id */
	int nr_options;
	struct tdat_option *options;
	char clock[32];			/* "" when the file names none */
	int clock_in_ns;
	long long ts_offset;		/* TRACECMD_OPTION_DATE */
	int version;			/* 6 or 7 */
	char compression[16];		/* v7: "none" or "zstd" */
	struct slim_page_fmt fmt;	/* the pages' layout */
	int nr_buffers;			/* v6 instance buffers (not read) */
	int nr_bufs;
	struct tdat_buffer *buffers;	/* v7: every buffer; v6: the top one */
	int nr_cpus;			/* CPUs of all buffers */
	struct tdat_cpu *cpus;
	int cpu_count;			/* CPUCOUNT option, or 0 */
	/* Events no buffer could be had for (a CPUSTAT of their own). */
	unsigned long long lost_nobuf;
	/* Set when some CPU's data is cut short: the first place it ends. */
	char cut_short[256];
	/* v7: a metadata section's content, read in place of the file. */
	const uint8_t *win;
	off_t win_base;
	uint64_t win_len;
	void *zstd;			/* a decompression context */
	off_t data_start;		/* end of the header */
	struct tep_handle *tep;
	void *plugins;
	int probe_fd;			/* the format probe's pipe, or -1 */
	char err[512];
};

/* A record handed out by a cursor: valid until the cursor moves on. */
struct tdat_record {
	uint64_t ts;
	int cpu;			/* the CPU number in its buffer */
	int slot;			/* index in t->cpus */
	const uint8_t *data;
	int size;
	off_t offset;			/* of the event header, in the file */
	long long missed;		/* events lost before it: >0 count, -1 unknown */
	struct tdat_event *event;
};

struct tdat_cursor {
	struct tdat *t;
	int cpu;			/* slot in t->cpus */
	uint64_t page;			/* index of the page in buf */
	uint64_t nr_pages;
	uint8_t *buf;			/* one page + zeroed slack */
	/* Compressed data: the chunk being read. */
	uint8_t *chunk;
	uint64_t chunk_len, chunk_cap, chunk_page;
	off_t chunk_at, next_chunk;	/* file offsets */
	uint32_t chunks_left;
	int chunked;
	uint32_t pos, end;		/* in the page's data area */
	off_t at;			/* of the page (compressed: of its chunk) */
	uint64_t ts;
	long long missed;		/* of the page, for its first record */
	int loaded;
	/* Totals, updated as the cursor walks. */
	unsigned long long records, lost, pages;
	int lost_unknown;
};

struct tdat_open_flags {
	int no_plugins;
	int nsec;			/* print times in ns */
};

/* 0, or -1 with t->err set.  tdat_close() is needed either way. */
int tdat_open(struct tdat *t, const char *path, const struct tdat_open_flags *fl);
void tdat_close(struct tdat *t);

struct tdat_event *tdat_find_event(struct tdat *t, int id);
const struct tdat_option *tdat_option(const struct tdat *t, unsigned int id);

int tdat_cursor_init(struct tdat_cursor *c, struct tdat *t, int cpu);
/*
 * The next page of the CPU as it is in the file (decompressed):
 * 1 with *page pointing at t->page_size bytes, 0 at the end, -1 error.
 */
int tdat_cursor_page(struct tdat_cursor *c, const uint8_t **page);
void tdat_cursor_fini(struct tdat_cursor *c);
/* 1 with *r filled, 0 at the end, -1 with t->err set. */
int tdat_cursor_next(struct tdat_cursor *c, struct tdat_record *r);

/* Events a CPU lost: from its pages (as walked) and its statistics. */
unsigned long long tdat_cpu_lost(const struct tdat_cursor *c, const struct tdat_cpustat *st);

/* The buffer name to print before a record of CPU slot, "" for the top one. */
const char *tdat_buffer_name(const struct tdat *t, int slot);

/* All CPUs merged by time stamp, ties to the lower CPU. */
struct tdat_merge {
	struct tdat *t;
	struct tdat_cursor *cur;
	struct tdat_record *next;	/* peeked record per CPU */
	int *heap;			/* CPUs with a peeked record */
	int nr_heap;
	int last;			/* CPU of the record handed out last */
};

int tdat_merge_init(struct tdat_merge *m, struct tdat *t);
void tdat_merge_fini(struct tdat_merge *m);
int tdat_merge_next(struct tdat_merge *m, struct tdat_record *r);

/* Does set_event-style SPEC (sys:event, sys:*, *:event, word, *) match? */
int tdat_event_matches(const struct tdat_event *ev, const char *spec, size_t len);
/*
 * Mark the events selected by a list of specs ("a,b !c"): with no spec
 * every event is selected.  Returns 0, or -1 with t->err set when a
 * (non-negated) spec matches no event in the file.
 */
int tdat_select_events(struct tdat *t, const char *specs);
/* The same over any events (the ones of a running program): why says "matches 'x'". */
int tdat_events_select(struct tdat_event *evs, int nr, const char *specs, char *why, size_t len);

#endif
