/* SPDX-License-Identifier: MIT */
/*
 * The sink operations both trace.dat versions share (tdat_sink.c); a
 * version is its layout: how the file is written, and how a header it
 * wrote while recording is read back for recovery.
 */
#ifndef SLIM_RECORD_TDAT_SINK_H
#define SLIM_RECORD_TDAT_SINK_H

#include "record/sink.h"
#include "record/tdat_out.h"

#pragma GCC visibility push(hidden)

struct tdat_sink;

/* One writing of the file: the metadata, and the end (NULL: no data yet). */
struct tdat_job {
	const struct rec_meta *m;
	const struct rec_end *e;
};

struct tdat_layout {
	int (*write)(struct tdat_out *o, int fd, void *job);
	/* ts->o.file: fill ts->rm and ts->clock; 0 or -EINVAL (said on stderr). */
	int (*parse)(struct tdat_sink *ts);
};

struct tdat_sink {
	struct tdat_out o;
	const struct tdat_layout *layout;
	struct rec_meta rm;	/* recover: the metadata read back */
	char clock[32];
};

/* The initial format of a version for this host, into buf: its length. */
size_t tdat_initial(unsigned char *buf, int version);
/* The CPUs the file has: every one seen, and every one with statistics. */
int tdat_cpu_count(const struct tdat_out *o, const struct rec_end *e);

int tdat_sink_begin(struct rec_sink *s, const char *path, const struct tdat_layout *l);
int tdat_sink_cpus(struct rec_sink *s, int nr, int in_signal);
int tdat_sink_metadata(struct rec_sink *s, const struct rec_meta *m);
int tdat_sink_page(struct rec_sink *s, int cpu, const void *pages, size_t n);
int tdat_sink_finish(struct rec_sink *s, const struct rec_meta *m, const struct rec_end *e);
int tdat_sink_recover(struct rec_sink *s);
void tdat_sink_end(struct rec_sink *s);

/*
 * A version's sink: the ops above, begun with its layout.  Data, not a
 * copy of the table per version.
 */
#define TDAT_SINK_DEFINE(sym, label, lay)					\
	static int sym##_begin(struct rec_sink *s, const char *path)		\
	{									\
		return tdat_sink_begin(s, path, &(lay));			\
	}									\
	const struct rec_sink_ops sym = {					\
		.name = label, .begin = sym##_begin, .cpus = tdat_sink_cpus,	\
		.metadata = tdat_sink_metadata, .page = tdat_sink_page,		\
		.finish = tdat_sink_finish, .recover = tdat_sink_recover,	\
		.end = tdat_sink_end,						\
	}

#pragma GCC visibility pop

#endif
