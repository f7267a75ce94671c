// SPDX-License-Identifier: MIT
/*
 * trace.dat versions 6 and 7: the header (formats, command lines,
 * options, the CPU table or the buffers) and the CPU data (kernel
 * ring-buffer pages, in version 7 maybe compressed with zstd).  The
 * layouts are trace-cmd's, described in trace-cmd.dat.v6(5) and
 * trace-cmd.dat.v7(5); the page and event encoding is the kernel's,
 * read with src/ring/page.c, the library's own decoder.
 */
#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <traceevent/event-parse.h>
#include <zstd.h>
#include "ring/page.h"
#include "tdat.h"

#define PAGE_SLACK		64	/* zeros after a page: stops runaway strings */
#define CHUNK_MAX		(64u << 20)	/* the largest compressed chunk read */
#define SECTION_MAX		(1ull << 30)	/* the largest metadata section read */

static const unsigned char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

static int fail(struct tdat *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct tdat *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
	return -1;
}

static int host_big_endian(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 0;
}

static uint16_t get16(const struct tdat *t, const void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return t->big_endian != host_big_endian() ? bswap_16(v) : v;
}

static uint32_t get32(const struct tdat *t, const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return t->big_endian != host_big_endian() ? bswap_32(v) : v;
}

static uint64_t get64(const struct tdat *t, const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return t->big_endian != host_big_endian() ? bswap_64(v) : v;
}

/* Where what is being read ends: the file, or the section read in its place. */
static off_t end_of(const struct tdat *t)
{
	return t->win ? t->win_base + (off_t)t->win_len : t->file_size;
}

/* Bytes left from OFF on (0 past the end). */
static uint64_t left(const struct tdat *t, off_t off)
{
	off_t end = end_of(t);

	return off >= end ? 0 : (uint64_t)(end - off);
}

