// SPDX-License-Identifier: MIT
/*
 * trace.dat version 6: the header (formats, command lines, options, the
 * CPU table) and the CPU data (kernel ring-buffer pages).  The layout is
 * trace-cmd's, described in trace-cmd.dat.v6(5); the page and event
 * encoding is the kernel's (docs/ring-buffer.md).
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
#include "tdat.h"

#define RB_MISSED_EVENTS	(1ULL << 31)
#define RB_MISSED_STORED	(1ULL << 30)
#define RB_COMMIT_MASK		((1ULL << 27) - 1)
#define TS_SHIFT		27
#define PAGE_SLACK		64	/* zeros after a page: stops runaway strings */

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

/* Bytes of the file left from OFF on (0 past the end). */
static uint64_t left(const struct tdat *t, off_t off)
{
	return off >= t->file_size ? 0 : (uint64_t)(t->file_size - off);
}

static int rd(struct tdat *t, off_t off, void *buf, size_t len, const char *what)
{
	size_t done = 0;
	ssize_t n;

	if (len > left(t, off))
		return fail(t, "truncated: %s needs %zu bytes at offset %lld, but the file ends at %lld",
			    what, len, (long long)off, (long long)t->file_size);
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
	if (strcmp(version, "6")) {
		if (!strcmp(version, "7"))
			return fail(t, "trace.dat version 7 at offset 10 is not supported: "
				    "convert it with 'trace-cmd convert --file-version 6 --compression none'");
		return fail(t, "unsupported trace.dat version \"%.8s\" at offset 10", version);
	}
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
	return 0;
}

/* "field: local_t commit;\toffset:8;\tsize:8;" -> offset and size. */
static int header_field(const char *text, const char *name, int *offset, int *size)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s;", name);
	p = strstr(text, pat);
	if (!p)
		return -1;
	p = strstr(p, "offset:");
	if (!p || sscanf(p, "offset:%d;", offset) != 1)
		return -1;
	p = strstr(p, "size:");
	if (!p || sscanf(p, "size:%d;", size) != 1)
		return -1;
	return 0;
}

/* "\ttype_len    :    5 bits" -> 5; -1 when NAME is not there. */
static int header_bits(const char *text, const char *name)
{
	const char *p = strstr(text, name);
	int bits;

	if (!p)
		return -1;
	p += strlen(name);
	p += strspn(p, " \t");
	if (*p != ':' || sscanf(p + 1, "%d bits", &bits) != 1)
		return -1;
	return bits;
}

