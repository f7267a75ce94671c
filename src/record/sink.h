/* SPDX-License-Identifier: MIT */
/*
 * The recorder's file writer: a sink.  The recorder hands it the
 * metadata (when it changes), the pages of each CPU (as they are
 * drained) and, at the end, the statistics; the sink lays them out.  A
 * new file format is a new sink file and a line in the table of
 * record/sink.c.
 *
 * cpus(), page() and finish() run in a fatal signal handler too: they
 * may only use system calls on files, memory set aside by begin(),
 * cpus() or metadata(), and what cpus() maps there (rec_grow()).
 */
#ifndef SLIM_RECORD_SINK_H
#define SLIM_RECORD_SINK_H

#include <stddef.h>
#include <stdint.h>
#include "ring/ring_buffer.h"

#pragma GCC visibility push(hidden)

/*
 * The parts of trace.dat's metadata that every version holds alike
 * (version 6 one after the other, version 7 one per section), in the
 * file's encoding.
 */
enum rec_block {
	REC_BLK_HEADERS,	/* "header_page\0", size, text, "header_event\0", size, text */
	REC_BLK_FTRACE,		/* u32 count of ftrace formats, then each sized (internal events) */
	REC_BLK_FORMATS,	/* u32 systems; name, u32 events, sized formats */
	REC_BLK_KALLSYMS,	/* u32 size, the text (0 but with internal events) */
	REC_BLK_PRINTK,		/* u32 size (0) */
	REC_BLOCKS
};

struct rec_meta {
	const unsigned char *block[REC_BLOCKS];
	size_t len[REC_BLOCKS];
	const char *cmdlines;	/* "pid name\n" lines */
	size_t cmdlines_len;
	const char *clock;	/* the trace_clock text, "[mono]\n" */
	const char *uname;	/* "" when unknown */
};

/* One CPU's statistics at the end (the kernel's per_cpu/cpuN/stats). */
struct rec_cpu_stat {
	int present;		/* a buffer had this number */
	uint64_t read;		/* events in the file */
	struct slim_rb_stats st;
};

enum rec_end_kind {
	REC_END_FINAL,		/* the recording's end: the statistics are known */
	REC_END_RECOVERED,	/* rebuilt after the process died: they are not */
};

struct rec_end {
	enum rec_end_kind kind;
	const struct rec_cpu_stat *cpu;
	int nr_cpus;
	uint64_t lost_nobuf;	/* events that found no buffer */
};

struct rec_sink;
struct rec_sink_ops {
	const char *name;
	/* State for path: 0 or -errno. */
	int (*begin)(struct rec_sink *s, const char *path);
	/*
	 * CPUs 0..nr-1 exist (the file has nr CPUs at least); in_signal:
	 * called from a fatal signal handler.  0, or -ENOMEM: the CPU is
	 * then left out.
	 */
	int (*cpus)(struct rec_sink *s, int nr, int in_signal);
	/* The metadata changed: what a reader should see now.  0 or -errno. */
	int (*metadata)(struct rec_sink *s, const struct rec_meta *m);
	/* n whole pages of a CPU (one with room: cpus()).  0 or -errno. */
	int (*page)(struct rec_sink *s, int cpu, const void *pages, size_t n);
	/* The complete file.  0 or -errno. */
	int (*finish)(struct rec_sink *s, const struct rec_meta *m, const struct rec_end *e);
	/* What a recording that died left, made whole (another process). */
	int (*recover)(struct rec_sink *s);
	void (*end)(struct rec_sink *s);
};

struct rec_sink {
	const struct rec_sink_ops *ops;
	void *priv;
};

/*
 * The sink for trace.dat version `version` (6 or 7), begun for path:
 * 0, -EINVAL (no such version) or -errno.
 */
int rec_sink_open(struct rec_sink *s, int version, const char *path);
/* The version a file written by a sink says it is: 6, 7, or -EINVAL. */
int rec_sink_file_version(const char *path);
void rec_sink_close(struct rec_sink *s);

extern const struct rec_sink_ops rec_sink_tdat6, rec_sink_tdat7;

#pragma GCC visibility pop

#endif
