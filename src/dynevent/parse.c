// SPDX-License-Identifier: MIT
/*
 * The `dynamic_events` command language: one line into a definition,
 * with nothing made yet, so that a refused command changes nothing.
 * Messages are the kernel's, so that scripts reading error_log match.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dynevent/dynevent.h"
#include "ring/ring_buffer.h"

#define MSG_NAME	"Event name must follow the same rules as C identifiers"
#define MSG_GROUP	"Group name must follow the same rules as C identifiers"
#define MSG_TYPE	"Unknown type is specified"
#define MSG_ARGNAME	"Argument name must follow the same rules as C identifiers"
#define MSG_USED	"This argument name is already used"
#define MSG_MANY	"Too many arguments are specified"
#define MSG_BIG		"Fields are too large for a record"
#define MSG_CMD		"Unknown command"
#define MSG_NOEVENT	"Attached event is not specified"
#define MSG_FETCH	"Invalid fetch argument"
#define MSG_NOFIELD	"Attached event does not have this field"

/* The kernel's user_events basic types. */
static const struct {
	const char *name;
	uint8_t size, is_signed;
} basic[] = {
	{ "u8", 1, 0 }, { "s8", 1, 1 }, { "u16", 2, 0 }, { "s16", 2, 1 },
	{ "u32", 4, 0 }, { "s32", 4, 1 }, { "u64", 8, 0 }, { "s64", 8, 1 },
	{ "char", 1, 1 }, { "unsigned char", 1, 0 },
	{ "short", 2, 1 }, { "unsigned short", 2, 0 },
	{ "int", 4, 1 }, { "unsigned int", 4, 0 },
	{ "long", 8, 1 }, { "unsigned long", 8, 0 },
};

struct cursor {
	const char *line;	/* the whole command, for caret columns */
	struct slim_dyn_error *err;
	const char *loc;
};

static int fail(struct cursor *c, int ret, const char *msg, const char *at)
{
	c->err->loc = c->loc;
	c->err->msg = msg;
	c->err->pos = at ? (int)(at - c->line) : -1;
	return ret;
}

