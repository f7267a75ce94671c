// SPDX-License-Identifier: MIT
/*
 * What the trace.dat sinks share (tdat_sink.h) and the table of sinks.
 * page() and finish() are async-signal-safe (tdat_out.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "record/rec.h"
#include "record/tdat_sink.h"

size_t tdat_initial(unsigned char *buf, int version)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	uint32_t page = SLIM_PAGE_SIZE;

	memcpy(buf, magic, sizeof(magic));
	buf[10] = (unsigned char)('0' + version);
	buf[11] = '\0';
	buf[12] = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	buf[13] = (unsigned char)sizeof(long);
	memcpy(buf + 14, &page, 4);
	return 18;
}

int tdat_cpu_count(const struct tdat_out *o, const struct rec_end *e)
{
	return e && e->nr_cpus > o->nr ? e->nr_cpus : o->nr;
}

static struct tdat_sink *ts_of(struct rec_sink *s)
{
	return s->priv;
}

int tdat_sink_begin(struct rec_sink *s, const char *path, const struct tdat_layout *l)
{
	struct tdat_sink *ts = calloc(1, sizeof(*ts));
	int ret;

	if (!ts)
		return -ENOMEM;
	s->priv = ts;
	ts->layout = l;
	ret = tdat_out_begin(&ts->o, path);
	return ret;
}

int tdat_sink_cpus(struct rec_sink *s, int nr, int in_signal)
{
	return tdat_out_cpus(&ts_of(s)->o, nr, in_signal);
}

int tdat_sink_metadata(struct rec_sink *s, const struct rec_meta *m)
{
	struct tdat_sink *ts = ts_of(s);
	struct tdat_job job = { m, NULL };

	return tdat_out_commit(&ts->o, ts->layout->write, &job);
}

int tdat_sink_page(struct rec_sink *s, int cpu, const void *pages, size_t n)
{
	return tdat_out_page(&ts_of(s)->o, cpu, pages, n);
}

int tdat_sink_finish(struct rec_sink *s, const struct rec_meta *m, const struct rec_end *e)
{
	struct tdat_sink *ts = ts_of(s);
	struct tdat_job job = { m, e };
	int ret = tdat_out_commit(&ts->o, ts->layout->write, &job);

	if (!ret)
		tdat_out_remove_spool(&ts->o);
	return ret;
}

int tdat_sink_recover(struct rec_sink *s)
{
	struct tdat_sink *ts = ts_of(s);
	struct rec_end e = { .kind = REC_END_RECOVERED };
	int ret = tdat_out_reopen(&ts->o);

	if (ret == 0)
		return -ENOENT;		/* no data files */
	if (ret < 0)
		return ret;
	ret = ts->layout->parse(ts);
	if (ret)
		return ret;
	if (!ts->clock[0])
		memcpy(ts->clock, "[local]\n", 9);
	ts->rm.clock = ts->clock;
	ts->rm.uname = "";
	e.nr_cpus = ts->o.nr;
	return tdat_sink_finish(s, &ts->rm, &e);
}

void tdat_sink_end(struct rec_sink *s)
{
	struct tdat_sink *ts = ts_of(s);

	if (!ts)
		return;
	tdat_out_end(&ts->o);
	free(ts);
	s->priv = NULL;
}

/* ---- the table ---------------------------------------------------------- */

static const struct {
	int version;
	const struct rec_sink_ops *ops;
} sinks[] = {
	{ 6, &rec_sink_tdat6 },
	{ 7, &rec_sink_tdat7 },
};

int rec_sink_open(struct rec_sink *s, int version, const char *path)
{
	size_t i;
	int ret;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < sizeof(sinks) / sizeof(sinks[0]); i++) {
		if (sinks[i].version != version)
			continue;
		s->ops = sinks[i].ops;
		ret = s->ops->begin(s, path);
		if (ret)
			rec_sink_close(s);
		return ret;
	}
	return -EINVAL;
}

void rec_sink_close(struct rec_sink *s)
{
	if (s->ops)
		s->ops->end(s);
	memset(s, 0, sizeof(*s));
}

int rec_sink_file_version(const char *path)
{
	unsigned char head[12], want[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC), v;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = pread(fd, head, sizeof(head), 0);
	close(fd);
	if (n != (ssize_t)sizeof(head))
		return -EINVAL;
	for (v = 6; v <= 7; v++) {
		tdat_initial(want, v);
		if (!memcmp(head, want, sizeof(head)))
			return v;
	}
	return -EINVAL;
}
