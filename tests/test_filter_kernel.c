// SPDX-License-Identifier: MIT
/*
 * The kernel's verdicts against slimtrace's: every case of
 * tests/data/kernel/filter/cases.txt (captured from a real kernel through
 * a uprobe event, see the README there) is compiled with slim_filter_*
 * against the same fields and run over the same records.
 *
 * Accepted: the set of records that pass must be the kernel's.
 * Refused: message, error_log caret (pos), filter-file caret (fpos),
 * errno and the whole filter-file text must be the kernel's.
 *
 * Deliberate differences are listed in exceptions[] below and in
 * docs/filter.md; each is still checked for what slimtrace does instead.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slimtrace/field.h>

#include "filter/filter.h"
#include "check.h"

#define MAX_FIELDS	32
#define MAX_CALLS	64
#define REC_MAX		512

struct call {
	unsigned char rec[REC_MAX];
	unsigned int len;
	char comm[32];
	int cpu;
};

static struct slim_field fields[MAX_FIELDS];
static char strings[4096];
static size_t strings_len;
static struct slim_field_table table = { strings, fields, 0, 0 };
static struct call calls[MAX_CALLS];
static unsigned int nr_calls;

/*
 * Where slimtrace means to differ (docs/filter.md): the case number in
 * cases.txt, its text (NULL: checked by length) and what we do instead.
 */
enum exception_kind {
	EXC_CLEAR,	/* "0" clears the filter: the ctl layer's job, not compile's */
	EXC_TOO_LONG,	/* >= 4096 bytes: the ctl write refuses before parsing */
};

struct exception {
	int id;
	const char *expr;
	enum exception_kind kind;
};

static const struct exception exceptions[] = {
	{ 240, "0", EXC_CLEAR },
	{ 241, " 0", EXC_CLEAR },
	{ 428, NULL, EXC_TOO_LONG },
};

static int nr_cases, nr_same, nr_exceptions, nr_differ;

static const char *data_path(void)
{
	static char path[1024];
	const char *src = getenv("SLIM_SRCDIR");

	snprintf(path, sizeof(path), "%s/tests/data/kernel/filter/cases.txt",
		 src ? src : "../../..");
	return path;
}

static const char *add_string(const char *s)
{
	size_t n = strlen(s) + 1;
	const char *at = strings + strings_len;

	if (strings_len + n > sizeof(strings))
		return NULL;
	memcpy(strings + strings_len, s, n);
	strings_len += n;
	return at;
}

/* "field NAME offset=N size=N signed=0|1 type=TYPE" */
static int parse_field(const char *line)
{
	char name[128];
	unsigned int off, size, sign;
	const char *type = strstr(line, " type=");
	const char *ts, *ns;
	struct slim_field *f;

	if (sscanf(line, "field %127s offset=%u size=%u signed=%u", name, &off,
		   &size, &sign) != 4 || !type)
		return -1;
	if (table.nr_fields >= MAX_FIELDS)
		return -1;
	/* The common fields come from slim_common_fields, as for a class. */
	if (!strncmp(name, "common_", 7))
		return 0;
	ts = add_string(type + 6);
	ns = add_string(name);
	if (!ts || !ns)
		return -1;
	f = &fields[table.nr_fields++];
	f->type = (uint16_t)(ts - strings);
	f->name = (uint16_t)(ns - strings);
	f->offset = (uint16_t)off;
	f->size = (uint16_t)size;
	f->is_signed = (uint8_t)sign;
	f->filter_type = SLIM_FILTER_AUTO;
	if (off + size > table.size)
		table.size = (uint16_t)(off + size);
	return 0;
}

/* The value of "key=" in a call line, up to the next space. */
static const char *call_value(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	return p ? p + strlen(pat) : NULL;
}

static void store(unsigned char *rec, const struct slim_field *f, const char *v)
{
	uint64_t u = *v == '-' ? (uint64_t)strtoll(v, NULL, 10) :
		     strtoull(v, NULL, 10);
	uint8_t u8 = (uint8_t)u;
	uint16_t u16 = (uint16_t)u;
	uint32_t u32 = (uint32_t)u;

	switch (f->size) {
	case 1:
		memcpy(rec + f->offset, &u8, 1);
		break;
	case 2:
		memcpy(rec + f->offset, &u16, 2);
		break;
	case 4:
		memcpy(rec + f->offset, &u32, 4);
		break;
	case 8:
		memcpy(rec + f->offset, &u, 8);
		break;
	}
}