static int is_ident(const char *s, size_t n)
{
	size_t i;

	if (!n || n >= SLIM_DYN_NAME_MAX || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (i = 1; i < n; i++) {
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	}
	return 1;
}

static void copy(char *dst, size_t size, const char *src, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* "[SYS/]NAME" ending at a blank or the end: 0 or -EINVAL. */
static int parse_name(struct cursor *c, const char **p, struct slim_dyn_def *def,
		      const char *dflt)
{
	const char *s = *p, *end = s + strcspn(s, " \t"), *slash;

	slash = memchr(s, '/', end - s);
	if (slash) {
		if (!is_ident(s, slash - s))
			return fail(c, -EINVAL, MSG_GROUP, s);
		copy(def->system, sizeof(def->system), s, slash - s);
		s = slash + 1;
	} else if (dflt) {
		copy(def->system, sizeof(def->system), dflt, strlen(dflt));
	}
	if (!is_ident(s, end - s))
		return fail(c, -EINVAL, MSG_NAME, s);
	copy(def->name, sizeof(def->name), s, end - s);
	*p = end;
	return 0;
}

static int add_size(struct cursor *c, struct slim_dyn_def *def, unsigned int size,
		    const char *at)
{
	if (def->size + size > SLIM_RB_MAX_PAYLOAD || size > 0xffff)
		return fail(c, -E2BIG, MSG_BIG, at);
	def->size += size;
	return 0;
}

static int basic_type(const char *type, size_t n, uint8_t *size, uint8_t *is_signed)
{
	size_t i;

	for (i = 0; i < sizeof(basic) / sizeof(basic[0]); i++) {
		if (strlen(basic[i].name) == n && !memcmp(basic[i].name, type, n)) {
			*size = basic[i].size;
			*is_signed = basic[i].is_signed;
			return 1;
		}
	}
	return 0;
}

/* Words of one field, blanks squeezed: up to 4. */
static int split_words(const char *s, size_t n, const char **w, size_t *wl)
{
	const char *end = s + n;
	int nr = 0;

	while (s < end) {
		while (s < end && isspace((unsigned char)*s))
			s++;
		if (s == end)
			break;
		if (nr == 4)
			return -1;
		w[nr] = s;
		while (s < end && !isspace((unsigned char)*s))
			s++;
		wl[nr] = s - w[nr];
		nr++;
	}
	return nr;
}

static int field_struct(struct cursor *c, struct slim_dyn_field *f, const char **w,
			size_t *wl)
{
	char num[16];
	char *end;
	long v;

	copy(num, sizeof(num), w[3], wl[3]);
	v = strtol(num, &end, 0);
	if (*end || v <= 0 || v > 0xffff || !is_ident(w[1], wl[1]))
		return fail(c, -EINVAL, MSG_TYPE, w[0]);
	snprintf(f->type, sizeof(f->type), "struct %.*s", (int)wl[1], w[1]);
	f->size = (uint16_t)v;
	f->kind = SLIM_DYN_ARRAY;
	return 0;
}

/* A type text (without the name) into f: 0 or -EINVAL. */
static int field_type(struct cursor *c, struct slim_dyn_field *f, const char *t, size_t n)
{
	const char *br = memchr(t, '[', n);
	uint8_t size, sgn;
	long len = 0;

	if (n < sizeof(f->type) && (!strncmp(t, "__data_loc char[]", n) ||
				    !strncmp(t, "__rel_loc char[]", n)) &&
	    t[n - 1] == ']' && n > 10) {
		copy(f->type, sizeof(f->type), t, n);
		f->kind = t[2] == 'd' ? SLIM_DYN_DATA_LOC : SLIM_DYN_REL_LOC;
		f->size = 4;
		f->is_signed = 1;
		return 0;
	}
	if (br) {
		char *end;

		len = strtol(br + 1, &end, 10);
		if (end != t + n - 1 || *end != ']' || len <= 0 || len > 0xffff)
			return fail(c, -EINVAL, MSG_TYPE, t);
	}
	if (!basic_type(t, br ? (size_t)(br - t) : n, &size, &sgn))
		return fail(c, -EINVAL, MSG_TYPE, t);
	copy(f->type, sizeof(f->type), t, n);
	f->size = br ? (uint16_t)(size * len) : size;
	f->is_signed = sgn;
	f->kind = br ? (!strncmp(t, "char[", 5) ? SLIM_DYN_CHARS : SLIM_DYN_ARRAY) :
		  sgn ? SLIM_DYN_SINT : SLIM_DYN_UINT;
	if (f->kind == SLIM_DYN_CHARS)
		f->is_signed = 1;
	return 0;
}

static int dup_name(const struct slim_dyn_def *def, const char *name)
{
	unsigned int i;

	for (i = 0; i < def->nr; i++) {
		if (!strcmp(def->f[i].name, name))
			return 1;
	}
	return 0;
}

/* The field as dynamic_events reads it back. */
static void set_text(struct slim_dyn_field *f)
{
	char text[sizeof(f->text)];

	if (f->kind == SLIM_DYN_ARRAY && !strncmp(f->type, "struct ", 7))
		snprintf(text, sizeof(text), "%s %s %u", f->type, f->name, f->size);
	else
		snprintf(text, sizeof(text), "%s %s", f->type, f->name);
	memcpy(f->text, text, sizeof(text));
}

/* One user_events field, "TYPE NAME" or "struct TYPE NAME SIZE". */
static int user_field(struct cursor *c, struct slim_dyn_def *def, const char *s, size_t n)
{
	struct slim_dyn_field *f = &def->f[def->nr];
	const char *w[4], *name;
	size_t wl[4], nl;
	int nw = split_words(s, n, w, wl), ret;

	if (def->nr == SLIM_DYN_MAX_FIELDS)
		return fail(c, -E2BIG, MSG_MANY, s);
	memset(f, 0, sizeof(*f));
	if (nw < 2)
		return fail(c, -EINVAL, MSG_TYPE, nw > 0 ? w[0] : s);
	if (wl[0] == 6 && !memcmp(w[0], "struct", 6)) {
		if (nw != 4)
			return fail(c, -EINVAL, MSG_TYPE, w[0]);
		ret = field_struct(c, f, w, wl);
		name = w[2], nl = wl[2];
	} else {
		char type[64];

		/* The type is every word but the last, one blank apart. */
		snprintf(type, sizeof(type), "%.*s%s%.*s%s%.*s", (int)wl[0], w[0],
			 nw > 2 ? " " : "", nw > 2 ? (int)wl[1] : 0, nw > 2 ? w[1] : "",
			 nw > 3 ? " " : "", nw > 3 ? (int)wl[2] : 0, nw > 3 ? w[2] : "");
		ret = field_type(c, f, type, strlen(type));
		if (ret)
			c->err->pos = (int)(w[0] - c->line);
		name = w[nw - 1], nl = wl[nw - 1];
	}
	if (ret)
		return ret;
	if (!is_ident(name, nl))
		return fail(c, -EINVAL, MSG_ARGNAME, name);
	copy(f->name, sizeof(f->name), name, nl);
	if (dup_name(def, f->name))
		return fail(c, -EINVAL, MSG_USED, name);
	set_text(f);
	f->offset = (uint16_t)def->size;
	ret = add_size(c, def, f->size, s);
	if (!ret)
		def->nr++;
	return ret;
}

static int parse_user(struct cursor *c, const char *p, struct slim_dyn_def *def)
{
	int ret;

	c->loc = "user_events";
	ret = parse_name(c, &p, def, SLIM_DYN_USER_SYSTEM);
	while (!ret && *p) {
		size_t n = strcspn(p, ";");

		if (p[strspn(p, " \t")] != ';' || n)
			ret = user_field(c, def, p, n);
		p += n + (p[n] == ';');
	}
	return ret;
}

/* "name=$field[:type]" or "$field[:type]": the type is checked later. */
static int eprobe_arg(struct cursor *c, struct slim_dyn_def *def, const char *s, size_t n)
{
	struct slim_dyn_field *f = &def->f[def->nr];
	const char *eq = memchr(s, '=', n), *d = eq ? eq + 1 : s, *colon;
	size_t fl;

	if (def->nr == SLIM_DYN_MAX_FIELDS)
		return fail(c, -E2BIG, MSG_MANY, s);
	memset(f, 0, sizeof(*f));
	if (d >= s + n || *d != '$')
		return fail(c, -EINVAL, MSG_FETCH, d);
	colon = memchr(d, ':', s + n - d);
	fl = (colon ? colon : s + n) - (d + 1);
	if (!is_ident(d + 1, fl))
		return fail(c, -EINVAL, MSG_FETCH, d);
	copy(f->src, sizeof(f->src), d + 1, fl);
	if (eq && !is_ident(s, eq - s))
		return fail(c, -EINVAL, MSG_ARGNAME, s);
	copy(f->name, sizeof(f->name), eq ? s : d + 1, eq ? (size_t)(eq - s) : fl);
	if (dup_name(def, f->name))
		return fail(c, -EINVAL, MSG_USED, s);
	/* The cast, if any, waits in type until the source is known. */
	if (colon)
		copy(f->type, sizeof(f->type), colon + 1, s + n - colon - 1);
	if (eq) {
		copy(f->text, sizeof(f->text), s, n);
	} else {
		char text[sizeof(f->text)];

		snprintf(text, sizeof(text), "%s=%.*s", f->name, (int)n, s);
		memcpy(f->text, text, sizeof(text));
	}
	f->offset = (uint16_t)(s - c->line);	/* the caret, until resolved */
	def->nr++;
	return 0;
}

static int parse_eprobe(struct cursor *c, const char *p, struct slim_dyn_def *def)
{
	const char *src, *sep;
	size_t n;
	int ret;

	c->loc = "event_probe";
	ret = parse_name(c, &p, def, SLIM_DYN_EPROBE_GROUP);
	if (ret)
		return ret;
	p += strspn(p, " \t");
	src = p;
	n = strcspn(p, " \t");
	sep = memchr(src, '.', n);
	if (!sep)
		sep = memchr(src, '/', n);
	if (!n || !sep || !is_ident(src, sep - src) || !is_ident(sep + 1, src + n - sep - 1))
		return fail(c, -EINVAL, MSG_NOEVENT, src);
	copy(def->src_system, sizeof(def->src_system), src, sep - src);
	copy(def->src_name, sizeof(def->src_name), sep + 1, src + n - sep - 1);
	p += n;
	while (!ret && *(p += strspn(p, " \t"))) {
		n = strcspn(p, " \t");
		ret = eprobe_arg(c, def, p, n);
		p += n;
	}
	return ret;
}

/* "-:[SYS/]NAME": the system is optional, as in the kernel. */
static int parse_remove(struct cursor *c, const char *p, struct slim_dyn_def *def)
{
	c->loc = "dynamic_events";
	return parse_name(c, &p, def, NULL);
}

int slim_dyn_parse(const char *line, struct slim_dyn_def *def, struct slim_dyn_error *err)
{
	struct cursor c = { .line = line, .err = err, .loc = "dynamic_events" };
	const char *p = line + strspn(line, " \t");

	memset(def, 0, sizeof(*def));
	def->size = 8;		/* the common header */
	def->kind = p[0];
	if ((p[0] == 'u' || p[0] == 'e' || p[0] == '-') && p[1] == ':') {
		if (p[0] == 'u')
			return parse_user(&c, p + 2, def);
		if (p[0] == 'e')
			return parse_eprobe(&c, p + 2, def);
		return parse_remove(&c, p + 2, def);
	}
	return fail(&c, -EINVAL, MSG_CMD, p);
}

/* ---- eprobe arguments against the source's fields ---------------------- */

static enum slim_dyn_kind src_kind(const struct slim_field_table *t, const struct slim_field *sf)
{
	switch (slim_field_filter_type(t, sf)) {
	case SLIM_FILTER_STATIC_STRING:
		return SLIM_DYN_CHARS;
	case SLIM_FILTER_DYN_STRING:
		return SLIM_DYN_DATA_LOC;
	case SLIM_FILTER_RDYN_STRING:
		return SLIM_DYN_REL_LOC;
	default:
		return sf->is_signed ? SLIM_DYN_SINT : SLIM_DYN_UINT;
	}
}

static int is_string(int kind)
{
	return kind == SLIM_DYN_CHARS || kind == SLIM_DYN_DATA_LOC || kind == SLIM_DYN_REL_LOC;
}

/* The cast (or the field's own type) into f's kind, size and type text. */
static int arg_cast(struct slim_dyn_field *f)
{
	char cast[sizeof(f->type)];
	char *end;
	long bits;

	memcpy(cast, f->type, sizeof(cast));
	if (!cast[0]) {
		if (is_string(f->src_kind))
			strcpy(cast, "string");
		else
			snprintf(cast, sizeof(cast), "%c%u", f->src_signed ? 's' : 'u',
				 f->src_size * 8);
	}
	if (!strcmp(cast, "string")) {
		if (!is_string(f->src_kind))
			return -EINVAL;
		strcpy(f->type, "__data_loc char[]");
		f->kind = SLIM_DYN_DATA_LOC, f->size = 4, f->is_signed = 1;
		return 0;
	}
	if (!strchr("usx", cast[0]) || is_string(f->src_kind))
		return -EINVAL;
	bits = strtol(cast + 1, &end, 10);
	if (*end || (bits != 8 && bits != 16 && bits != 32 && bits != 64))
		return -EINVAL;
	f->kind = cast[0] == 'u' ? SLIM_DYN_UINT : cast[0] == 's' ? SLIM_DYN_SINT : SLIM_DYN_HEX;
	f->size = (uint16_t)(bits / 8);
	f->is_signed = cast[0] == 's';
	/* The format file names the storage type; x only changes the print. */
	snprintf(f->type, sizeof(f->type), "%c%ld", cast[0] == 's' ? 's' : 'u', bits);
	return 0;
}

int slim_dyn_resolve_args(struct slim_dyn_def *def, const struct slim_field_table *src,
			  const char *line, struct slim_dyn_error *err)
{
	struct cursor c = { .line = line, .err = err, .loc = "event_probe" };
	unsigned int i;

	for (i = 0; i < def->nr; i++) {
		struct slim_dyn_field *f = &def->f[i];
		const struct slim_field *sf = slim_field_find(src, f->src);
		const char *at = line + f->offset;
		int ret;

		if (!sf)
			return fail(&c, -ENOENT, MSG_NOFIELD, at);
		f->src_offset = sf->offset;
		f->src_size = sf->size;
		f->src_signed = sf->is_signed;
		f->src_kind = (uint8_t)src_kind(src, sf);
		if (arg_cast(f))
			return fail(&c, -EINVAL, MSG_TYPE, at);
		f->offset = (uint16_t)def->size;
		ret = add_size(&c, def, f->size, at);
		if (ret)
			return ret;
	}
	return 0;
}
