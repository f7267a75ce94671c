/* SPDX-License-Identifier: MIT */
/*
 * What the trace.dat sinks (versions 6 and 7) share: the files of a
 * recording, appending in memory set aside beforehand, and the options
 * both versions carry.
 *
 *   PATH         always a complete trace.dat; without data until the end
 *   PATH.cpuN    the pages of CPU N, appended as they are drained
 *   PATH.part    the next version of PATH, renamed over it when written
 *
 * A trace.dat holds each CPU's pages in one piece, and buffers appear and
 * grow while the program runs, so the pages go to one file per CPU and
 * are copied behind the header at the end (what trace-cmd record does).
 *
 * However many threads record, at most TDAT_OPEN_MAX of those files are
 * open at once (the least recently written is closed to open another),
 * and one descriptor is held in reserve from the start: a program near
 * its fd limit still gets its pages written and its final file made.
 */
#ifndef SLIM_RECORD_TDAT_OUT_H
#define SLIM_RECORD_TDAT_OUT_H

#include <stddef.h>
#include <stdint.h>
#include "record/sink.h"

#pragma GCC visibility push(hidden)

/* trace-cmd's option ids. */
enum {
	TDAT_OPT_DONE = 0,
	TDAT_OPT_CPUSTAT = 2,
	TDAT_OPT_BUFFER = 3,
	TDAT_OPT_TRACECLOCK = 4,
	TDAT_OPT_UNAME = 5,
	TDAT_OPT_CPUCOUNT = 8,
	TDAT_OPT_HEADER_INFO = 16,	/* v7: where each section is */
};

/* Bytes appended to memory allocated beforehand; `over` if they did not fit. */
struct wbuf {
	unsigned char *p;
	size_t len, cap;
	int over;
};
void wb_put(struct wbuf *w, const void *s, size_t n);
void wb_str(struct wbuf *w, const char *s);
void wb_u16(struct wbuf *w, uint16_t v);
void wb_u32(struct wbuf *w, uint32_t v);
void wb_u64(struct wbuf *w, uint64_t v);
void wb_dec(struct wbuf *w, uint64_t v);
/* An option: id, u32 size, data. */
void wb_option(struct wbuf *w, uint16_t id, const void *data, uint32_t len);
/* The CPUSTAT options of the end (or the note of a recovered file). */
void wb_cpustats(struct wbuf *w, const struct rec_end *e);

#define TDAT_OPEN_MAX	32	/* PATH.cpuN files open at once */

struct tdat_out {
	char *path, *part, *name;	/* name: scratch for PATH.cpuN */
	size_t path_len;
	int *fd;			/* PATH.cpuN, -1 while closed */
	uint64_t *bytes;		/* whole pages in it */
	uint64_t *used;			/* when last written (o->tick), 0: no file */
	uint64_t tick;
	int nr, cap;			/* CPUs seen, room */
	int nr_open;			/* fd[] entries open */
	int reserve;			/* a descriptor kept for when none is left */
	unsigned char *tail;		/* room for what follows the metadata */
	size_t tail_cap;
	unsigned char *copy;		/* room to copy data through */
	unsigned char *file;		/* recover: the header read back */
	size_t file_len;
	int meta_len;			/* recover: the metadata's part of it */
};

int tdat_out_begin(struct tdat_out *o, const char *path);
void tdat_out_end(struct tdat_out *o);
/* CPUs 0..nr-1 exist (mem.c's rules in a signal handler); 0 or -ENOMEM. */
int tdat_out_cpus(struct tdat_out *o, int nr, int in_signal);
int tdat_out_page(struct tdat_out *o, int cpu, const void *pages, size_t n);
int write_all(int fd, const void *buf, size_t n);
/* Append CPU cpu's pages to fd: in the kernel when it can. */
int tdat_out_copy(struct tdat_out *o, int cpu, int fd);
/* PATH written whole through PATH.part by write(o, fd, arg). */
int tdat_out_commit(struct tdat_out *o, int (*write)(struct tdat_out *o, int fd, void *arg),
		    void *arg);
/* The data files are in PATH now: remove them. */
void tdat_out_remove_spool(struct tdat_out *o);
/* recover: read PATH back, open every PATH.cpuN there is: CPUs, 0 if none, -errno. */
int tdat_out_reopen(struct tdat_out *o);

#pragma GCC visibility pop

#endif