/* "call IDX cpu=N comm=NAME common_type=N ... s="TEXT"" */
static int parse_call(const char *line)
{
	struct call *c;
	struct slim_trace_entry ent;
	const char *v, *s, *end;
	unsigned int i, idx, slen, fixed;
	uint32_t loc;

	if (sscanf(line, "call %u", &idx) != 1 || idx != nr_calls ||
	    nr_calls >= MAX_CALLS)
		return -1;
	c = &calls[nr_calls++];
	memset(c, 0, sizeof(*c));
	v = call_value(line, "cpu");
	c->cpu = v ? atoi(v) : 0;
	v = call_value(line, "comm");
	if (v)
		sscanf(v, "%31s", c->comm);

	memset(&ent, 0, sizeof(ent));
	v = call_value(line, "common_type");
	ent.type = v ? (uint16_t)atoi(v) : 0;
	v = call_value(line, "common_flags");
	ent.flags = v ? (uint8_t)atoi(v) : 0;
	v = call_value(line, "common_preempt_count");
	ent.preempt_count = v ? (uint8_t)atoi(v) : 0;
	ent.pid = 4242;		/* not captured: the cases only need > 0 */
	memcpy(c->rec, &ent, sizeof(ent));

	fixed = table.size;
	s = strstr(line, " s=\"");
	end = strrchr(line, '"');
	if (!s || end <= s + 3)
		return -1;
	s += 4;
	slen = (unsigned int)(end - s);
	if (fixed + slen + 1 > REC_MAX)
		return -1;
	for (i = 0; i < table.nr_fields; i++) {
		const struct slim_field *f = &fields[i];
		const char *name = slim_field_name(&table, f);

		if (!strcmp(name, "s")) {
			loc = ((slen + 1) << 16) | fixed;
			memcpy(c->rec + f->offset, &loc, 4);
		} else if (!strcmp(name, "__probe_ip")) {
			uint64_t ip = 0x401136;	/* not captured: only != 0 */

			memcpy(c->rec + f->offset, &ip, 8);
		} else if (!strcmp(name, "idx")) {
			uint32_t x = idx;

			memcpy(c->rec + f->offset, &x, 4);
		} else if ((v = call_value(line, name))) {
			store(c->rec, f, v);
		}
	}
	memcpy(c->rec + fixed, s, slen);
	c->rec[fixed + slen] = '\0';
	c->len = fixed + slen + 1;
	return 0;
}

/* The filter line: "\\" and "\n" escaped. */
static void unescape(const char *in, char *out, size_t size)
{
	size_t n = 0;

	for (; *in && n + 1 < size; in++) {
		if (*in == '\\' && in[1] == 'n') {
			out[n++] = '\n';
			in++;
		} else if (*in == '\\' && in[1] == '\\') {
			out[n++] = '\\';
			in++;
		} else {
			out[n++] = *in;
		}
	}
	out[n] = '\0';
}

static const char *errno_name(int e)
{
	switch (e) {
	case EINVAL:
		return "EINVAL";
	case EPERM:
		return "EPERM";
	case ENOENT:
		return "ENOENT";
	case ESRCH:
		return "ESRCH";
	case ENOMEM:
		return "ENOMEM";
	default:
		return "?";
	}
}

/* The calls a compiled filter lets through, as "0 1 2". */
static void passing(const struct slim_filter *f, char *out, size_t size)
{
	size_t n = 0;
	unsigned int i;

	out[0] = '\0';
	for (i = 0; i < nr_calls; i++) {
		struct slim_filter_ctx ctx = { calls[i].comm, calls[i].cpu };

		if (!slim_filter_match(f, calls[i].rec, calls[i].len, &ctx))
			continue;
		n += snprintf(out + n, size - n, "%s%u", n ? " " : "", i);
		if (n >= size)
			break;
	}
}

static const struct exception *find_exception(int id)
{
	size_t i;

	for (i = 0; i < sizeof(exceptions) / sizeof(exceptions[0]); i++) {
		if (exceptions[i].id == id)
			return &exceptions[i];
	}
	return NULL;
}

struct verdict {
	int refused;
	char pass[256];
	char err[16];
	int pos, fpos;
	char after[32];
	char msg[128];
	char filter[16384];
};

static void short_expr(const char *expr, char *out, size_t size)
{
	snprintf(out, size, "%.60s%s", expr, strlen(expr) > 60 ? "..." : "");
}

/* What slimtrace does instead, for the listed differences. */
static void check_exception(int id, const char *expr, const struct verdict *k,
			    const struct exception *x)
{
	struct slim_filter *f = NULL;
	struct slim_filter_error e;
	int ret;

	nr_exceptions++;
	ret = slim_filter_compile(&table, expr, &f, &e);
	/* A stale list (the data was regenerated) must not pass silently. */
	CHECK(x->expr ? !strcmp(x->expr, expr) :
	      strlen(expr) >= SLIM_FILTER_WRITE_MAX);
	if (x->kind == EXC_CLEAR) {
		/* The kernel cleared the filter: everything passed. */
		CHECK(!k->refused);
		/* compile itself knows no "0": a field of that name is missing */
		CHECK_EQ_INT(ret, -EINVAL);
		CHECK_EQ_INT(e.code, SLIM_FERR_FIELD_NOT_FOUND);
	} else {
		/* The kernel never parsed it; slim_filter_compile does. */
		CHECK(k->refused && !strcmp(k->after, "kept"));
		CHECK(strlen(expr) >= SLIM_FILTER_WRITE_MAX);
		CHECK(ret == 0 || ret == -EINVAL);
	}
	printf("  case %d: documented exception (%s) [%.40s]\n", id,
	       x->kind == EXC_CLEAR ? "clear" : "too long", expr);
	slim_filter_free(f);
}