static int rd(struct tdat *t, off_t off, void *buf, size_t len, const char *what)
{
	size_t done = 0;
	ssize_t n;

	if (len > left(t, off) || (t->win && off < t->win_base))
		return fail(t, "truncated: %s needs %zu bytes at offset %lld, but the %s ends at %lld",
			    what, len, (long long)off, t->win ? "section" : "file",
			    (long long)end_of(t));
	if (t->win) {
		memcpy(buf, t->win + (off - t->win_base), len);
		return 0;
	}
	while (done < len) {
		n = pread(t->fd, (char *)buf + done, len - done, off + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail(t, "reading %s at offset %lld: %s", what,
				    (long long)(off + done), n ? strerror(errno) : "unexpected end of file");
		done += n;
	}
	return 0;
}

/* A cursor over the header. */
struct hdr {
	struct tdat *t;
	off_t pos;
};

static int rd_u16(struct hdr *h, unsigned int *v, const char *what)
{
	uint8_t b[2];

	if (rd(h->t, h->pos, b, 2, what))
		return -1;
	h->pos += 2;
	*v = get16(h->t, b);
	return 0;
}

static int rd_u32(struct hdr *h, uint32_t *v, const char *what)
{
	uint8_t b[4];

	if (rd(h->t, h->pos, b, 4, what))
		return -1;
	h->pos += 4;
	*v = get32(h->t, b);
	return 0;
}

static int rd_u64(struct hdr *h, uint64_t *v, const char *what)
{
	uint8_t b[8];

	if (rd(h->t, h->pos, b, 8, what))
		return -1;
	h->pos += 8;
	*v = get64(h->t, b);
	return 0;
}

/* A sized blob: LEN bytes (checked against the file) plus a NUL. */
static int rd_blob(struct hdr *h, uint64_t len, char **out, const char *what)
{
	char *buf;

	if (len > left(h->t, h->pos))
		return fail(h->t, "%s at offset %lld says %llu bytes, but only %llu are left in the file",
			    what, (long long)h->pos, (unsigned long long)len,
			    (unsigned long long)left(h->t, h->pos));
	buf = malloc(len + 1);
	if (!buf)
		return fail(h->t, "out of memory for %s (%llu bytes)", what, (unsigned long long)len);
	if (rd(h->t, h->pos, buf, len, what)) {
		free(buf);
		return -1;
	}
	buf[len] = '\0';
	h->pos += len;
	*out = buf;
	return 0;
}

static int rd_label(struct hdr *h, const char *label, size_t len)
{
	char buf[16];

	if (rd(h->t, h->pos, buf, len, label))
		return -1;
	if (memcmp(buf, label, len))
		return fail(h->t, "expected \"%s\" at offset %lld", label, (long long)h->pos);
	h->pos += len;
	return 0;
}

/* A NUL-terminated string of at most MAX bytes. */
static int rd_cstr(struct hdr *h, char *buf, size_t max, const char *what)
{
	size_t n = max;

	if (n > left(h->t, h->pos))
		n = left(h->t, h->pos);
	if (rd(h->t, h->pos, buf, n, what))
		return -1;
	if (!memchr(buf, '\0', n))
		return fail(h->t, "%s at offset %lld: no terminating NUL within %zu bytes",
			    what, (long long)h->pos, n);
	h->pos += strlen(buf) + 1;
	return 0;
}

/* ---- initial format and headers ------------------------------------- */

/* v7: "name\0version\0" of the compression, then the first options section. */
static int read_compression(struct hdr *h)
{
	struct tdat *t = h->t;
	char name[64], version[64];
	off_t at = h->pos;

	if (rd_cstr(h, name, sizeof(name), "the compression name") ||
	    rd_cstr(h, version, sizeof(version), "the compression version"))
		return -1;
	if (strcmp(name, "none") && strcmp(name, "zstd"))
		return fail(t, "compression '%s' at offset %lld is not supported: "
			    "only zstd and none are", name, (long long)at);
	memcpy(t->compression, name, strlen(name) + 1);	/* "none" or "zstd" */
	return 0;
}

static int read_initial(struct hdr *h)
{
	struct tdat *t = h->t;
	unsigned char buf[10];
	char version[16];
	uint32_t ps;

	if (rd(t, 0, buf, sizeof(buf), "the magic"))
		return -1;
	if (memcmp(buf, magic, sizeof(magic)))
		return fail(t, "not a trace.dat file: bad magic at offset 0");
	h->pos = 10;
	if (rd_cstr(h, version, sizeof(version), "the version"))
		return -1;
	if (strcmp(version, "6") && strcmp(version, "7"))
		return fail(t, "unsupported trace.dat version \"%.8s\" at offset 10", version);
	t->version = version[0] - '0';
	if (rd(t, h->pos, buf, 2, "endianness and long size"))
		return -1;
	if (buf[0] > 1)
		return fail(t, "bad endianness byte %u at offset %lld", buf[0], (long long)h->pos);
	if (buf[1] != 4 && buf[1] != 8)
		return fail(t, "bad long size %u at offset %lld", buf[1], (long long)h->pos + 1);
	t->big_endian = buf[0];
	t->long_size = buf[1];
	h->pos += 2;
	if (rd_u32(h, &ps, "the page size"))
		return -1;
	if (ps < 1024 || ps > (1U << 20) || (ps & (ps - 1)))
		return fail(t, "bad page size %u at offset %lld", ps, (long long)h->pos - 4);
	t->page_size = ps;
	return t->version == 7 ? read_compression(h) : 0;
}

static int read_headers(struct hdr *h)
{
	struct tdat *t = h->t;
	struct slim_page_fields fl;
	off_t hp_at, he_at;
	int ret;

	if (rd_label(h, "header_page", 12) || rd_u64(h, &t->header_page_len, "the header_page size"))
		return -1;
	hp_at = h->pos;
	if (rd_blob(h, t->header_page_len, &t->header_page, "header_page"))
		return -1;
	if (rd_label(h, "header_event", 13) || rd_u64(h, &t->header_event_len, "the header_event size"))
		return -1;
	he_at = h->pos;
	if (rd_blob(h, t->header_event_len, &t->header_event, "header_event"))
		return -1;
	ret = slim_page_fmt_parse(&t->fmt, t->header_page, t->header_event, t->page_size,
				  t->big_endian, &fl);
	if (ret == SLIM_PAGE_E_FIELDS)
		return fail(t, "header_page at offset %lld: no timestamp, commit or data field",
			    (long long)hp_at);
	if (ret == SLIM_PAGE_E_FIT)
		return fail(t, "header_page at offset %lld: fields do not fit a %u-byte page "
			    "(timestamp %d/%d, commit %d/%d, data %d/%d)", (long long)hp_at, t->page_size,
			    fl.ts_off, fl.ts_size, fl.commit_off, fl.commit_size, fl.data_off, fl.data_size);
	if (ret)
		return fail(t, "header_event at offset %lld: not the 5-bit type_len / 27-bit time_delta "
			    "event header this reader knows", (long long)he_at);
	t->commit_offset = fl.commit_off;
	t->commit_size = fl.commit_size;
	t->data_offset = fl.data_off;
	t->data_size = fl.data_size;
	tep_parse_header_page(t->tep, t->header_page, t->header_page_len, t->commit_size);
	return 0;
}

/* ---- event formats ------------------------------------------------------ */

static int add_dyn(struct tdat *t, struct tdat_event *ev, struct tep_format_field *f)
{
	struct tdat_dyn *d;

	d = realloc(ev->dyn, (ev->nr_dyn + 1) * sizeof(*d));
	if (!d)
		return fail(t, "out of memory");
	ev->dyn = d;
	d += ev->nr_dyn++;
	d->offset = f->offset;
	d->relative = !!(f->flags & TEP_FIELD_IS_RELATIVE);
	d->name = f->name;
	return 0;
}

/* The fixed part a record must have, and the locators to check in it. */
static int event_layout(struct tdat *t, struct tdat_event *ev)
{
	struct tep_format_field *lists[2] = { ev->tep->format.common_fields, ev->tep->format.fields };
	struct tep_format_field *f;
	int i, type_ok = 0;

	for (i = 0; i < 2; i++) {
		for (f = lists[i]; f; f = f->next) {
			if (f->offset < 0 || f->size < 0 || f->offset + f->size > t->data_size)
				return fail(t, "format of %s:%s at offset %lld: field '%s' (offset %d, size %d) "
					    "does not fit a page", ev->system, ev->name,
					    (long long)ev->format_offset, f->name, f->offset, f->size);
			if (f->offset + f->size > ev->min_size)
				ev->min_size = f->offset + f->size;
			if (!strcmp(f->name, "common_type") && f->offset == 0 && f->size == 2)
				type_ok = 1;
			if ((f->flags & TEP_FIELD_IS_DYNAMIC) && add_dyn(t, ev, f))
				return -1;
		}
	}
	if (!type_ok)
		return fail(t, "format of %s:%s at offset %lld: no 2-byte common_type at offset 0",
			    ev->system, ev->name, (long long)ev->format_offset);
	return 0;
}

static int is_ident(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Is NAME (LEN bytes) declared by a "field:... NAME;" or "NAME[n];" line? */
static int has_field(const char *text, const char *name, size_t len)
{
	const char *p, *e, *b;

	for (p = strstr(text, "field:"); p; p = strstr(p + 6, "field:")) {
		e = strchr(p, ';');
		if (!e)
			return 0;
		if (e > p && e[-1] == ']')
			while (e > p && *e != '[')
				e--;
		for (b = e; b > p && is_ident((unsigned char)b[-1]); b--)
			;
		if ((size_t)(e - b) == len && !strncmp(b, name, len))
			return 1;
	}
	return 0;
}

/*
 * libtraceevent crashes on a print fmt that names a field the event does
 * not have (one flipped bit in a name is enough): check REC->x and
 * __get_*(x) first, and say which name is wrong.
 */
static int check_references(struct tdat *t, const char *text, const char *system, off_t at)
{
	const char *fmt = strstr(text, "print fmt:"), *p, *n;
	size_t len;

	if (!fmt)
		return 0;
	for (p = fmt; (p = strpbrk(p, "R_")); p++) {
		if (!strncmp(p, "REC->", 5)) {
			n = p + 5;
		} else if (!strncmp(p, "__get_", 6) && (p == fmt || !is_ident((unsigned char)p[-1]))) {
			n = p + 6;
			while (is_ident((unsigned char)*n))
				n++;
			if (*n != '(')
				continue;
			n++;
		} else {
			continue;
		}
		for (len = 0; is_ident((unsigned char)n[len]); len++)
			;
		if (len && !has_field(text, n, len))
			return fail(t, "event format of system '%s' at offset %lld: the print fmt uses "
				    "'%.*s', which is not one of its fields", system, (long long)at,
				    (int)len, n);
	}
	return 0;
}

static int add_format(struct hdr *h, const char *system)
{
	struct tdat *t = h->t;
	struct tdat_event *ev;
	struct tep_event *te = NULL;
	enum tep_errno ret;
	uint64_t len;
	char *text, msg[128];
	off_t at;
	int i;

	if (rd_u64(h, &len, "a format size"))
		return -1;
	at = h->pos;
	if (rd_blob(h, len, &text, "an event format"))
		return -1;
	if (check_references(t, text, system, at)) {
		free(text);
		return -1;
	}
	if (t->probe_fd >= 0 && write(t->probe_fd, &at, sizeof(at)) != sizeof(at))
		_exit(0);
	ret = tep_parse_format(t->tep, &te, text, len, system);
	if (!te) {
		tep_strerror(t->tep, ret, msg, sizeof(msg));
		free(text);
		return fail(t, "event format of system '%s' at offset %lld does not parse: %s",
			    system, (long long)at, msg);
	}
	for (i = 0; i < t->nr_events; i++) {
		if (t->events[i].id == te->id) {
			free(text);
			return fail(t, "event format at offset %lld: id %d of %s:%s is already used by %s:%s",
				    (long long)at, te->id, system, te->name,
				    t->events[i].system, t->events[i].name);
		}
	}
	ev = realloc(t->events, (t->nr_events + 1) * sizeof(*ev));
	if (!ev) {
		free(text);
		return fail(t, "out of memory");
	}
	t->events = ev;
	ev += t->nr_events++;
	memset(ev, 0, sizeof(*ev));
	ev->id = te->id;
	ev->system = te->system;
	ev->name = te->name;
	ev->tep = te;
	ev->format = text;
	ev->format_len = len;
	ev->format_offset = at;
	ev->selected = 1;
	return event_layout(t, ev);
}

static int read_ftrace_formats(struct hdr *h)
{
	struct tdat *t = h->t;
	uint32_t n, i;

	if (rd_u32(h, &n, "the ftrace format count"))
		return -1;
	if (n > left(t, h->pos) / 8)
		return fail(t, "ftrace format count %u at offset %lld is more than the file can hold",
			    n, (long long)h->pos - 4);
	for (i = 0; i < n; i++) {
		if (add_format(h, "ftrace"))
			return -1;
		t->events[t->nr_events - 1].ftrace = 1;
	}
	return 0;
}

static int read_event_formats(struct hdr *h)
{
	struct tdat *t = h->t;
	uint32_t i, nsys, s, nev;
	char system[256];

	if (rd_u32(h, &nsys, "the system count"))
		return -1;
	if (nsys > left(t, h->pos) / 6)
		return fail(t, "system count %u at offset %lld is more than the file can hold",
			    nsys, (long long)h->pos - 4);
	for (s = 0; s < nsys; s++) {
		if (rd_cstr(h, system, sizeof(system), "a system name") ||
		    rd_u32(h, &nev, "an event count"))
			return -1;
		if (nev > left(t, h->pos) / 8)
			return fail(t, "event count %u of system '%s' at offset %lld is more than the file can hold",
				    nev, system, (long long)h->pos - 4);
		for (i = 0; i < nev; i++)
			if (add_format(h, system))
				return -1;
	}
	return 0;
}

/* ---- kallsyms, printk formats, command lines ---------------------------- */

static int read_cmdlines(struct hdr *h)
{
	struct tdat *t = h->t;
	char *line, *end, *comm;
	off_t at;
	long pid;

	if (rd_u64(h, &t->cmdlines_len, "the cmdlines size"))
		return -1;
	at = h->pos;
	if (rd_blob(h, t->cmdlines_len, &t->cmdlines, "cmdlines"))
		return -1;
	for (line = t->cmdlines; *line; line = end + (*end == '\n')) {
		end = line + strcspn(line, "\n");
		if (end == line)
			continue;
		errno = 0;
		pid = strtol(line, &comm, 10);
		if (errno || comm == line || *comm != ' ' || pid < 0 || pid > 0x7fffffff)
			return fail(t, "cmdlines at offset %lld: bad line at offset %lld: \"%.*s\"",
				    (long long)at, (long long)(at + (line - t->cmdlines)),
				    (int)(end - line > 40 ? 40 : end - line), line);
		comm++;
		{
			char save = *end;

			*end = '\0';
			tep_register_comm(t->tep, comm, (int)pid);
			*end = save;
		}
	}
	return 0;
}

static int read_kallsyms(struct hdr *h)
{
	struct tdat *t = h->t;

	if (rd_u32(h, &t->kallsyms_len, "the kallsyms size") ||
	    rd_blob(h, t->kallsyms_len, &t->kallsyms, "kallsyms"))
		return -1;
	if (t->kallsyms_len)
		tep_parse_kallsyms(t->tep, t->kallsyms);
	return 0;
}

static int read_printk(struct hdr *h)
{
	struct tdat *t = h->t;

	if (rd_u32(h, &t->printk_len, "the printk formats size") ||
	    rd_blob(h, t->printk_len, &t->printk, "printk formats"))
		return -1;
	if (t->printk_len)
		tep_parse_printk_formats(t->tep, t->printk);
	return 0;
}

/* ---- options, the CPU table, the buffers ----------------------------------- */

static long long stat_value(const char *text, const char *key)
{
	const char *p = text;
	size_t n = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ':')
			return strtoll(p + n + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

/* What the options say that is needed once they are all read. */
struct opt_state {
	const char *stat_buffer;	/* the buffer CPUSTATs describe now ("": top) */
	size_t stat_len;
	int in_v6_buffer;		/* v6: past a BUFFER option */
	off_t section[6];		/* v7: HEADER_INFO .. CMDLINES, 0 if absent */
	uint64_t next;			/* v7: the next options section */
	int nr_bufopts;
	int *bufopts;			/* v7: the BUFFER options, in order */
};

/* The recorder's CPUSTAT for events that found no buffer (src/record/tdat_out.c). */
#define NOBUF_STAT	"events lost for want of a buffer: "

/* A CPUSTAT of "CPU: n" to the CPU of that number in the buffer named. */
static void apply_stat(struct tdat *t, const char *buffer, size_t len, const char *text)
{
	long long cpu = stat_value(text, "CPU");
	int i;

	for (i = 0; i < t->nr_cpus; i++) {
		struct tdat_cpu *c = &t->cpus[i];

		if (c->cpu != cpu || strlen(t->buffers[c->buffer].name) != len ||
		    strncmp(t->buffers[c->buffer].name, buffer, len))
			continue;
		c->stat.entries = stat_value(text, "entries");
		c->stat.overrun = stat_value(text, "overrun");
		c->stat.dropped = stat_value(text, "dropped events");
		c->stat.read = stat_value(text, "read events");
	}
}

static void set_clock_from(struct tdat *t, const char *text)
{
	const char *p = strchr(text, '['), *e = p ? strchr(p, ']') : NULL;
	size_t n;

	if (!e)
		return;
	n = e - p - 1;
	if (n >= sizeof(t->clock))
		n = sizeof(t->clock) - 1;
	memcpy(t->clock, p + 1, n);
	t->clock[n] = '\0';
}

static int use_option(struct tdat *t, int idx, struct opt_state *os)
{
	struct tdat_option *o = &t->options[idx];
	uint64_t v = 0;
	int *b;

	if (o->id >= TDAT_OPT_HEADER_INFO && o->id <= TDAT_OPT_CMDLINES && t->version == 7) {
		if (o->size != 8)
			return fail(t, "option %u at offset %lld: %u bytes, not a section offset",
				    o->id, (long long)o->offset, o->size);
		v = get64(t, o->data);
		if (v > (uint64_t)INT64_MAX)
			return fail(t, "option %u at offset %lld: section offset %llu is beyond any file",
				    o->id, (long long)o->offset, (unsigned long long)v);
		os->section[o->id - TDAT_OPT_HEADER_INFO] = (off_t)v;
		return 0;
	}
	switch (o->id) {
	case TDAT_OPT_BUFFER:
		if (t->version == 6) {
			t->nr_buffers++;
			os->in_v6_buffer = 1;
			break;
		}
		b = realloc(os->bufopts, (os->nr_bufopts + 1) * sizeof(*b));
		if (!b)
			return fail(t, "out of memory");
		os->bufopts = b;
		b[os->nr_bufopts++] = idx;
		break;
	case TDAT_OPT_CPUSTAT:
		/* trace-cmd marks the statistics of an instance with a "Buffer: name" one. */
		if (!strncmp(o->data, "\nBuffer: ", 9)) {
			os->stat_buffer = o->data + 9;
			os->stat_len = strcspn(o->data + 9, "\n");
		} else if (!strncmp(o->data, NOBUF_STAT, sizeof(NOBUF_STAT) - 1)) {
			t->lost_nobuf += strtoull(o->data + sizeof(NOBUF_STAT) - 1, NULL, 10);
		} else if (!os->in_v6_buffer) {
			apply_stat(t, os->stat_buffer, os->stat_len, o->data);
		}
		break;
	case TDAT_OPT_TRACECLOCK:
		set_clock_from(t, o->data);
		break;
	case TDAT_OPT_DATE:
		t->ts_offset = strtoll(o->data, NULL, 0);
		break;
	case TDAT_OPT_CPUCOUNT:
		if (o->size == 4)
			t->cpu_count = (int)get32(t, o->data);
		break;
	}
	return 0;
}

/* Options until DONE (v7: whose data is the next section's offset). */
static int read_options(struct hdr *h, struct opt_state *os)
{
	struct tdat *t = h->t;
	struct tdat_option *o;
	unsigned int id;
	uint32_t size;

	for (;;) {
		if (rd_u16(h, &id, "an option id"))
			return -1;
		if (!id && t->version == 6)
			return 0;
		if (rd_u32(h, &size, "an option size"))
			return -1;
		if (!id) {
			if (size != 8 || rd_u64(h, &os->next, "the next options offset"))
				return fail(t, "the DONE option at offset %lld is not an 8-byte offset",
					    (long long)h->pos - 6);
			return 0;
		}
		o = realloc(t->options, (t->nr_options + 1) * sizeof(*o));
		if (!o)
			return fail(t, "out of memory");
		t->options = o;
		o += t->nr_options;
		memset(o, 0, sizeof(*o));
		o->id = id;
		o->size = size;
		o->offset = h->pos;
		if (rd_blob(h, size, &o->data, "an option"))
			return -1;
		t->nr_options++;
		if (use_option(t, t->nr_options - 1, os))
			return -1;
	}
}

static struct tdat_cpu *add_cpu(struct tdat *t)
{
	struct tdat_cpu *c = realloc(t->cpus, (t->nr_cpus + 1) * sizeof(*c));

	if (!c)
		return NULL;
	t->cpus = c;
	c += t->nr_cpus++;
	memset(c, 0, sizeof(*c));
	c->stat = (struct tdat_cpustat){ -1, -1, -1, -1 };
	c->buffer = t->nr_bufs - 1;
	return c;
}

static int add_buffer(struct tdat *t, const char *name, const char *clock)
{
	struct tdat_buffer *b = realloc(t->buffers, (t->nr_bufs + 1) * sizeof(*b));

	if (!b)
		return fail(t, "out of memory");
	t->buffers = b;
	b += t->nr_bufs++;
	b->name = strdup(name);
	snprintf(b->clock, sizeof(b->clock), "%s", clock);
	return b->name ? 0 : fail(t, "out of memory");
}

/* The first place the data ends early, said once the readable part is read. */
static void cut_short(struct tdat *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void cut_short(struct tdat *t, const char *fmt, ...)
{
	va_list ap;

	if (t->cut_short[0])
		return;
	va_start(ap, fmt);
	vsnprintf(t->cut_short, sizeof(t->cut_short), fmt, ap);
	va_end(ap);
}

/* A CPU's data against the file: an error, or what of it can be read. */
static int check_cpu(struct tdat *t, int i)
{
	struct tdat_cpu *c = &t->cpus[i];
	uint64_t off = (uint64_t)c->offset, size = c->size, room;
	const char *name = t->buffers[c->buffer].name;

	if (size && t->version == 6 && (off_t)off < t->data_start)
		return fail(t, "CPU %d data at offset %llu (table entry at offset %lld) "
			    "overlaps the header, which ends at %lld", c->cpu, (unsigned long long)off,
			    (long long)c->table, (long long)t->data_start);
	if (!c->compressed && size % t->page_size)
		return fail(t, "CPU %d data size %llu (table entry at offset %lld) is not a "
			    "multiple of the page size %u", c->cpu, (unsigned long long)size,
			    (long long)c->table + 8, t->page_size);
	room = off > (uint64_t)t->file_size ? 0 : (uint64_t)t->file_size - off;
	/* trace-cmd's size of compressed data leaves out the chunk count. */
	if (c->compressed && size)
		size += 4;
	c->avail = size;
	if (size <= room)
		return 0;
	c->avail = c->compressed ? room : room / t->page_size * t->page_size;
	cut_short(t, "CPU %d%s%s data (offset %llu, %llu bytes; table entry at offset %lld) "
		  "goes beyond the end of the file at %lld: the data ends at offset %llu",
		  c->cpu, name[0] ? " of buffer " : "", name, (unsigned long long)off,
		  (unsigned long long)size, (long long)c->table, (long long)t->file_size,
		  (unsigned long long)(off + c->avail));
	return 0;
}

/* With a TRACECLOCK option, the trace_clock file follows the CPU table. */
static int read_clock(struct hdr *h)
{
	struct tdat *t = h->t;
	uint64_t len;
	char *text;

	if (!tdat_option(t, TDAT_OPT_TRACECLOCK))
		return 0;
	if (rd_u64(h, &len, "the trace_clock size"))
		return -1;
	if (len > 4096)
		return fail(t, "trace_clock at offset %lld: %llu bytes is not a clock list",
			    (long long)h->pos - 8, (unsigned long long)len);
	if (rd_blob(h, len, &text, "trace_clock"))
		return -1;
	set_clock_from(t, text);
	free(text);
	return 0;
}

static int read_cpu_table(struct hdr *h, uint32_t n)
{
	struct tdat *t = h->t;
	struct tdat_cpu *c;
	uint64_t off;
	uint32_t i;

	if (add_buffer(t, "", ""))
		return -1;
	for (i = 0; i < n; i++) {
		c = add_cpu(t);
		if (!c)
			return fail(t, "out of memory");
		c->cpu = (int)i;
		c->table = h->pos;
		if (rd_u64(h, &off, "a CPU data offset") || rd_u64(h, &c->size, "a CPU data size"))
			return -1;
		if (off > (uint64_t)INT64_MAX)
			return fail(t, "CPU %u data offset %llu at offset %lld is beyond any file", i,
				    (unsigned long long)off, (long long)c->table);
		c->offset = (off_t)off;
	}
	if (read_clock(h))
		return -1;
	t->data_start = h->pos;
	for (i = 0; i < n; i++)
		if (check_cpu(t, (int)i))
			return -1;
	return 0;
}

/* v6: the CPU count, options, "flyrecord" and the CPU table. */
static int read_tail(struct hdr *h)
{
	struct tdat *t = h->t;
	struct opt_state os = { .stat_buffer = "" };
	uint32_t n;
	char label[10];
	size_t i;

	if (rd_u32(h, &n, "the CPU count"))
		return -1;
	if (n > left(t, h->pos) / 16)
		return fail(t, "CPU count %u at offset %lld is more than the file can hold",
			    n, (long long)h->pos - 4);
	if (rd(t, h->pos, label, 10, "the options/flyrecord label"))
		return -1;
	if (!memcmp(label, "options  ", 10)) {
		h->pos += 10;
		if (read_options(h, &os) || rd(t, h->pos, label, 10, "the flyrecord label"))
			return -1;
	}
	if (!memcmp(label, "latency  ", 10))
		return fail(t, "offset %lld: a latency (text) trace: only flyrecord traces are supported",
			    (long long)h->pos);
	if (memcmp(label, "flyrecord", 10))
		return fail(t, "expected \"flyrecord\" at offset %lld", (long long)h->pos);
	h->pos += 10;
	if (read_cpu_table(h, n))
		return -1;
	/* The statistics were read before the CPUs they describe. */
	os.stat_buffer = "";
	os.in_v6_buffer = 0;
	for (i = 0; i < (size_t)t->nr_options; i++) {
		if (t->options[i].id == TDAT_OPT_BUFFER)
			os.in_v6_buffer = 1;
		if (t->options[i].id == TDAT_OPT_CPUSTAT && !os.in_v6_buffer)
			apply_stat(t, "", 0, t->options[i].data);
	}
	return 0;
}

/* ---- version 7: sections ---------------------------------------------------- */

enum { SEC_OPTIONS = 0, SEC_FLYRECORD = 3, SEC_FL_COMPRESSED = 1 };

struct section {
	off_t at;			/* of its header */
	unsigned int id, flags;
	uint64_t size;
	off_t data;			/* of its content */
};

static int read_section_header(struct tdat *t, off_t at, unsigned int want, const char *what,
			       struct section *sec)
{
	uint8_t b[16];

	if (rd(t, at, b, sizeof(b), what))
		return -1;
	sec->at = at;
	sec->id = get16(t, b);
	sec->flags = get16(t, b + 2);
	sec->size = get64(t, b + 8);
	sec->data = at + 16;
	if (sec->id != want)
		return fail(t, "%s at offset %lld: section id %u, expected %u", what,
			    (long long)at, sec->id, want);
	if (sec->flags & ~SEC_FL_COMPRESSED)
		return fail(t, "%s at offset %lld: unknown section flags 0x%x", what,
			    (long long)at, sec->flags);
	if ((sec->flags & SEC_FL_COMPRESSED) && !t->zstd)
		return fail(t, "%s at offset %lld is compressed, but the file says \"%s\"", what,
			    (long long)at, t->compression);
	return 0;
}

/* A section's content into memory, decompressed: *buf (free it), *len. */
static int load_section(struct tdat *t, const struct section *sec, const char *what,
			uint8_t **buf, uint64_t *len)
{
	uint64_t size = sec->size;
	uint32_t csize, usize;
	uint8_t hb[8], *c;
	size_t got;

	*buf = NULL;
	*len = 0;
	if (size > left(t, sec->data))
		return fail(t, "truncated: %s at offset %lld says %llu bytes, but the file ends at %lld",
			    what, (long long)sec->at, (unsigned long long)size, (long long)t->file_size);
	if (size > SECTION_MAX)
		return fail(t, "%s at offset %lld: %llu bytes is more than this reader takes",
			    what, (long long)sec->at, (unsigned long long)size);
	if (!(sec->flags & SEC_FL_COMPRESSED)) {
		*buf = malloc(size ? size : 1);
		if (!*buf)
			return fail(t, "out of memory for %s", what);
		*len = size;
		return rd(t, sec->data, *buf, size, what);
	}
	if (size < 8 || rd(t, sec->data, hb, 8, what))
		return size < 8 ? fail(t, "%s at offset %lld: no compression header", what,
				       (long long)sec->at) : -1;
	csize = get32(t, hb);
	usize = get32(t, hb + 4);
	if (csize > size - 8 || usize > SECTION_MAX)
		return fail(t, "%s at offset %lld: compressed size %u / size %u do not fit the "
			    "section's %llu bytes", what, (long long)sec->at, csize, usize,
			    (unsigned long long)size);
	c = malloc(csize ? csize : 1);
	*buf = malloc(usize ? usize : 1);
	if (!c || !*buf) {
		free(c);
		return fail(t, "out of memory for %s", what);
	}
	if (rd(t, sec->data + 8, c, csize, what)) {
		free(c);
		return -1;
	}
	got = ZSTD_decompressDCtx(t->zstd, *buf, usize, c, csize);
	free(c);
	if (ZSTD_isError(got) || got != usize)
		return fail(t, "%s at offset %lld does not decompress: %s", what, (long long)sec->at,
			    ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short");
	*len = usize;
	return 0;
}

/* Run fn over a section's content as if it were the file there. */
static int in_section(struct hdr *h, off_t at, unsigned int id, const char *what,
		      int (*fn)(struct hdr *h))
{
	struct tdat *t = h->t;
	struct section sec;
	uint8_t *buf = NULL;
	uint64_t len = 0;
	int ret;

	if (read_section_header(t, at, id, what, &sec) || load_section(t, &sec, what, &buf, &len)) {
		free(buf);
		return -1;
	}
	t->win = buf;
	t->win_base = sec.data;
	t->win_len = len;
	h->pos = sec.data;
	ret = fn(h);
	t->win = NULL;
	free(buf);
	return ret;
}

static struct opt_state *cur_os;	/* read_options_section's, for in_section */

static int options_fn(struct hdr *h)
{
	return read_options(h, cur_os);
}

/* The chain of options sections. */
static int read_options_v7(struct hdr *h, uint64_t first, struct opt_state *os)
{
	struct tdat *t = h->t;
	uint64_t at = first;
	int n;

	for (n = 0; at; n++) {
		if (n == 1000)
			return fail(t, "options sections: more than 1000 (a loop?) at offset %llu",
				    (unsigned long long)at);
		if (at > (uint64_t)INT64_MAX || (n && at >= (uint64_t)t->file_size)) {
			cut_short(t, "the options section at offset %llu is beyond the end of the "
				  "file at %lld: the data ends there", (unsigned long long)at,
				  (long long)t->file_size);
			return 0;
		}
		os->next = 0;
		cur_os = os;
		if (in_section(h, (off_t)at, SEC_OPTIONS, "an options section", options_fn))
			return -1;
		at = os->next;
	}
	return 0;
}

/* One BUFFER option: the buffer, its flyrecord section, its CPUs. */
static int use_buffer(struct tdat *t, const struct tdat_option *o)
{
	const char *p = o->data, *end = o->data + o->size, *name, *clock;
	struct section sec;
	struct tdat_cpu *c;
	uint64_t off;
	uint32_t ps, n, i;

	if (o->size < 8 + 2 + 8)
		return fail(t, "BUFFER option at offset %lld: %u bytes is too short",
			    (long long)o->offset, o->size);
	off = get64(t, p);
	name = p + 8;
	clock = memchr(name, '\0', end - name);
	if (!clock || !(p = memchr(clock + 1, '\0', end - clock - 1)) || end - p - 1 < 8)
		return fail(t, "BUFFER option at offset %lld: no name, clock and CPU count",
			    (long long)o->offset);
	clock++;
	p++;
	ps = get32(t, p);
	n = get32(t, p + 4);
	p += 8;
	if (ps != t->page_size)
		return fail(t, "BUFFER option at offset %lld: page size %u, the file's is %u",
			    (long long)o->offset, ps, t->page_size);
	if (n > (uint64_t)(end - p) / 20)
		return fail(t, "BUFFER option at offset %lld: %u CPUs do not fit its %u bytes",
			    (long long)o->offset, n, o->size);
	if (add_buffer(t, name, clock))
		return -1;
	if (off > (uint64_t)INT64_MAX || read_section_header(t, (off_t)off, SEC_FLYRECORD,
							      "a flyrecord section", &sec)) {
		if (off <= (uint64_t)INT64_MAX && off < (uint64_t)t->file_size)
			return -1;
		t->err[0] = '\0';
		cut_short(t, "the flyrecord section of buffer \"%s\" (BUFFER option at offset %lld) "
			  "is at offset %llu, beyond the end of the file at %lld", name,
			  (long long)o->offset, (unsigned long long)off, (long long)t->file_size);
		return 0;
	}
	for (i = 0; i < n; i++, p += 20) {
		c = add_cpu(t);
		if (!c)
			return fail(t, "out of memory");
		c->cpu = (int)get32(t, p);
		off = get64(t, p + 4);
		c->size = get64(t, p + 12);
		c->table = o->offset + (p + 4 - o->data);
		c->compressed = sec.flags & SEC_FL_COMPRESSED;
		if (off > (uint64_t)INT64_MAX)
			return fail(t, "CPU %d data offset %llu at offset %lld is beyond any file",
				    c->cpu, (unsigned long long)off, (long long)c->table);
		c->offset = (off_t)off;
		if (check_cpu(t, t->nr_cpus - 1))
			return -1;
	}
	return 0;
}

static const struct {
	const char *what;
	int (*fn)(struct hdr *h);
	int needed;
} v7_sections[] = {
	{ "the headers section", read_headers, 1 },
	{ "the ftrace events section", read_ftrace_formats, 0 },
	{ "the event formats section", read_event_formats, 1 },
	{ "the kallsyms section", read_kallsyms, 0 },
	{ "the printk section", read_printk, 0 },
	{ "the command lines section", read_cmdlines, 0 },
};

/* v7: everything after the compression header; formats_only for the probe. */
static int read_v7(struct hdr *h, int formats_only)
{
	struct tdat *t = h->t;
	struct opt_state os = { .stat_buffer = "" };
	uint64_t first;
	int i, ret = -1;

	if (rd_u64(h, &first, "the first options offset"))
		return -1;
	if (!strcmp(t->compression, "zstd") && !(t->zstd = ZSTD_createDCtx()))
		return fail(t, "out of memory");
	if (!first)
		return fail(t, "the first options offset at offset %lld is 0", (long long)h->pos - 8);
	if (read_options_v7(h, first, &os))
		goto out;
	for (i = 0; i < 6; i++) {
		if (formats_only && i == 3)
			break;
		if (!os.section[i]) {
			if (v7_sections[i].needed) {
				fail(t, "no %s (no option %d says where it is)", v7_sections[i].what + 4,
				     TDAT_OPT_HEADER_INFO + i);
				goto out;
			}
			continue;
		}
		if (in_section(h, os.section[i], TDAT_OPT_HEADER_INFO + i, v7_sections[i].what,
			       v7_sections[i].fn))
			goto out;
	}
	ret = 0;
	for (i = 0; !formats_only && !ret && i < os.nr_bufopts; i++)
		ret = use_buffer(t, &t->options[os.bufopts[i]]);
	/* Statistics name their buffer: apply them now that the CPUs exist. */
	os.stat_buffer = "";
	os.stat_len = 0;
	for (i = 0; !formats_only && !ret && i < t->nr_options; i++) {
		struct tdat_option *o = &t->options[i];

		if (o->id != TDAT_OPT_CPUSTAT)
			continue;
		if (!strncmp(o->data, "\nBuffer: ", 9)) {
			os.stat_buffer = o->data + 9;
			os.stat_len = strcspn(o->data + 9, "\n");
		} else {
			apply_stat(t, os.stat_buffer, os.stat_len, o->data);
		}
	}
out:
	free(os.bufopts);
	return ret;
}

const char *tdat_buffer_name(const struct tdat *t, int slot)
{
	return t->buffers[t->cpus[slot].buffer].name;
}

static void set_clock_mode(struct tdat *t, const struct tdat_open_flags *fl)
{
	static const char *const ns_clocks[] = {
		"local", "global", "perf", "mono", "mono_raw", "boot", "tai",
	};
	size_t i;

	t->clock_in_ns = !t->clock[0];
	for (i = 0; i < sizeof(ns_clocks) / sizeof(ns_clocks[0]); i++)
		if (!strcmp(t->clock, ns_clocks[i]))
			t->clock_in_ns = 1;
	if (fl && fl->nsec)
		tep_set_flag(t->tep, TEP_NSEC_OUTPUT);
}

static int cmp_event(const void *a, const void *b)
{
	const struct tdat_event *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static int open_file(struct tdat *t, const char *path, const struct tdat_open_flags *fl,
		     int probe_fd)
{
	struct hdr h = { .t = t };
	struct stat st;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->probe_fd = probe_fd;
	t->path = path;
	t->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->fd < 0)
		return fail(t, "cannot open: %s", strerror(errno));
	if (fstat(t->fd, &st))
		return fail(t, "cannot stat: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(t, "not a regular file");
	t->file_size = st.st_size;
	t->tep = tep_alloc();
	if (!t->tep)
		return fail(t, "out of memory");
	if (read_initial(&h))
		return -1;
	tep_set_file_bigendian(t->tep, t->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(t->tep, host_big_endian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(t->tep, t->long_size);
	tep_set_page_size(t->tep, t->page_size);
	if (!fl || !fl->no_plugins)
		t->plugins = tep_load_plugins(t->tep);
	if (t->version == 7) {
		if (read_v7(&h, probe_fd >= 0))
			return -1;
	} else {
		if (read_headers(&h) || read_ftrace_formats(&h) || read_event_formats(&h))
			return -1;
		if (probe_fd >= 0)
			return 0;	/* the probe only parses the formats */
		if (read_kallsyms(&h) || read_printk(&h) || read_cmdlines(&h) || read_tail(&h))
			return -1;
	}
	if (probe_fd >= 0)
		return 0;
	if (!t->clock[0] && t->nr_bufs)
		snprintf(t->clock, sizeof(t->clock), "%s", t->buffers[0].clock);
	qsort(t->events, t->nr_events, sizeof(*t->events), cmp_event);
	set_clock_mode(t, fl);
	return 0;
}

/*
 * libtraceevent's format parser trusts its input, and a corrupt format
 * can crash it.  So the formats are parsed once in a child first: it
 * reports the offset of each format before parsing it, and if it dies,
 * the last offset names the format that killed it.
 */
static int probe_formats(struct tdat *t, const char *path, const struct tdat_open_flags *fl)
{
	off_t at = -1, next;
	int fds[2], status;
	pid_t pid;

	if (pipe(fds))
		return 0;	/* no probe: parse anyway */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	if (pid == 0) {
		struct tdat probe;
		int devnull = open("/dev/null", O_WRONLY);

		/* Its complaints are the parent's to make, after it. */
		if (devnull >= 0)
			dup2(devnull, 2);
		close(fds[0]);
		open_file(&probe, path, fl, fds[1]);
		_exit(0);
	}
	close(fds[1]);
	while (read(fds[0], &next, sizeof(next)) == sizeof(next))
		at = next;
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status) && at >= 0)
		return fail(t, "event format at offset %lld is corrupt: libtraceevent's parser dies "
			    "on it (signal %d)", (long long)at, WTERMSIG(status));
	if (WIFSIGNALED(status))
		return fail(t, "reading the header killed the reader (signal %d)", WTERMSIG(status));
	return 0;
}

int tdat_open(struct tdat *t, const char *path, const struct tdat_open_flags *fl)
{
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if (probe_formats(t, path, fl))
		return -1;
	return open_file(t, path, fl, -1);
}

void tdat_close(struct tdat *t)
{
	int i;

	for (i = 0; i < t->nr_events; i++) {
		free(t->events[i].dyn);
		free((void *)t->events[i].format);
	}
	free(t->events);
	for (i = 0; i < t->nr_options; i++)
		free(t->options[i].data);
	free(t->options);
	free(t->cpus);
	for (i = 0; i < t->nr_bufs; i++)
		free(t->buffers[i].name);
	free(t->buffers);
	if (t->zstd)
		ZSTD_freeDCtx(t->zstd);
	free(t->header_page);
	free(t->header_event);
	free(t->kallsyms);
	free(t->printk);
	free(t->cmdlines);
	if (t->tep) {
		if (t->plugins)
			tep_unload_plugins(t->plugins, t->tep);
		tep_free(t->tep);
	}
	if (t->fd >= 0)
		close(t->fd);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
}

struct tdat_event *tdat_find_event(struct tdat *t, int id)
{
	struct tdat_event key = { .id = id };

	return bsearch(&key, t->events, t->nr_events, sizeof(key), cmp_event);
}

const struct tdat_option *tdat_option(const struct tdat *t, unsigned int id)
{
	int i;

	for (i = 0; i < t->nr_options; i++)
		if (t->options[i].id == id)
			return &t->options[i];
	return NULL;
}

/* ---- the CPU data: pages and events ------------------------------------- */

int tdat_cursor_init(struct tdat_cursor *c, struct tdat *t, int cpu)
{
	struct tdat_cpu *tc = &t->cpus[cpu];

	memset(c, 0, sizeof(*c));
	c->t = t;
	c->cpu = cpu;
	c->chunked = tc->compressed;
	if (!c->chunked)
		c->nr_pages = tc->avail / t->page_size;
	c->next_chunk = -1;
	c->buf = calloc(1, t->page_size + PAGE_SLACK);
	if (!c->buf)
		return fail(t, "out of memory");
	return 0;
}

void tdat_cursor_fini(struct tdat_cursor *c)
{
	free(c->buf);
	free(c->chunk);
	c->buf = NULL;
	c->chunk = NULL;
}

/* Of the page in the file, or (compressed) of the chunk that holds it. */
static off_t page_offset(const struct tdat_cursor *c)
{
	if (c->chunked)
		return c->chunk_at;
	return c->t->cpus[c->cpu].offset + (off_t)(c->page * c->t->page_size);
}

/* The end of what the file holds: a cut-short note, and no more data. */
static int chunk_cut(struct tdat_cursor *c, off_t at, const char *what)
{
	struct tdat *t = c->t;
	struct tdat_cpu *tc = &t->cpus[c->cpu];
	const char *name = t->buffers[tc->buffer].name;

	cut_short(t, "CPU %d%s%s data: %s at offset %lld goes beyond the end of the file at %lld: "
		  "the data ends at offset %lld", tc->cpu, name[0] ? " of buffer " : "", name, what,
		  (long long)at, (long long)t->file_size, (long long)at);
	c->chunks_left = 0;
	return 0;
}

/* The next compressed chunk into c->chunk: 1, 0 at the end, -1 error. */
static int load_chunk(struct tdat_cursor *c)
{
	struct tdat *t = c->t;
	struct tdat_cpu *tc = &t->cpus[c->cpu];
	off_t end = tc->offset + (off_t)tc->avail, at;
	uint8_t hb[8], *z;
	uint32_t csize, usize;
	size_t got;

	if (c->next_chunk < 0) {	/* first: the chunk count */
		if (!tc->size)
			return 0;
		if (tc->avail < 4)
			return chunk_cut(c, tc->offset, "the chunk count");
		if (rd(t, tc->offset, hb, 4, "a chunk count"))
			return -1;
		c->chunks_left = get32(t, hb);
		c->next_chunk = tc->offset + 4;
	}
	if (!c->chunks_left)
		return 0;
	at = c->next_chunk;
	if (end - at < 8)
		return chunk_cut(c, at, "a chunk header");
	if (rd(t, at, hb, 8, "a chunk header"))
		return -1;
	csize = get32(t, hb);
	usize = get32(t, hb + 4);
	if (usize % t->page_size || usize > CHUNK_MAX || csize > CHUNK_MAX)
		return fail(t, "CPU %d chunk at offset %lld: sizes %u compressed, %u not a whole "
			    "number of pages (or too large)", tc->cpu, (long long)at, csize, usize);
	if ((uint64_t)csize > (uint64_t)(end - at - 8))
		return chunk_cut(c, at, "a compressed chunk");
	if (usize > c->chunk_cap) {
		uint8_t *n = realloc(c->chunk, usize);

		if (!n)
			return fail(t, "out of memory");
		c->chunk = n;
		c->chunk_cap = usize;
	}
	z = malloc(csize ? csize : 1);
	if (!z)
		return fail(t, "out of memory");
	if (rd(t, at + 8, z, csize, "a compressed chunk")) {
		free(z);
		return -1;
	}
	got = ZSTD_decompressDCtx(t->zstd, c->chunk, usize, z, csize);
	free(z);
	if (ZSTD_isError(got) || got != usize)
		return fail(t, "CPU %d chunk at offset %lld does not decompress: %s", tc->cpu,
			    (long long)at, ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short");
	c->chunk_at = at;
	c->chunk_len = usize / t->page_size;
	c->chunk_page = 0;
	c->next_chunk = at + 8 + csize;
	c->chunks_left--;
	return 1;
}

/* The next page into c->buf: 1, 0 at the end, -1 error. */
static int next_page(struct tdat_cursor *c)
{
	struct tdat *t = c->t;
	int ret;

	if (!c->chunked) {
		if (c->page >= c->nr_pages)
			return 0;
		if (rd(t, page_offset(c), c->buf, t->page_size, "a CPU data page"))
			return -1;
		c->page++;
		return 1;
	}
	while (c->chunk_page >= c->chunk_len) {
		ret = load_chunk(c);
		if (ret <= 0)
			return ret;
	}
	memcpy(c->buf, c->chunk + c->chunk_page++ * t->page_size, t->page_size);
	return 1;
}

int tdat_cursor_page(struct tdat_cursor *c, const uint8_t **page)
{
	int ret = next_page(c);

	*page = c->buf;
	return ret;
}

static const char *const commit_errors[] = {
	[SLIM_PAGE_E_FLAGS] = "has unknown flag bits",
	[SLIM_PAGE_E_COMMIT] = "is beyond the page",
	[SLIM_PAGE_E_NOROOM] = "leaves no room for the stored count of missed events",
	[SLIM_PAGE_E_COUNT] = "has a bad missed-events count",
};

static int load_page(struct tdat_cursor *c)
{
	struct tdat *t = c->t;
	struct slim_page_info pi;
	int ret = next_page(c), err;
	off_t at;

	if (ret <= 0)
		return ret;
	at = c->chunked ? c->chunk_at : page_offset(c) - (off_t)t->page_size;
	c->at = at;
	c->pages++;
	err = slim_page_info(&t->fmt, c->buf, &pi);
	if (err == SLIM_PAGE_E_COMMIT)
		return fail(t, "CPU %d page at offset %lld: commit %u is beyond the page's %d data bytes",
			    t->cpus[c->cpu].cpu, (long long)at, pi.len, t->data_size);
	if (err == SLIM_PAGE_E_NOROOM)
		return fail(t, "CPU %d page at offset %lld: no room after commit %u for the "
			    "stored count of missed events", t->cpus[c->cpu].cpu, (long long)at, pi.len);
	if (err)
		return fail(t, "CPU %d page at offset %lld: commit word 0x%llx %s", c->cpu,
			    (long long)at, (unsigned long long)pi.commit, commit_errors[err]);
	c->ts = pi.time_stamp;
	c->missed = pi.missed;
	if (c->missed > 0)
		c->lost += c->missed;
	else if (c->missed < 0)
		c->lost_unknown = 1;
	c->pos = 0;
	c->end = pi.len;
	c->loaded = 1;
	return 1;
}

/* Check a data record against its event's format. */
static int check_record(struct tdat_cursor *c, struct tdat_record *r)
{
	struct tdat *t = c->t;
	struct tdat_event *ev;
	int id, i;

	if (r->size < 2)
		return fail(t, "CPU %d event at offset %lld: %d-byte record has no event id",
			    t->cpus[c->cpu].cpu, (long long)r->offset, r->size);
	id = get16(t, r->data);
	ev = tdat_find_event(t, id);
	if (!ev)
		return fail(t, "CPU %d event at offset %lld: unknown event id %d (no format in the file)",
			    t->cpus[c->cpu].cpu, (long long)r->offset, id);
	if (r->size < ev->min_size)
		return fail(t, "CPU %d event at offset %lld: %s:%s record has %d bytes, its format needs %d",
			    t->cpus[c->cpu].cpu, (long long)r->offset, ev->system, ev->name, r->size, ev->min_size);
	for (i = 0; i < ev->nr_dyn; i++) {
		const struct tdat_dyn *d = &ev->dyn[i];
		uint32_t loc = get32(t, r->data + d->offset);
		uint32_t off = loc & 0xffff, len = loc >> 16;

		if (d->relative)
			off += d->offset + 4;
		if (off + len > (uint32_t)r->size)
			return fail(t, "CPU %d event at offset %lld: %s:%s field '%s' (offset %u, %u bytes) "
				    "goes beyond the %d-byte record", t->cpus[c->cpu].cpu, (long long)r->offset,
				    ev->system, ev->name, d->name, off, len, r->size);
	}
	r->event = ev;
	return 0;
}

static const char *const entry_errors[] = {
	[SLIM_PAGE_E_HEADER] = "event header beyond the commit",
	[SLIM_PAGE_E_LENWORD] = "length word beyond the commit",
	[SLIM_PAGE_E_LENGTH] = "event length beyond the commit",
	[SLIM_PAGE_E_PADDING] = "padding length beyond the commit",
};

/* One step through the page: 1 data record, 0 something else, -1 error. */
static int step(struct tdat_cursor *c, struct tdat_record *r)
{
	struct tdat *t = c->t;
	const uint8_t *data = c->buf + t->data_offset;
	struct slim_page_entry e;
	struct slim_page_bad bad;
	uint32_t pos = c->pos;
	int ret = slim_page_next(&t->fmt, data, c->end, &c->pos, &e, &bad);

	if (ret < 0)
		return fail(t, "CPU %d event at offset %lld: %s (%u > %u)", c->cpu,
			    (long long)(c->at + t->data_offset + bad.off), entry_errors[bad.err],
			    bad.need, bad.room);
	if (ret == 0)
		return 0;
	c->ts = slim_page_time(&e, c->ts);
	if (!slim_page_is_data(&e))
		return 0;
	r->data = e.payload;
	r->size = (int)e.len;
	r->ts = c->ts + t->ts_offset;
	r->cpu = t->cpus[c->cpu].cpu;
	r->slot = c->cpu;
	r->offset = c->at + t->data_offset + pos;
	r->missed = c->missed;
	c->missed = 0;
	if (check_record(c, r))
		return -1;
	c->records++;
	return 1;
}

int tdat_cursor_next(struct tdat_cursor *c, struct tdat_record *r)
{
	int ret;

	for (;;) {
		if (!c->loaded || c->pos >= c->end) {
			ret = load_page(c);
			if (ret <= 0) {
				c->loaded = 0;
				return ret;
			}
			continue;
		}
		ret = step(c, r);
		if (ret)
			return ret;
	}
}

/*
 * The pages mark what was lost before them (the kernel: overwritten
 * events; slimtrace: overwritten and dropped), the statistics count
 * overrun and dropped events: the larger tells, as a page may be missing
 * to carry the last losses.
 */
unsigned long long tdat_cpu_lost(const struct tdat_cursor *c, const struct tdat_cpustat *st)
{
	unsigned long long stat = 0;

	if (st->overrun > 0)
		stat += st->overrun;
	if (st->dropped > 0)
		stat += st->dropped;
	return stat > c->lost ? stat : c->lost;
}

/* ---- merging the CPUs ----------------------------------------------------- */

static int before(const struct tdat_merge *m, int a, int b)
{
	if (m->next[a].ts != m->next[b].ts)
		return m->next[a].ts < m->next[b].ts;
	return a < b;
}

static void heap_down(struct tdat_merge *m, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, min = i, tmp;

		if (l < m->nr_heap && before(m, m->heap[l], m->heap[min]))
			min = l;
		if (r < m->nr_heap && before(m, m->heap[r], m->heap[min]))
			min = r;
		if (min == i)
			return;
		tmp = m->heap[i];
		m->heap[i] = m->heap[min];
		m->heap[min] = tmp;
		i = min;
	}
}

int tdat_merge_init(struct tdat_merge *m, struct tdat *t)
{
	int i, n = t->nr_cpus ? t->nr_cpus : 1, ret;

	memset(m, 0, sizeof(*m));
	m->t = t;
	m->last = -1;
	m->cur = calloc(n, sizeof(*m->cur));
	m->next = calloc(n, sizeof(*m->next));
	m->heap = calloc(n, sizeof(*m->heap));
	if (!m->cur || !m->next || !m->heap)
		return fail(t, "out of memory");
	for (i = 0; i < t->nr_cpus; i++) {
		if (tdat_cursor_init(&m->cur[i], t, i))
			return -1;
		ret = tdat_cursor_next(&m->cur[i], &m->next[i]);
		if (ret < 0)
			return -1;
		if (ret)
			m->heap[m->nr_heap++] = i;
	}
	for (i = m->nr_heap / 2 - 1; i >= 0; i--)
		heap_down(m, i);
	return 0;
}

void tdat_merge_fini(struct tdat_merge *m)
{
	int i;

	if (m->cur)
		for (i = 0; i < m->t->nr_cpus; i++)
			tdat_cursor_fini(&m->cur[i]);
	free(m->cur);
	free(m->next);
	free(m->heap);
	memset(m, 0, sizeof(*m));
}

/*
 * The record handed out stays valid until the next call: its CPU's
 * cursor moves on only then.
 */
int tdat_merge_next(struct tdat_merge *m, struct tdat_record *r)
{
	int cpu, ret;

	if (m->last >= 0) {
		/* The CPU handed out last is at the top of the heap. */
		cpu = m->last;
		m->last = -1;
		ret = tdat_cursor_next(&m->cur[cpu], &m->next[cpu]);
		if (ret < 0)
			return -1;
		if (!ret)
			m->heap[0] = m->heap[--m->nr_heap];
		heap_down(m, 0);
	}
	if (!m->nr_heap)
		return 0;
	cpu = m->heap[0];
	*r = m->next[cpu];
	m->last = cpu;
	return 1;
}

/* ---- event selection ------------------------------------------------------ */

static int part_matches(const char *pat, size_t n, const char *name)
{
	if (n == 1 && pat[0] == '*')
		return 1;
	return strlen(name) == n && !strncmp(pat, name, n);
}

int tdat_event_matches(const struct tdat_event *ev, const char *spec, size_t len)
{
	const char *colon = memchr(spec, ':', len);

	if (!colon)
		return part_matches(spec, len, ev->name) || part_matches(spec, len, ev->system);
	return part_matches(spec, colon - spec, ev->system) &&
	       part_matches(colon + 1, len - (colon + 1 - spec), ev->name);
}

int tdat_events_select(struct tdat_event *evs, int nr, const char *specs, char *why, size_t len)
{
	const char *s;
	size_t n;
	int i, any_positive = 0, neg, matched;

	for (s = specs; s && *s; s += n) {
		s += strspn(s, ", \t\n");
		n = strcspn(s, ", \t\n");
		if (n && *s != '!')
			any_positive = 1;
	}
	for (i = 0; i < nr; i++)
		evs[i].selected = !any_positive;
	for (s = specs; s && *s; s += n) {
		s += strspn(s, ", \t\n");
		n = strcspn(s, ", \t\n");
		if (!n)
			continue;
		neg = *s == '!';
		matched = 0;
		for (i = 0; i < nr; i++) {
			if (tdat_event_matches(&evs[i], s + neg, n - neg)) {
				evs[i].selected = !neg;
				matched = 1;
			}
		}
		if (!matched) {
			snprintf(why, len, "matches '%.*s'", (int)n, s);
			return -1;
		}
	}
	return 0;
}

int tdat_select_events(struct tdat *t, const char *specs)
{
	char why[300];

	if (tdat_events_select(t->events, t->nr_events, specs, why, sizeof(why)))
		return fail(t, "no event in the file %s", why);
	return 0;
}
