// SPDX-License-Identifier: MIT
/*
 * Merging the files of several processes into one trace.dat (version 6).
 * The inputs must agree on what the pages look like and on the clock:
 * records of different processes are put side by side by time stamp
 * only if their stamps count the same thing.
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
#include "tdat.h"
#include "tdat_merge.h"

/* An event of the output: the input it came from, and its new id. */
struct mev {
	struct tdat_event *ev;
	int id;
};

struct merge {
	struct tdat *in;
	int n;
	struct mev *evs;
	int nr_evs, max_id;
	uint16_t **map;			/* per input: old id -> new id */
	int fd;
	FILE *f;
	char *err;
	size_t errlen;
};

static int merr(struct merge *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int merr(struct merge *m, const char *fmt, ...)
{
	va_list ap;

	if (m->err[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(m->err, m->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The format text past its "ID: n" line: what two processes' events share. */
static const char *past_id(const struct tdat_event *ev, size_t *len)
{
	const char *p = memmem(ev->format, ev->format_len, "\nID: ", 5);
	const char *nl = p ? memchr(p + 1, '\n', ev->format_len - (size_t)(p + 1 - ev->format)) : NULL;

	if (!nl) {
		*len = ev->format_len;
		return ev->format;
	}
	*len = ev->format_len - (size_t)(nl - ev->format);
	return nl;
}

static int same_event(const struct tdat_event *a, const struct tdat_event *b)
{
	size_t la, lb;
	const char *pa = past_id(a, &la), *pb = past_id(b, &lb);

	return a->ftrace == b->ftrace && !strcmp(a->system, b->system) &&
	       !strcmp(a->name, b->name) && la == lb && !memcmp(pa, pb, la);
}

static int id_used(const struct merge *m, int id)
{
	int i;

	for (i = 0; i < m->nr_evs; i++)
		if (m->evs[i].id == id)
			return 1;
	return 0;
}

/* Give every event of input k its id in the output. */
static int map_events(struct merge *m, int k)
{
	struct tdat *t = &m->in[k];
	int i, j;

	m->map[k] = calloc(65536, sizeof(uint16_t));
	if (!m->map[k])
		return merr(m, "out of memory");
	for (i = 0; i < t->nr_events; i++) {
		struct tdat_event *ev = &t->events[i];
		struct mev *e;

		if (ev->id < 0 || ev->id > 65535)
			return merr(m, "%s: event %s:%s has id %d, beyond 65535", t->path,
				    ev->system, ev->name, ev->id);
		for (j = 0; j < m->nr_evs && !same_event(m->evs[j].ev, ev); j++)
			;
		if (j < m->nr_evs) {
			m->map[k][ev->id] = (uint16_t)m->evs[j].id;
			continue;
		}
		if (ev->ftrace && k)
			return merr(m, "%s: its ftrace event %s differs from %s's", t->path,
				    ev->name, m->in[0].path);
		e = realloc(m->evs, (m->nr_evs + 1) * sizeof(*e));
		if (!e)
			return merr(m, "out of memory");
		m->evs = e;
		e = &m->evs[m->nr_evs];
		e->ev = ev;
		e->id = id_used(m, ev->id) ? m->max_id + 1 : ev->id;
		if (e->id > 65535)
			return merr(m, "more than 65536 distinct events");
		if (e->id > m->max_id)
			m->max_id = e->id;
		m->map[k][ev->id] = (uint16_t)e->id;
		m->nr_evs++;
	}
	return 0;
}

/* The inputs must read alike: byte order, long size, page layout, clock. */
static int check_alike(struct merge *m, int k)
{
	struct tdat *a = &m->in[0], *b = &m->in[k];

	if (a->big_endian != b->big_endian || a->long_size != b->long_size ||
	    a->page_size != b->page_size || a->fmt.data_offset != b->fmt.data_offset ||
	    a->fmt.commit_size != b->fmt.commit_size)
		return merr(m, "%s and %s have different page layouts", a->path, b->path);
	if (strcmp(a->clock, b->clock))
		return merr(m, "%s uses clock \"%s\" and %s clock \"%s\": their times cannot be "
			    "merged (record with -C to choose one)", a->path, a->clock, b->path,
			    b->clock);
	return 0;
}

static int swapped(const struct merge *m)
{
	return m->in[0].big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
}

static void put(struct merge *m, const void *p, size_t n)
{
	fwrite(p, 1, n, m->f);
}

static void put32(struct merge *m, uint32_t v)
{
	v = swapped(m) ? bswap_32(v) : v;
	put(m, &v, 4);
}

static void put64(struct merge *m, uint64_t v)
{
	v = swapped(m) ? bswap_64(v) : v;
	put(m, &v, 8);
}

static void put16(struct merge *m, uint16_t v)
{
	v = swapped(m) ? bswap_16(v) : v;
	put(m, &v, 2);
}

static void put_sized(struct merge *m, const char *text, uint64_t len)
{
	put64(m, len);
	put(m, text, (size_t)len);
}

/* A format with its ID line saying the output's id. */
static void put_format(struct merge *m, const struct mev *e)
{
	const struct tdat_event *ev = e->ev;
	const char *p = memmem(ev->format, ev->format_len, "\nID: ", 5);
	size_t rest_len, head;
	const char *rest = past_id(ev, &rest_len);
	char id[32];
	int n;

	if (!p || rest == ev->format) {
		put_sized(m, ev->format, ev->format_len);
		return;
	}
	head = (size_t)(p - ev->format);
	n = snprintf(id, sizeof(id), "\nID: %d", e->id);
	put64(m, head + (size_t)n + rest_len);
	put(m, ev->format, head);
	put(m, id, (size_t)n);
	put(m, rest, rest_len);
}

static int first_of_system(const struct merge *m, int i)
{
	int j;

	for (j = 0; j < i; j++)
		if (!m->evs[j].ev->ftrace && !strcmp(m->evs[j].ev->system, m->evs[i].ev->system))
			return 0;
	return 1;
}

static void put_formats(struct merge *m)
{
	uint32_t n = 0;
	int i, j;

	for (i = 0; i < m->nr_evs; i++)
		n += m->evs[i].ev->ftrace;
	put32(m, n);
	for (i = 0; i < m->nr_evs; i++)
		if (m->evs[i].ev->ftrace)
			put_format(m, &m->evs[i]);
	for (n = 0, i = 0; i < m->nr_evs; i++)
		n += !m->evs[i].ev->ftrace && first_of_system(m, i);
	put32(m, n);
	for (i = 0; i < m->nr_evs; i++) {
		const char *sys = m->evs[i].ev->system;

		if (m->evs[i].ev->ftrace || !first_of_system(m, i))
			continue;
		put(m, sys, strlen(sys) + 1);
		for (n = 0, j = i; j < m->nr_evs; j++)
			n += !m->evs[j].ev->ftrace && !strcmp(m->evs[j].ev->system, sys);
		put32(m, n);
		for (j = i; j < m->nr_evs; j++)
			if (!m->evs[j].ev->ftrace && !strcmp(m->evs[j].ev->system, sys))
				put_format(m, &m->evs[j]);
	}
}

static void put_cmdlines(struct merge *m)
{
	uint64_t len = 0;
	int k;

	for (k = 0; k < m->n; k++)
		len += m->in[k].cmdlines_len;
	put64(m, len);
	for (k = 0; k < m->n; k++)
		put(m, m->in[k].cmdlines, (size_t)m->in[k].cmdlines_len);
}

static int carried(unsigned int id)
{
	return id == TDAT_OPT_DATE || id == TDAT_OPT_UNAME || id == TDAT_OPT_VERSION ||
	       id == TDAT_OPT_TRACECLOCK;
}

static void put_stat(struct merge *m, int cpu, const struct tdat_cpustat *st)
{
	char text[256];
	int n = snprintf(text, sizeof(text), "CPU: %d\n", cpu);

	if (st->entries >= 0)
		n += snprintf(text + n, sizeof(text) - n, "entries: %lld\n", st->entries);
	if (st->overrun >= 0)
		n += snprintf(text + n, sizeof(text) - n, "overrun: %lld\n", st->overrun);
	if (st->dropped >= 0)
		n += snprintf(text + n, sizeof(text) - n, "dropped events: %lld\n", st->dropped);
	if (st->read >= 0)
		n += snprintf(text + n, sizeof(text) - n, "read events: %lld\n", st->read);
	put16(m, TDAT_OPT_CPUSTAT);
	put32(m, (uint32_t)n + 1);
	put(m, text, (size_t)n + 1);
}

static void put_options(struct merge *m, int nr_cpus)
{
	struct tdat *t = &m->in[0];
	int i, k, c = 0;

	for (i = 0; i < t->nr_options; i++) {
		if (!carried(t->options[i].id))
			continue;
		put16(m, (uint16_t)t->options[i].id);
		put32(m, t->options[i].size);
		put(m, t->options[i].data, t->options[i].size);
	}
	for (k = 0; k < m->n; k++)
		for (i = 0; i < m->in[k].nr_cpus; i++)
			put_stat(m, c++, &m->in[k].cpus[i].stat);
	put16(m, TDAT_OPT_CPUCOUNT);
	put32(m, 4);
	put32(m, (uint32_t)nr_cpus);
	put16(m, 0);
}

/* The page with every record's common_type as the output numbers it. */
static int renumber(struct merge *m, int k, uint8_t *page)
{
	struct tdat *t = &m->in[k];
	const struct slim_page_fmt *f = &t->fmt;
	struct slim_page_info pi;
	struct slim_page_entry e;
	uint32_t off = 0;
	uint8_t *data = page + f->data_offset;
	int ret;

	if (slim_page_info(f, page, &pi))
		return merr(m, "%s: a page with a bad header", t->path);
	while ((ret = slim_page_next(f, data, pi.len, &off, &e, NULL)) > 0) {
		uint16_t id;

		if (!slim_page_is_data(&e) || e.len < 2)
			continue;
		memcpy(&id, e.payload, 2);
		id = swapped(m) ? bswap_16(id) : id;
		if (m->map[k][id])
			id = m->map[k][id];
		id = swapped(m) ? bswap_16(id) : id;
		memcpy(data + (e.payload - data), &id, 2);
	}
	return ret < 0 ? merr(m, "%s: a malformed page", t->path) : 0;
}

static int64_t copy_cpu(struct merge *m, int k, int slot)
{
	struct tdat *t = &m->in[k];
	struct tdat_cursor c;
	const uint8_t *page;
	uint8_t *buf = malloc(t->page_size);
	int64_t n = 0;
	int ret;

	if (!buf)
		return merr(m, "out of memory");
	if (tdat_cursor_init(&c, t, slot)) {
		free(buf);
		return merr(m, "%s: %s", t->path, t->err);
	}
	while ((ret = tdat_cursor_page(&c, &page)) > 0) {
		memcpy(buf, page, t->page_size);
		if (renumber(m, k, buf)) {
			ret = -1;
			break;
		}
		put(m, buf, t->page_size);
		n += t->page_size;
	}
	if (ret < 0)
		merr(m, "%s: %s", t->path, t->err);
	tdat_cursor_fini(&c);
	free(buf);
	return ret < 0 ? -1 : n;
}

static int write_all(struct merge *m)
{
	struct tdat *t = &m->in[0];
	int k, i, nr = 0, slot = 0;
	long table, pos;
	uint64_t *tab;
	const struct tdat_option *clock = tdat_option(t, TDAT_OPT_TRACECLOCK);

	for (k = 0; k < m->n; k++)
		nr += m->in[k].nr_cpus;
	tab = calloc((size_t)nr * 2 + 1, sizeof(*tab));
	if (!tab)
		return merr(m, "out of memory");
	put(m, "\x17\x08\x44tracing", 10);
	put(m, "6", 2);
	put(m, &(unsigned char){ (unsigned char)t->big_endian }, 1);
	put(m, &(unsigned char){ (unsigned char)t->long_size }, 1);
	put32(m, t->page_size);
	put(m, "header_page", 12);
	put_sized(m, t->header_page, t->header_page_len);
	put(m, "header_event", 13);
	put_sized(m, t->header_event, t->header_event_len);
	put_formats(m);
	put32(m, t->kallsyms_len);
	put(m, t->kallsyms, t->kallsyms_len);
	put32(m, t->printk_len);
	put(m, t->printk, t->printk_len);
	put_cmdlines(m);
	put32(m, (uint32_t)nr);
	put(m, "options  ", 10);
	put_options(m, nr);
	put(m, "flyrecord", 10);
	table = ftell(m->f);
	for (i = 0; i < 2 * nr; i++)
		put64(m, 0);
	if (clock) {
		size_t len = strnlen(clock->data, clock->size);

		put64(m, len);
		put(m, clock->data, len);
	}
	pos = ftell(m->f);
	pos = (pos + t->page_size - 1) / t->page_size * t->page_size;
	if (fseek(m->f, pos, SEEK_SET)) {
		free(tab);
		return merr(m, "seek: %s", strerror(errno));
	}
	for (k = 0; k < m->n; k++)
		for (i = 0; i < m->in[k].nr_cpus; i++, slot++) {
			int64_t size;

			tab[2 * slot] = (uint64_t)ftell(m->f);
			size = copy_cpu(m, k, i);
			if (size < 0) {
				free(tab);
				return -1;
			}
			tab[2 * slot + 1] = (uint64_t)size;
		}
	fseek(m->f, table, SEEK_SET);
	for (i = 0; i < 2 * nr; i++)
		put64(m, tab[i]);
	free(tab);
	return 0;
}

int tdat_merge_files(const char *const *in, int n, const char *out, char *err, size_t errlen)
{
	struct merge m = { .n = n, .err = err, .errlen = errlen };
	struct tdat_open_flags fl = { .no_plugins = 1 };
	char part[4096];
	int k, opened = 0, ret = 0;

	err[0] = '\0';
	m.in = calloc((size_t)n, sizeof(*m.in));
	m.map = calloc((size_t)n, sizeof(*m.map));
	if (!m.in || !m.map)
		ret = merr(&m, "out of memory");
	for (k = 0; k < n && !ret; k++, opened++) {
		if (tdat_open(&m.in[k], in[k], &fl))
			ret = merr(&m, "%s", m.in[k].err);
		else if (m.in[k].version != 6 && m.in[k].version != 7)
			ret = merr(&m, "%s: version %d", in[k], m.in[k].version);
		else if (m.in[k].compression[0] && strcmp(m.in[k].compression, "none"))
			ret = merr(&m, "%s: compressed; merging takes plain files", in[k]);
		if (!ret)
			ret = check_alike(&m, k);
		if (!ret)
			ret = map_events(&m, k);
	}
	snprintf(part, sizeof(part), "%s.part", out);
	if (!ret) {
		m.f = fopen(part, "w");
		if (!m.f)
			ret = merr(&m, "cannot create %s: %s", part, strerror(errno));
	}
	if (!ret)
		ret = write_all(&m);
	if (m.f && (ferror(m.f) | fclose(m.f)) && !ret)
		ret = merr(&m, "writing %s: %s", part, strerror(errno));
	if (!ret && rename(part, out))
		ret = merr(&m, "renaming %s: %s", part, strerror(errno));
	if (ret)
		unlink(part);
	for (k = 0; k < opened; k++) {
		tdat_close(&m.in[k]);
		free(m.map[k]);
	}
	free(m.in);
	free(m.map);
	free(m.evs);
	return ret;
}
