// SPDX-License-Identifier: MIT
/*
 * trace.dat to CTF 1.8 (the Common Trace Format: babeltrace2, Trace
 * Compass).  DIR/metadata is the TSDL text; DIR/stream_N holds CPU N's
 * events (a slimtrace buffer, or a kernel CPU) as packets.
 *
 * Every value is written as the format declares it (integers with their
 * size and signedness, char arrays and __data_loc strings as CTF
 * strings, other arrays as arrays, dynamic arrays as sequences), in the host's byte order with
 * byte alignment, so no padding is ever needed.  Field names get a
 * leading underscore, which CTF readers strip: a field named like a TSDL
 * keyword stays legal.  Lost events become the packets' events_discarded
 * counter, which babeltrace2 turns into "discarded events" where the
 * loss happened (docs/formats.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>
#include "cli.h"
#include "export.h"

#define CTF_MAGIC		0xC1FC1FC1u
/* A packet is closed past this size: readers index packets, not events. */
#define PACKET_TARGET		(256 * 1024)

/* Offsets in a packet: header (magic, uuid, stream id, instance), then context. */
enum {
	PH_SIZE = 4 + 16 + 4 + 8,
	PC_BEGIN = PH_SIZE,
	PC_END = PC_BEGIN + 8,
	PC_CONTENT = PC_END + 8,
	PC_PACKET = PC_CONTENT + 8,
	PC_SEQ = PC_PACKET + 8,
	PC_DISCARDED = PC_SEQ + 8,
	PC_CPU = PC_DISCARDED + 8,
	PACKET_HEAD = PC_CPU + 4,
};

struct buf {
	uint8_t *p;
	size_t len, cap;
	int oom;
};

struct ctf {
	struct tdat *t;
	const char *dir;
	struct xevent *xe;
	uint8_t uuid[16];
	char clock[40];
	/* The stream being written. */
	int cpu, fd;
	const char *stream_path;
	struct buf pkt;
	int open;
	uint64_t seq, discarded, last_ts;
	unsigned long long events, packets, lost;
};

static int grow(struct buf *b, size_t n);

static int put(struct buf *b, const void *p, size_t n)
{
	if (grow(b, n))
		return -1;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

/* An integer of SIZE bytes in host order. */
static void put_int(struct buf *b, uint64_t v, int size)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (size) {
	case 1: put(b, &u8, 1); break;
	case 2: put(b, &u16, 2); break;
	case 4: put(b, &u32, 4); break;
	default: put(b, &v, 8); break;
	}
}

static void set64(struct buf *b, size_t at, uint64_t v)
{
	memcpy(b->p + at, &v, 8);
}

static int grow(struct buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	uint8_t *q;

	if (b->len + n <= b->cap)
		return 0;
	while (cap < b->len + n)
		cap *= 2;
	q = realloc(b->p, cap);
	if (!q) {
		b->oom = 1;
		return -1;
	}
	b->p = q;
	b->cap = cap;
	return 0;
}

