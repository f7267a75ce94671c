// SPDX-License-Identifier: MIT
/*
 * Event probes: an eprobe is a consumer of its source event.  Its
 * callback gets the source's record (built for consumers only, so the
 * source need not be recorded anywhere) and writes the eprobe's own
 * record from the fields its arguments name.
 */
#include <errno.h>
#include <string.h>
#include "core/internal.h"
#include "dynevent/dynevent.h"
#include "session/consumer.h"

/* A string argument's bytes in the source record (without its NUL). */
static const char *src_str(const struct slim_dyn_field *f, const unsigned char *rec,
			   unsigned int len, unsigned int *n)
{
	uint32_t loc;

	if (f->src_offset + f->src_size > len) {
		*n = 0;
		return "";
	}
	if (f->src_kind == SLIM_DYN_CHARS) {
		*n = (unsigned int)strnlen((const char *)rec + f->src_offset, f->src_size);
		return (const char *)rec + f->src_offset;
	}
	loc = (uint32_t)slim_load_uint(rec + f->src_offset, 4);
	if (f->src_kind == SLIM_DYN_REL_LOC)
		loc = slim_rel_to_data_loc(loc, f->src_offset + 4u);
	*n = (unsigned int)strnlen(slim_dyn_ptr(rec, len, loc), slim_dyn_len(rec, len, loc));
	return slim_dyn_ptr(rec, len, loc);
}

/* A number argument: the source value, sign-extended, cut to the cast. */
static void put_num(unsigned char *dst, const struct slim_dyn_field *f,
		    const unsigned char *rec, unsigned int len)
{
	uint64_t v = 0;

	if (f->src_offset + f->src_size <= len)
		v = slim_load_uint(rec + f->src_offset, f->src_size);
	if (f->src_signed && f->src_size < 8 && (v & (1ull << (f->src_size * 8 - 1))))
		v |= ~0ull << (f->src_size * 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	memcpy(dst, (unsigned char *)&v + 8 - f->size, f->size);
#else
	memcpy(dst, &v, f->size);
#endif
}

static void fill(const struct slim_dynevent *d, unsigned char *out, const unsigned char *rec,
		 unsigned int len)
{
	unsigned int i, off = d->def.size;

	for (i = 0; i < d->def.nr; i++) {
		const struct slim_dyn_field *f = &d->def.f[i];
		unsigned int n;
		const char *str;
		uint32_t loc;

		if (f->kind != SLIM_DYN_DATA_LOC) {
			put_num(out + f->offset, f, rec, len);
			continue;
		}
		str = src_str(f, rec, len, &n);
		loc = off | (n + 1) << 16;
		memcpy(out + f->offset, &loc, 4);
		memcpy(out + off, str, n);
		out[off + n] = '\0';
		off += n + 1;
	}
}

static unsigned int record_size(const struct slim_dynevent *d, const unsigned char *rec,
				unsigned int len)
{
	unsigned int i, size = d->def.size, n;

	for (i = 0; i < d->def.nr; i++) {
		if (d->def.f[i].kind == SLIM_DYN_DATA_LOC) {
			src_str(&d->def.f[i], rec, len, &n);
			size += n + 1;
		}
	}
	return size;
}

static void eprobe_cb(const struct slim_event *src, const void *rec, unsigned int len,
		      uint64_t ts_ns, void *data)
{
	struct slim_dynevent *d = data;
	struct slim_reserve r;
	unsigned int size = record_size(d, rec, len);
	unsigned char *out;

	(void)src, (void)ts_ns;
	if (size > 0xffff)
		return;
	for (out = slim_event_reserve(&r, &d->ev, size); out; out = slim_event_commit_next(&r))
		fill(d, out, rec, len);
}

int slim_eprobe_attach(struct slim_dynevent *d)
{
	if (!d->src)
		return -ENOENT;
	return slim_consumer_attach_locked(d->src, eprobe_cb, d);
}

void slim_eprobe_detach(struct slim_dynevent *d)
{
	if (d->src)
		slim_consumer_detach_locked(d->src, eprobe_cb, d);
}