static int read_headers(struct hdr *h)
{
	struct tdat *t = h->t;
	off_t at;
	int ts_off, ts_size;

	if (rd_label(h, "header_page", 12) || rd_u64(h, &t->header_page_len, "the header_page size"))
		return -1;
	at = h->pos;
	if (rd_blob(h, t->header_page_len, &t->header_page, "header_page"))
		return -1;
	if (header_field(t->header_page, "timestamp", &ts_off, &ts_size) ||
	    header_field(t->header_page, "commit", &t->commit_offset, &t->commit_size) ||
	    header_field(t->header_page, "data", &t->data_offset, &t->data_size))
		return fail(t, "header_page at offset %lld: no timestamp, commit or data field", (long long)at);
	if (ts_off != 0 || ts_size != 8 || (t->commit_size != 4 && t->commit_size != 8) ||
	    t->commit_offset < 8 || t->data_offset < t->commit_offset + t->commit_size ||
	    t->data_size <= 0 || (uint32_t)t->data_offset + (uint32_t)t->data_size > t->page_size)
		return fail(t, "header_page at offset %lld: fields do not fit a %u-byte page "
			    "(timestamp %d/%d, commit %d/%d, data %d/%d)", (long long)at, t->page_size,
			    ts_off, ts_size, t->commit_offset, t->commit_size, t->data_offset, t->data_size);
	if (rd_label(h, "header_event", 13) || rd_u64(h, &t->header_event_len, "the header_event size"))
		return -1;
	at = h->pos;
	if (rd_blob(h, t->header_event_len, &t->header_event, "header_event"))
		return -1;
	if (header_bits(t->header_event, "type_len") != 5 ||
	    header_bits(t->header_event, "time_delta") != 27)
		return fail(t, "header_event at offset %lld: not the 5-bit type_len / 27-bit time_delta "
			    "event header this reader knows", (long long)at);
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

static int read_formats(struct hdr *h)
{
	struct tdat *t = h->t;
	uint32_t n, i, nsys, s, nev;
	char system[256];

	if (rd_u32(h, &n, "the ftrace format count"))
		return -1;
	if (n > left(t, h->pos) / 8)
		return fail(t, "ftrace format count %u at offset %lld is more than the file can hold",
			    n, (long long)h->pos - 4);
	for (i = 0; i < n; i++)
		if (add_format(h, "ftrace"))
			return -1;
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

static int read_symbols(struct hdr *h)
{
	struct tdat *t = h->t;

	if (rd_u32(h, &t->kallsyms_len, "the kallsyms size") ||
	    rd_blob(h, t->kallsyms_len, &t->kallsyms, "kallsyms") ||
	    rd_u32(h, &t->printk_len, "the printk formats size") ||
	    rd_blob(h, t->printk_len, &t->printk, "printk formats"))
		return -1;
	if (t->kallsyms_len)
		tep_parse_kallsyms(t->tep, t->kallsyms);
	if (t->printk_len)
		tep_parse_printk_formats(t->tep, t->printk);
	return 0;
}

/* ---- options and the CPU table ------------------------------------------ */

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

static void use_option(struct tdat *t, struct tdat_option *o, int *in_buffer)
{
	const char *p, *e;
	long long cpu;
	size_t n;

	switch (o->id) {
	case TDAT_OPT_BUFFER:
		t->nr_buffers++;
		*in_buffer = 1;
		break;
	case TDAT_OPT_CPUSTAT:
		cpu = stat_value(o->data, "CPU");
		if (*in_buffer || cpu < 0 || cpu >= t->nr_cpus)
			break;
		t->cpus[cpu].stat.entries = stat_value(o->data, "entries");
		t->cpus[cpu].stat.overrun = stat_value(o->data, "overrun");
		t->cpus[cpu].stat.dropped = stat_value(o->data, "dropped events");
		t->cpus[cpu].stat.read = stat_value(o->data, "read events");
		break;
	case TDAT_OPT_TRACECLOCK:
		p = strchr(o->data, '[');
		e = p ? strchr(p, ']') : NULL;
		if (!e)
			break;
		n = e - p - 1;
		if (n >= sizeof(t->clock))
			n = sizeof(t->clock) - 1;
		memcpy(t->clock, p + 1, n);
		t->clock[n] = '\0';
		break;
	case TDAT_OPT_DATE:
		t->ts_offset = strtoll(o->data, NULL, 0);
		break;
	}
}

static int read_options(struct hdr *h)
{
	struct tdat *t = h->t;
	struct tdat_option *o;
	unsigned int id;
	uint32_t size;
	int in_buffer = 0;

	for (;;) {
		if (rd_u16(h, &id, "an option id"))
			return -1;
		if (!id)
			return 0;
		if (rd_u32(h, &size, "an option size"))
			return -1;
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
		use_option(t, o, &in_buffer);
	}
}

static int check_cpu(struct tdat *t, int i, off_t table)
{
	uint64_t off = (uint64_t)t->cpus[i].offset, size = t->cpus[i].size;

	if (off > (uint64_t)t->file_size || size > left(t, (off_t)off))
		return fail(t, "CPU %d data (offset %llu, %llu bytes; table entry at offset %lld) "
			    "goes beyond the end of the file at %lld", i, (unsigned long long)off,
			    (unsigned long long)size, (long long)(table + 16 * i),
			    (long long)t->file_size);
	if (size && (off_t)off < t->data_start)
		return fail(t, "CPU %d data at offset %llu (table entry at offset %lld) "
			    "overlaps the header, which ends at %lld", i, (unsigned long long)off,
			    (long long)(table + 16 * i), (long long)t->data_start);
	if (size % t->page_size)
		return fail(t, "CPU %d data size %llu (table entry at offset %lld) is not a "
			    "multiple of the page size %u", i, (unsigned long long)size,
			    (long long)(table + 16 * i + 8), t->page_size);
	return 0;
}

/* With a TRACECLOCK option, the trace_clock file follows the CPU table. */
static int read_clock(struct hdr *h)
{
	struct tdat *t = h->t;
	const char *p, *e;
	uint64_t len;
	char *text;
	size_t n;

	if (!tdat_option(t, TDAT_OPT_TRACECLOCK))
		return 0;
	if (rd_u64(h, &len, "the trace_clock size"))
		return -1;
	if (len > 4096)
		return fail(t, "trace_clock at offset %lld: %llu bytes is not a clock list",
			    (long long)h->pos - 8, (unsigned long long)len);
	if (rd_blob(h, len, &text, "trace_clock"))
		return -1;
	p = strchr(text, '[');
	e = p ? strchr(p, ']') : NULL;
	if (e) {
		n = e - p - 1;
		if (n >= sizeof(t->clock))
			n = sizeof(t->clock) - 1;
		memcpy(t->clock, p + 1, n);
		t->clock[n] = '\0';
	}
	free(text);
	return 0;
}

static int read_cpu_table(struct hdr *h)
{
	struct tdat *t = h->t;
	off_t table = h->pos;
	uint64_t off;
	int i;

	for (i = 0; i < t->nr_cpus; i++) {
		if (rd_u64(h, &off, "a CPU data offset") || rd_u64(h, &t->cpus[i].size, "a CPU data size"))
			return -1;
		if (off > (uint64_t)INT64_MAX)
			return fail(t, "CPU %d data offset %llu at offset %lld is beyond any file", i,
				    (unsigned long long)off, (long long)(table + 16 * i));
		t->cpus[i].offset = (off_t)off;
	}
	if (read_clock(h))
		return -1;
	t->data_start = h->pos;
	for (i = 0; i < t->nr_cpus; i++)
		if (check_cpu(t, i, table))
			return -1;
	return 0;
}

static int read_tail(struct hdr *h)
{
	struct tdat *t = h->t;
	uint32_t n;
	char label[10];
	int i;

	if (rd_u32(h, &n, "the CPU count"))
		return -1;
	if (n > left(t, h->pos) / 16)
		return fail(t, "CPU count %u at offset %lld is more than the file can hold",
			    n, (long long)h->pos - 4);
	t->nr_cpus = n;
	t->cpus = calloc(n ? n : 1, sizeof(*t->cpus));
	if (!t->cpus)
		return fail(t, "out of memory");
	for (i = 0; i < t->nr_cpus; i++)
		t->cpus[i].stat = (struct tdat_cpustat){ -1, -1, -1, -1 };
	if (rd(t, h->pos, label, 10, "the options/flyrecord label"))
		return -1;
	if (!memcmp(label, "options  ", 10)) {
		h->pos += 10;
		if (read_options(h) || rd(t, h->pos, label, 10, "the flyrecord label"))
			return -1;
	}
	if (!memcmp(label, "latency  ", 10))
		return fail(t, "offset %lld: a latency (text) trace: only flyrecord traces are supported",
			    (long long)h->pos);
	if (memcmp(label, "flyrecord", 10))
		return fail(t, "expected \"flyrecord\" at offset %lld", (long long)h->pos);
	h->pos += 10;
	return read_cpu_table(h);
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
	if (read_headers(&h) || read_formats(&h))
		return -1;
	if (probe_fd >= 0)
		return 0;	/* the probe only parses the formats */
	if (read_symbols(&h) || read_cmdlines(&h) || read_tail(&h))
		return -1;
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
	memset(c, 0, sizeof(*c));
	c->t = t;
	c->cpu = cpu;
	c->nr_pages = t->cpus[cpu].size / t->page_size;
	c->buf = calloc(1, t->page_size + PAGE_SLACK);
	if (!c->buf)
		return fail(t, "out of memory");
	return 0;
}

void tdat_cursor_fini(struct tdat_cursor *c)
{
	free(c->buf);
	c->buf = NULL;
}

static off_t page_offset(const struct tdat_cursor *c)
{
	return c->t->cpus[c->cpu].offset + (off_t)(c->page * c->t->page_size);
}

static int load_page(struct tdat_cursor *c)
{
	struct tdat *t = c->t;
	off_t at = page_offset(c);
	uint64_t commit, len;
	const uint8_t *w;

	if (rd(t, at, c->buf, t->page_size, "a CPU data page"))
		return -1;
	c->pages++;
	c->ts = get64(t, c->buf);
	w = c->buf + t->commit_offset;
	/*
	 * The kernel ORs the flags in as int constants: in a 64-bit commit
	 * word the sign extension sets the upper half too.  Only the low 32
	 * bits mean anything.
	 */
	commit = (uint32_t)(t->commit_size == 8 ? get64(t, w) : get32(t, w));
	len = commit & RB_COMMIT_MASK;
	if (commit & ~(RB_COMMIT_MASK | RB_MISSED_EVENTS | RB_MISSED_STORED))
		return fail(t, "CPU %d page at offset %lld: commit word 0x%llx has unknown flag bits",
			    c->cpu, (long long)at, (unsigned long long)commit);
	if (len > (uint64_t)t->data_size)
		return fail(t, "CPU %d page at offset %lld: commit %llu is beyond the page's %d data bytes",
			    c->cpu, (long long)at, (unsigned long long)len, t->data_size);
	c->missed = 0;
	if (commit & RB_MISSED_STORED) {
		if (len + t->commit_size > (uint64_t)t->data_size)
			return fail(t, "CPU %d page at offset %lld: no room after commit %llu for the "
				    "stored count of missed events", c->cpu, (long long)at,
				    (unsigned long long)len);
		w = c->buf + t->data_offset + len;
		c->missed = t->commit_size == 8 ? (long long)get64(t, w) : get32(t, w);
		if (c->missed < 0)
			return fail(t, "CPU %d page at offset %lld: bad missed-events count %lld",
				    c->cpu, (long long)at, c->missed);
	} else if (commit & RB_MISSED_EVENTS) {
		c->missed = -1;
	}
	if (c->missed > 0)
		c->lost += c->missed;
	else if (c->missed < 0)
		c->lost_unknown = 1;
	c->pos = 0;
	c->end = (uint32_t)len;
	c->loaded = 1;
	return 0;
}

static int bad_event(struct tdat_cursor *c, off_t at, const char *what, unsigned long long a,
		     unsigned long long b)
{
	return fail(c->t, "CPU %d event at offset %lld: %s (%llu > %llu)", c->cpu, (long long)at,
		    what, a, b);
}

/* Check a data record against its event's format. */
static int check_record(struct tdat_cursor *c, struct tdat_record *r)
{
	struct tdat *t = c->t;
	struct tdat_event *ev;
	int id, i;

	if (r->size < 2)
		return fail(t, "CPU %d event at offset %lld: %d-byte record has no event id",
			    c->cpu, (long long)r->offset, r->size);
	id = get16(t, r->data);
	ev = tdat_find_event(t, id);
	if (!ev)
		return fail(t, "CPU %d event at offset %lld: unknown event id %d (no format in the file)",
			    c->cpu, (long long)r->offset, id);
	if (r->size < ev->min_size)
		return fail(t, "CPU %d event at offset %lld: %s:%s record has %d bytes, its format needs %d",
			    c->cpu, (long long)r->offset, ev->system, ev->name, r->size, ev->min_size);
	for (i = 0; i < ev->nr_dyn; i++) {
		const struct tdat_dyn *d = &ev->dyn[i];
		uint32_t loc = get32(t, r->data + d->offset);
		uint32_t off = loc & 0xffff, len = loc >> 16;

		if (d->relative)
			off += d->offset + 4;
		if (off + len > (uint32_t)r->size)
			return fail(t, "CPU %d event at offset %lld: %s:%s field '%s' (offset %u, %u bytes) "
				    "goes beyond the %d-byte record", c->cpu, (long long)r->offset,
				    ev->system, ev->name, d->name, off, len, r->size);
	}
	r->event = ev;
	return 0;
}

/* One step through the page: 1 data record, 0 something else, -1 error. */
static int step(struct tdat_cursor *c, struct tdat_record *r)
{
	struct tdat *t = c->t;
	const uint8_t *p = c->buf + t->data_offset + c->pos;
	uint32_t room = c->end - c->pos, hdr, type_len, delta, len;
	off_t at = page_offset(c) + t->data_offset + c->pos;

	if (room < 4)
		return bad_event(c, at, "event header beyond the commit", 4, room);
	hdr = get32(t, p);
	type_len = t->big_endian ? hdr >> 27 : hdr & 31;
	delta = t->big_endian ? hdr & ((1U << 27) - 1) : hdr >> 5;
	if (type_len >= 29 && type_len <= 31 && !(type_len == 29 && !delta) && room < 8)
		return bad_event(c, at, "event header beyond the commit", 8, room);
	switch (type_len) {
	case 29:		/* padding: delta 0 means the rest of the page */
		if (!delta) {
			c->pos = c->end;
			return 0;
		}
		len = get32(t, p + 4);
		if (len < 4 || len > room - 4)
			return bad_event(c, at, "padding length beyond the commit", len, room - 4);
		c->ts += delta;
		c->pos += 4 + len;
		return 0;
	case 30:		/* time extend */
		c->ts += ((uint64_t)get32(t, p + 4) << TS_SHIFT) | delta;
		c->pos += 8;
		return 0;
	case 31:		/* absolute time stamp: the low 59 bits */
		c->ts = (c->ts & ~((1ULL << 59) - 1)) |
			(((uint64_t)get32(t, p + 4) << TS_SHIFT) | delta);
		c->pos += 8;
		return 0;
	case 0:
		if (room < 8)
			return bad_event(c, at, "length word beyond the commit", 8, room);
		len = get32(t, p + 4);
		if (len < 4 || len > room - 4)
			return bad_event(c, at, "event length beyond the commit", len, room - 4);
		r->data = p + 8;
		r->size = len - 4;
		c->pos += 4 + len;
		break;
	default:
		len = type_len * 4;
		if (len > room - 4)
			return bad_event(c, at, "event length beyond the commit", len, room - 4);
		r->data = p + 4;
		r->size = len;
		c->pos += 4 + len;
		break;
	}
	c->ts += delta;
	r->ts = c->ts + t->ts_offset;
	r->cpu = c->cpu;
	r->offset = at;
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
			if (c->loaded)
				c->page++;
			if (c->page >= c->nr_pages) {
				c->loaded = 0;
				return 0;
			}
			if (load_page(c))
				return -1;
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

int tdat_select_events(struct tdat *t, const char *specs)
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
	for (i = 0; i < t->nr_events; i++)
		t->events[i].selected = !any_positive;
	for (s = specs; s && *s; s += n) {
		s += strspn(s, ", \t\n");
		n = strcspn(s, ", \t\n");
		if (!n)
			continue;
		neg = *s == '!';
		matched = 0;
		for (i = 0; i < t->nr_events; i++) {
			if (tdat_event_matches(&t->events[i], s + neg, n - neg)) {
				t->events[i].selected = !neg;
				matched = 1;
			}
		}
		if (!matched)
			return fail(t, "no event in the file matches '%.*s'", (int)n, s);
	}
	return 0;
}
