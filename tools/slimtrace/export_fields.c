// SPDX-License-Identifier: MIT
/*
 * The fields of each event as the exporters write them: what kind of
 * value, how big, where.  Built from libtraceevent's parse of the format
 * (sizes, array lengths, signedness, __data_loc), so every exporter types
 * a field the same way.  Records reach here checked by the reader: a
 * __data_loc is inside its record.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include "export.h"

static int int_size(int n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

/*
 * libtraceevent gives no element size for a __data_loc array
 * ("__data_loc u16[] name"): it comes from the element type's name.
 */
static const struct {
	const char *name;
	int size;			/* 0: a long */
} elem_types[] = {
	{ "char", 1 }, { "unsigned char", 1 }, { "signed char", 1 }, { "u8", 1 }, { "s8", 1 },
	{ "__u8", 1 }, { "__s8", 1 }, { "uint8_t", 1 }, { "int8_t", 1 }, { "bool", 1 }, { "_Bool", 1 },
	{ "short", 2 }, { "unsigned short", 2 }, { "u16", 2 }, { "s16", 2 }, { "__u16", 2 },
	{ "__s16", 2 }, { "uint16_t", 2 }, { "int16_t", 2 },
	{ "int", 4 }, { "unsigned int", 4 }, { "unsigned", 4 }, { "u32", 4 }, { "s32", 4 },
	{ "__u32", 4 }, { "__s32", 4 }, { "uint32_t", 4 }, { "int32_t", 4 }, { "pid_t", 4 },
	{ "long long", 8 }, { "unsigned long long", 8 }, { "u64", 8 }, { "s64", 8 }, { "__u64", 8 },
	{ "__s64", 8 }, { "uint64_t", 8 }, { "int64_t", 8 },
	{ "long", 0 }, { "unsigned long", 0 }, { "size_t", 0 }, { "ssize_t", 0 },
};

static int dyn_elem_size(const struct tdat *t, const struct tep_format_field *f)
{
	const char *type = f->type, *end;
	size_t i, n;

	if (!strncmp(type, "__data_loc ", 11))
		type += 11;
	else if (!strncmp(type, "__rel_loc ", 10))
		type += 10;
	if (!strncmp(type, "const ", 6))
		type += 6;
	end = strchr(type, '[');
	n = end ? (size_t)(end - type) : strlen(type);
	while (n && type[n - 1] == ' ')
		n--;
	if (n && type[n - 1] == '*')
		return t->long_size;
	for (i = 0; i < sizeof(elem_types) / sizeof(elem_types[0]); i++)
		if (strlen(elem_types[i].name) == n && !strncmp(type, elem_types[i].name, n))
			return elem_types[i].size ? elem_types[i].size : t->long_size;
	return 1;
}

static void describe(const struct tdat *t, struct xfield *x, const struct tep_format_field *f)
{
	unsigned long fl = f->flags;

	x->name = f->name;
	x->offset = f->offset;
	x->is_signed = !!(fl & TEP_FIELD_IS_SIGNED);
	x->is_pointer = !!(fl & TEP_FIELD_IS_POINTER);
	x->dynamic = !!(fl & TEP_FIELD_IS_DYNAMIC);
	x->relative = !!(fl & TEP_FIELD_IS_RELATIVE);
	x->array = x->dynamic || (fl & TEP_FIELD_IS_ARRAY);
	x->count = 1;
	if (fl & TEP_FIELD_IS_STRING) {
		x->kind = XF_TEXT;
		x->size = 1;
		x->count = x->dynamic ? 0 : f->size;
		return;
	}
	if (x->dynamic) {
		x->kind = XF_INT;
		x->size = int_size((int)f->elementsize) ? (int)f->elementsize : dyn_elem_size(t, f);
		x->count = 0;
		return;
	}
	if ((fl & TEP_FIELD_IS_ARRAY) && int_size((int)f->elementsize) && f->arraylen &&
	    f->arraylen * f->elementsize == (unsigned int)f->size) {
		x->kind = XF_INT;
		x->size = (int)f->elementsize;
		x->count = (int)f->arraylen;
		return;
	}
	if (!(fl & TEP_FIELD_IS_ARRAY) && int_size(f->size)) {
		x->kind = XF_INT;
		x->size = f->size;
		return;
	}
	x->kind = XF_BYTES;
	x->size = 1;
	x->count = f->size;
}

static int build_one(struct tdat *t, struct xevent *xe, struct tdat_event *ev)
{
	struct tep_format_field *f;
	int n = 0;

	xe->ev = ev;
	for (f = ev->tep->format.fields; f; f = f->next)
		n++;
	xe->fields = calloc(n ? n : 1, sizeof(*xe->fields));
	if (!xe->fields) {
		snprintf(t->err, sizeof(t->err), "out of memory");
		return -1;
	}
	for (f = ev->tep->format.fields; f; f = f->next)
		describe(t, &xe->fields[xe->nr_fields++], f);
	return 0;
}

struct xevent *xevents_build(struct tdat *t)
{
	struct xevent *xe = calloc(t->nr_events ? t->nr_events : 1, sizeof(*xe));
	int i;

	if (!xe) {
		snprintf(t->err, sizeof(t->err), "out of memory");
		return NULL;
	}
	for (i = 0; i < t->nr_events; i++) {
		if (build_one(t, &xe[i], &t->events[i])) {
			xevents_free(xe, i);
			return NULL;
		}
	}
	return xe;
}

void xevents_free(struct xevent *xe, int nr)
{
	int i;

	if (!xe)
		return;
	for (i = 0; i < nr; i++)
		free(xe[i].fields);
	free(xe);
}

int xfield_span(const struct tdat *t, const struct xfield *f, const struct tdat_record *r,
		const uint8_t **p)
{
	uint32_t loc, off, len;
	const uint8_t *q;

	if (!f->dynamic) {
		*p = r->data + f->offset;
		if (f->kind == XF_TEXT) {
			q = memchr(*p, '\0', f->count);
			return q ? (int)(q - *p) : f->count;
		}
		return f->count;
	}
	loc = (uint32_t)tep_read_number(t->tep, r->data + f->offset, 4);
	off = loc & 0xffff;
	len = loc >> 16;
	if (f->relative)
		off += f->offset + 4;
	*p = r->data + off;
	if (f->kind == XF_TEXT) {
		q = memchr(*p, '\0', len);
		return q ? (int)(q - *p) : (int)len;
	}
	return (int)(len / f->size);
}

uint64_t xfield_int(const struct tdat *t, const struct xfield *f, const uint8_t *p, int i)
{
	uint64_t v = tep_read_number(t->tep, p + (size_t)i * f->size, f->size);
	int bits = f->size * 8;

	if (f->is_signed && bits < 64 && (v >> (bits - 1)) & 1)
		v |= ~0ULL << bits;
	return v;
}

int xrecord_tid(const struct tdat *t, const struct tdat_record *r)
{
	struct tep_format_field *f = tep_find_common_field(r->event->tep, "common_pid");

	if (!f || f->offset + f->size > r->size || !int_size(f->size))
		return -1;
	return (int)tep_read_number(t->tep, r->data + f->offset, f->size);
}

const char *xthread_name(const struct tdat *t, int tid)
{
	return tep_data_comm_from_pid(t->tep, tid);
}