static void compare(int id, const char *expr, const struct verdict *k)
{
	struct slim_filter *f = NULL;
	struct slim_filter_error e;
	const struct exception *x = find_exception(id);
	char mine[256], text[16384], shown[80];
	int ret, same = 1;

	nr_cases++;
	if (x) {
		check_exception(id, expr, k, x);
		return;
	}
	short_expr(expr, shown, sizeof(shown));
	ret = slim_filter_compile(&table, expr, &f, &e);
	if (!k->refused) {
		if (ret) {
			printf("MISMATCH case %d [%s]: kernel accepts, we refuse: %s (pos %d)\n",
			       id, shown, e.msg, e.pos);
			same = 0;
		} else {
			passing(f, mine, sizeof(mine));
			if (strcmp(mine, k->pass)) {
				printf("MISMATCH case %d [%s]: passes kernel {%s} ours {%s}\n",
				       id, shown, k->pass, mine);
				same = 0;
			}
		}
	} else if (!ret) {
		printf("MISMATCH case %d [%s]: kernel refuses (%s), we accept\n",
		       id, shown, k->msg);
		same = 0;
	} else {
		int len = (int)strlen(expr), fpos;
		const char *msg = e.code == SLIM_FERR_BARE ? "Error" : e.msg;

		/* The filter file shows the text without trailing space. */
		while (len && strchr(" \t\n\v\f\r", expr[len - 1]))
			len--;
		fpos = e.code == SLIM_FERR_BARE ? -1 : (e.pos < len ? e.pos : len);
		slim_filter_error_text(expr, &e, text, sizeof(text));
		if (strcmp(msg, k->msg) || e.pos != k->pos || fpos != k->fpos ||
		    strcmp(errno_name(e.errnum), k->err) ||
		    strcmp(text, k->filter) || strcmp(k->after, "unfiltered")) {
			printf("MISMATCH case %d [%s]: kernel %s pos=%d fpos=%d \"%s\"; ours %s pos=%d fpos=%d \"%s\"%s\n",
			       id, shown, k->err, k->pos, k->fpos, k->msg,
			       errno_name(e.errnum), e.pos, fpos, msg,
			       strcmp(text, k->filter) ? " (filter text differs)" : "");
			same = 0;
		}
	}
	slim_filter_free(f);
	if (same)
		nr_same++;
	else
		nr_differ++;
	CHECK(same);
}

static int parse_reject(const char *line, struct verdict *v)
{
	const char *m = strstr(line, " msg=");

	if (sscanf(line, "reject errno=%15s pos=%d fpos=%d after=%31s", v->err,
		   &v->pos, &v->fpos, v->after) != 4 || !m)
		return -1;
	snprintf(v->msg, sizeof(v->msg), "%s", m + 5);
	v->refused = 1;
	return 0;
}

int main(void)
{
	FILE *fp = fopen(data_path(), "r");
	char *line = NULL, *expr = NULL;
	size_t cap = 0;
	ssize_t n;
	struct verdict *v = calloc(1, sizeof(*v));
	int id = 0, bad = 0;

	CHECK(fp != NULL);
	if (!fp || !v) {
		fprintf(stderr, "cannot read %s\n", data_path());
		free(v);
		return check_done("filter_kernel");
	}
	while ((n = getline(&line, &cap, fp)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (line[0] == '#')
			continue;
		if (!strncmp(line, "field ", 6)) {
			bad |= parse_field(line);
		} else if (!strncmp(line, "call ", 5)) {
			bad |= parse_call(line);
		} else if (!strncmp(line, "expr", 4) && (!line[4] || line[4] == ' ')) {
			free(expr);
			expr = strdup(line[4] ? line + 5 : "");
			memset(v, 0, sizeof(*v));
			id++;
		} else if (!strncmp(line, "pass", 4) && expr) {
			snprintf(v->pass, sizeof(v->pass), "%s", line[4] ? line + 5 : "");
			compare(id, expr, v);
			free(expr);
			expr = NULL;
		} else if (!strncmp(line, "reject ", 7) && expr) {
			bad |= parse_reject(line, v);
		} else if (!strncmp(line, "filter ", 7) && expr && v->refused) {
			unescape(line + 7, v->filter, sizeof(v->filter));
			compare(id, expr, v);
			free(expr);
			expr = NULL;
		}
	}
	CHECK_EQ_INT(bad, 0);
	CHECK(nr_calls > 0);
	CHECK(nr_cases > 0);
	printf("kernel cases: %d, same: %d, documented exceptions: %d, mismatches: %d\n",
	       nr_cases, nr_same, nr_exceptions, nr_differ);
	free(line);
	free(expr);
	free(v);
	fclose(fp);
	return check_done("filter_kernel");
}