static void printb(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void printb(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || grow(b, (size_t)n + 1))
		return;
	va_start(ap, fmt);
	vsnprintf((char *)b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* A TSDL string literal's inside. */
static void put_quoted(struct buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			put(b, "\\", 1);
		if ((unsigned char)*s >= 0x20)
			put(b, s, 1);
	}
}

static int host_is_big_endian(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 0;
}

/* ---- metadata ------------------------------------------------------------ */

/* A stable UUID from what identifies the input: same file, same trace. */
static void make_uuid(struct ctf *c)
{
	const struct tdat *t = c->t;
	uint64_t h[2] = { 0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL };
	const char *parts[3] = { t->header_page, t->cmdlines, t->clock };
	int i, k;

	for (k = 0; k < 3; k++)
		for (i = 0; parts[k] && parts[k][i]; i++) {
			h[k & 1] = (h[k & 1] ^ (uint8_t)parts[k][i]) * 0x100000001b3ULL;
			h[!(k & 1)] = (h[!(k & 1)] + h[k & 1]) * 0x100000001b3ULL;
		}
	for (i = 0; i < t->nr_events; i++)
		h[i & 1] = (h[i & 1] ^ (uint64_t)t->events[i].format_offset) * 0x100000001b3ULL;
	h[1] ^= (uint64_t)t->file_size;
	memcpy(c->uuid, h, 16);
	c->uuid[6] = (c->uuid[6] & 0x0f) | 0x50;	/* a name-based UUID */
	c->uuid[8] = (c->uuid[8] & 0x3f) | 0x80;
}

static void print_uuid(struct buf *b, const uint8_t *u)
{
	int i;

	for (i = 0; i < 16; i++)
		printb(b, "%02x%s", u[i], i == 3 || i == 5 || i == 7 || i == 9 ? "-" : "");
}

static void clock_ident(struct ctf *c)
{
	const char *name = c->t->clock[0] ? c->t->clock : "local";
	size_t i;

	snprintf(c->clock, sizeof(c->clock), "%s%s", (name[0] >= '0' && name[0] <= '9') ? "_" : "", name);
	for (i = 0; c->clock[i]; i++)
		if (!((c->clock[i] >= 'a' && c->clock[i] <= 'z') || (c->clock[i] >= 'A' && c->clock[i] <= 'Z') ||
		      (c->clock[i] >= '0' && c->clock[i] <= '9') || c->clock[i] == '_'))
			c->clock[i] = '_';
}

static void meta_int(struct buf *b, int bits, int is_signed, int base, int text)
{
	printb(b, "integer { size = %d; align = 8; signed = %s;%s%s }", bits, is_signed ? "true" : "false",
	       base == 16 ? " base = 16;" : "", text ? " encoding = UTF8;" : "");
}

static void meta_field(struct buf *b, const struct xfield *f)
{
	printb(b, "\t\t");
	switch (f->kind) {
	case XF_TEXT:
		/*
		 * A char array too: babeltrace2 2.0 keeps the previous event's
		 * text for a UTF-8 array whose first byte is NUL.
		 */
		printb(b, "string _%s;\n", f->name);
		return;
	case XF_BYTES:
		meta_int(b, 8, 0, 16, 0);
		printb(b, " _%s[%d];\n", f->name, f->count);
		return;
	case XF_INT:
		break;
	}
	if (f->dynamic) {
		printb(b, "uint32_t __%s_length;\n\t\t", f->name);
		meta_int(b, f->size * 8, f->is_signed, f->is_pointer ? 16 : 10, 0);
		printb(b, " _%s[__%s_length];\n", f->name, f->name);
		return;
	}
	meta_int(b, f->size * 8, f->is_signed, f->is_pointer ? 16 : 10, 0);
	if (f->array)
		printb(b, " _%s[%d];\n", f->name, f->count);
	else
		printb(b, " _%s;\n", f->name);
}

static void meta_events(struct ctf *c, struct buf *b)
{
	int i, k;

	for (i = 0; i < c->t->nr_events; i++) {
		const struct xevent *xe = &c->xe[i];

		if (!xe->ev->selected)
			continue;
		printb(b, "event {\n\tname = \"");
		put_quoted(b, xe->ev->system);
		printb(b, ":");
		put_quoted(b, xe->ev->name);
		printb(b, "\";\n\tid = %d;\n\tstream_id = 0;\n\tfields := struct {\n", xe->ev->id);
		for (k = 0; k < xe->nr_fields; k++)
			meta_field(b, &xe->fields[k]);
		printb(b, "\t};\n};\n\n");
	}
}

static void meta_head(struct ctf *c, struct buf *b)
{
	const struct tdat *t = c->t;
	const char *base = strrchr(t->path, '/') ? strrchr(t->path, '/') + 1 : t->path;
	int bits;

	printb(b, "/* CTF 1.8 */\n\n");
	for (bits = 8; bits <= 64; bits *= 2)
		printb(b, "typealias integer { size = %d; align = 8; signed = false; } := uint%d_t;\n",
		       bits, bits);
	printb(b, "\ntrace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"");
	print_uuid(b, c->uuid);
	printb(b, "\";\n\tbyte_order = %s;\n", host_is_big_endian() ? "be" : "le");
	printb(b, "\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n"
		  "\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t};\n};\n\n");
	printb(b, "env {\n\ttracer_name = \"slimtrace\";\n\ttrace_name = \"");
	put_quoted(b, base);
	printb(b, "\";\n\ttrace_clock = \"");
	put_quoted(b, t->clock[0] ? t->clock : "local");
	printb(b, "\";\n};\n\n");
	printb(b, "clock {\n\tname = \"%s\";\n\tdescription = \"", c->clock);
	if (t->clock_in_ns)
		printb(b, "trace.dat trace_clock %s, in nanoseconds", t->clock[0] ? t->clock : "local");
	else
		printb(b, "trace.dat trace_clock %s: counter ticks at a rate the file does not give "
			  "(written as 1 GHz: cycles are the raw counter)", t->clock);
	printb(b, "\";\n\tfreq = 1000000000;\n\tprecision = 0;\n\toffset_s = 0;\n\toffset = 0;\n"
		  "\tabsolute = false;\n};\n\n");
	printb(b, "typealias integer { size = 64; align = 8; signed = false; map = clock.%s.value; }"
		  " := uint64_clock_t;\n\n", c->clock);
	printb(b, "stream {\n\tid = 0;\n\tpacket.context := struct {\n"
		  "\t\tuint64_clock_t timestamp_begin;\n\t\tuint64_clock_t timestamp_end;\n"
		  "\t\tuint64_t content_size;\n\t\tuint64_t packet_size;\n\t\tuint64_t packet_seq_num;\n"
		  "\t\tuint64_t events_discarded;\n\t\tuint32_t cpu_id;\n\t};\n"
		  "\tevent.header := struct {\n\t\tuint16_t id;\n\t\tuint64_clock_t timestamp;\n\t};\n"
		  "\tevent.context := struct {\n\t\tinteger { size = 32; align = 8; signed = true; } _tid;\n"
		  "\t\tstring _procname;\n\t};\n};\n\n");
}

static int write_all(int fd, const void *p, size_t n)
{
	const uint8_t *q = p;
	ssize_t w;

	while (n) {
		w = write(fd, q, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		q += w;
		n -= (size_t)w;
	}
	return 0;
}

static int write_file(const char *dir, const char *name, const struct buf *b)
{
	char path[4096];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return cli_fail("convert: %s: cannot create: %s", path, strerror(errno));
	ret = write_all(fd, b->p, b->len);
	if (close(fd) || ret)
		return cli_fail("convert: %s: write failed: %s", path, strerror(errno));
	return 0;
}

static int write_metadata(struct ctf *c)
{
	struct buf b = { 0 };
	int ret;

	meta_head(c, &b);
	meta_events(c, &b);
	if (b.oom) {
		free(b.p);
		return cli_fail("out of memory");
	}
	ret = write_file(c->dir, "metadata", &b);
	free(b.p);
	return ret;
}

/* ---- streams -------------------------------------------------------------- */

static void packet_open(struct ctf *c, uint64_t ts)
{
	uint32_t magic = CTF_MAGIC, zero32 = 0, cpu = (uint32_t)c->cpu;
	uint64_t instance = (uint64_t)c->cpu, zero = 0;

	c->pkt.len = 0;
	put(&c->pkt, &magic, 4);
	put(&c->pkt, c->uuid, 16);
	put(&c->pkt, &zero32, 4);
	put(&c->pkt, &instance, 8);
	put(&c->pkt, &ts, 8);		/* timestamp_begin */
	put(&c->pkt, &ts, 8);		/* timestamp_end, set at close */
	put(&c->pkt, &zero, 8);		/* content_size */
	put(&c->pkt, &zero, 8);		/* packet_size */
	put(&c->pkt, &c->seq, 8);
	put(&c->pkt, &zero, 8);		/* events_discarded */
	put(&c->pkt, &cpu, 4);
	c->open = 1;
	c->last_ts = ts;
}

/* events_discarded: what the stream lost up to the end of this packet. */
static int packet_close(struct ctf *c)
{
	uint64_t bits = (uint64_t)c->pkt.len * 8;

	if (c->pkt.oom)
		return cli_fail("out of memory");
	set64(&c->pkt, PC_END, c->last_ts);
	set64(&c->pkt, PC_CONTENT, bits);
	set64(&c->pkt, PC_PACKET, bits);
	set64(&c->pkt, PC_DISCARDED, c->discarded);
	c->open = 0;
	c->seq++;
	c->packets++;
	/* Created with its first packet: a CPU with nothing has no stream. */
	if (c->fd < 0)
		c->fd = open(c->stream_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (c->fd < 0)
		return cli_fail("convert: %s: cannot create: %s", c->stream_path, strerror(errno));
	if (write_all(c->fd, c->pkt.p, c->pkt.len))
		return cli_fail("convert: %s: write failed: %s", c->stream_path, strerror(errno));
	return 0;
}

static void put_field(struct ctf *c, const struct xfield *f, const struct tdat_record *r)
{
	const uint8_t *p;
	int n = xfield_span(c->t, f, r, &p), i;
	uint32_t len = (uint32_t)n;

	switch (f->kind) {
	case XF_TEXT:
		put(&c->pkt, p, n);
		put(&c->pkt, "", 1);
		return;
	case XF_BYTES:
		put(&c->pkt, p, n);
		return;
	case XF_INT:
		if (f->dynamic)
			put(&c->pkt, &len, 4);
		for (i = 0; i < n; i++)
			put_int(&c->pkt, xfield_int(c->t, f, p, i), f->size);
		return;
	}
}

static int put_event(struct ctf *c, const struct tdat_record *r)
{
	const struct xevent *xe = &c->xe[r->event - c->t->events];
	uint16_t id = (uint16_t)r->event->id;
	int32_t tid = xrecord_tid(c->t, r);
	const char *comm = xthread_name(c->t, tid);
	int i;

	if (!c->open)
		packet_open(c, r->ts);
	put(&c->pkt, &id, 2);
	put(&c->pkt, &r->ts, 8);
	put(&c->pkt, &tid, 4);
	put(&c->pkt, comm, strlen(comm) + 1);
	for (i = 0; i < xe->nr_fields; i++)
		put_field(c, &xe->fields[i], r);
	c->last_ts = r->ts;
	c->events++;
	if (c->pkt.len >= PACKET_TARGET)
		return packet_close(c);
	return 0;
}

/*
 * A reader takes the difference of two packets' events_discarded as the
 * events lost between the end of the first and the end of the second.
 * So a loss before R ends the packet before R and counts in the next.
 * A stream's first packet has nothing to differ from (babeltrace2 then
 * says only "may have discarded"): an empty packet at zero goes first.
 */
static int empty_packet(struct ctf *c, uint64_t ts)
{
	packet_open(c, ts);
	return packet_close(c);
}

static int lost_before(struct ctf *c, const struct tdat_record *r)
{
	int ret = 0;

	if (c->open)
		ret = packet_close(c);
	else if (!c->seq)
		ret = empty_packet(c, r->ts);
	c->discarded += r->missed > 0 ? (uint64_t)r->missed : 1;
	return ret;
}

/* Losses no page carried (after the last one): the statistics tell. */
static int lost_after(struct ctf *c, unsigned long long total)
{
	if (total <= c->discarded)
		return 0;
	if (c->open && packet_close(c))
		return -1;
	if (!c->seq && empty_packet(c, c->last_ts))
		return -1;
	c->discarded = total;
	return empty_packet(c, c->last_ts);
}

static int stream_cpu(struct ctf *c, int cpu)
{
	struct tdat_cursor cur;
	struct tdat_record r;
	char path[4096];
	unsigned long long total;
	int ret;

	c->cpu = cpu;
	c->seq = c->discarded = c->last_ts = 0;
	c->open = 0;
	if (tdat_cursor_init(&cur, c->t, cpu))
		return cli_fail("%s: %s", c->t->path, c->t->err);
	snprintf(path, sizeof(path), "%s/stream_%d", c->dir, cpu);
	c->stream_path = path;
	c->fd = -1;
	while ((ret = tdat_cursor_next(&cur, &r)) > 0) {
		if (r.missed && lost_before(c, &r))
			goto fail;
		if (r.event->selected && put_event(c, &r))
			goto fail;
	}
	if (ret < 0) {
		cli_fail("%s: %s", c->t->path, c->t->err);
		goto fail;
	}
	total = tdat_cpu_lost(&cur, &c->t->cpus[cpu].stat);
	if (lost_after(c, total) || (c->open && packet_close(c)))
		goto fail;
	c->lost += c->discarded;
	tdat_cursor_fini(&cur);
	if (c->fd >= 0 && close(c->fd))
		return cli_fail("convert: %s: write failed: %s", path, strerror(errno));
	return 0;
fail:
	tdat_cursor_fini(&cur);
	if (c->fd >= 0)
		close(c->fd);
	return EXIT_FAIL;
}

/* DIR must be new or empty: stale streams of another trace would mix in. */
static int prepare_dir(const char *dir)
{
	struct dirent *d;
	DIR *dp;

	if (mkdir(dir, 0755) == 0)
		return 0;
	if (errno != EEXIST)
		return cli_fail("convert: %s: cannot create the directory: %s", dir, strerror(errno));
	dp = opendir(dir);
	if (!dp)
		return cli_fail("convert: %s: exists and is not a directory I can open: %s", dir,
				strerror(errno));
	while ((d = readdir(dp)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			break;
	closedir(dp);
	if (d)
		return cli_fail("convert: %s: the directory is not empty (CTF goes into a new or empty one)",
				dir);
	return 0;
}

int export_ctf(struct tdat *t, const char *dir, const struct export_opts *o)
{
	struct ctf c = { .t = t, .dir = dir, .fd = -1 };
	int ret, cpu;

	(void)o;
	ret = prepare_dir(dir);
	if (ret)
		return ret;
	c.xe = xevents_build(t);
	if (!c.xe)
		return cli_fail("%s: %s", t->path, t->err);
	make_uuid(&c);
	clock_ident(&c);
	if (!t->clock_in_ns)
		fprintf(stderr, "slimtrace: convert: note: clock '%s' counts ticks at a rate %s does not give: "
			"the CTF clock says 1 GHz, so its cycles are the raw counter\n", t->clock, t->path);
	ret = write_metadata(&c);
	for (cpu = 0; !ret && cpu < t->nr_cpus; cpu++)
		ret = stream_cpu(&c, cpu);
	if (!ret)
		printf("%s: CTF 1.8, %llu events in %llu packets, %llu lost\n", dir, c.events,
		       c.packets, c.lost);
	free(c.pkt.p);
	xevents_free(c.xe, t->nr_events);
	return ret;
}
