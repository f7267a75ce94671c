/* SPDX-License-Identifier: MIT */
/*
 * The kernel's ring-buffer page and event header, owned here once: the
 * ring buffer writes and reads them, the recorder re-encodes them, and
 * the slimtrace command (which does not link the library; this file and
 * page.c are compiled into it) reads them from any trace.dat.
 *
 * A page (struct buffer_data_page): u64 time stamp, a commit word (the
 * kernel's long: 4 or 8 bytes) holding the data length and two flags,
 * then the events.  An event: a u32 header, type_len (5 bits) and
 * time_delta (27 bits), then
 *
 *   type_len 1..28   a payload of 4 * type_len bytes
 *   type_len 0       a u32 length (payload + 4), the payload
 *   29 padding       delta 0: the rest of the page; else a u32 length
 *   30 time extend   a u32: delta bits 27..58
 *   31 time stamp    a u32: absolute time bits 27..58
 *
 * After the data, when the commit word says so, the count of events
 * lost before the page (a long).  docs/ring-buffer.md has the details.
 */
#ifndef SLIM_RING_PAGE_H
#define SLIM_RING_PAGE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#pragma GCC visibility push(hidden)

/* The layout this library writes: 4096-byte pages, a 64-bit commit. */
#define SLIM_PAGE_SIZE		4096u
#define SLIM_PAGE_HDR		16u
#define SLIM_PAGE_DATA		(SLIM_PAGE_SIZE - SLIM_PAGE_HDR)
#define SLIM_PAGE_EVENT_HDR	8u	/* type_len 0 + length word: the largest */

#define SLIM_PAGE_TYPE_DATA_MAX	28u
#define SLIM_PAGE_TYPE_PADDING	29u
#define SLIM_PAGE_TYPE_EXTEND	30u
#define SLIM_PAGE_TYPE_STAMP	31u
#define SLIM_PAGE_DELTA_BITS	27u
#define SLIM_PAGE_DELTA_MAX	((1u << SLIM_PAGE_DELTA_BITS) - 1)
/* What a time extend (or stamp) carries: 27 + 32 bits. */
#define SLIM_PAGE_EXTEND_MAX	((1ull << (SLIM_PAGE_DELTA_BITS + 32)) - 1)

/* The commit word: the kernel's RB_MISSED_EVENTS and RB_MISSED_STORED. */
#define SLIM_PAGE_MISSED_EVENTS	(1ull << 31)
#define SLIM_PAGE_MISSED_STORED	(1ull << 30)
#define SLIM_PAGE_COMMIT_MASK	((1ull << 27) - 1)

/* How a file's pages are laid out (its header_page, its byte order). */
struct slim_page_fmt {
	int big_endian;		/* the file's byte order */
	int swap;		/* differs from this host's */
	unsigned int page_size;
	unsigned int commit_offset, commit_size;	/* 8/8 or 8/4 */
	unsigned int data_offset, data_size;
};

/* What this host writes. */
static const struct slim_page_fmt slim_page_host = {
	.big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__,
	.swap = 0,
	.page_size = SLIM_PAGE_SIZE,
	.commit_offset = 8, .commit_size = 8,
	.data_offset = SLIM_PAGE_HDR, .data_size = SLIM_PAGE_DATA,
};

/* The texts of events/header_page and events/header_event for it. */
extern const char slim_page_header_page[];
extern const char slim_page_header_event[];

/* ---- event headers ---- */

static inline uint32_t slim_page_u32(const struct slim_page_fmt *f, const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return f->swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t slim_page_u64(const struct slim_page_fmt *f, const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return f->swap ? __builtin_bswap64(v) : v;
}

/* An event header in this host's order (the only one written). */
static inline uint32_t slim_page_hdr(unsigned int type, uint32_t delta)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return (uint32_t)type << SLIM_PAGE_DELTA_BITS | delta;
#else
	return delta << 5 | type;
#endif
}

/* The type (type_len) of a header slim_page_hdr() made. */
static inline unsigned int slim_page_hdr_type(uint32_t hdr)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return hdr >> SLIM_PAGE_DELTA_BITS;
#else
	return hdr & 31;
#endif
}

/*
 * The payload of the data event whose header (host order) is at e, and
 * its length in *len: after the header when type_len gives the words,
 * after the length word when type_len is 0.
 */
static inline void *slim_page_payload(uint32_t *e, uint32_t *len)
{
	uint32_t tl = slim_page_hdr_type(e[0]);

	if (tl) {
		*len = 4 * tl;
		return e + 1;
	}
	*len = e[1] - 4;
	return e + 2;
}

/* The time delta of a header slim_page_hdr() made. */
static inline uint32_t slim_page_hdr_delta(uint32_t hdr)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return hdr & SLIM_PAGE_DELTA_MAX;
#else
	return hdr >> 5;
#endif
}

/*
 * Bytes a data event of a payload of len bytes takes, as the kernel
 * writes it: the payload rounded to 4 (an empty one takes 4, as in the
 * kernel), after a 4-byte header whose type_len counts its words (up to
 * 112 bytes), else after a header and a length word.
 */
static inline uint64_t slim_page_event_size(unsigned int len)
{
	uint64_t words = len ? ((uint64_t)len + 3) & ~(uint64_t)3 : 4;

	return words + (words <= 4 * SLIM_PAGE_TYPE_DATA_MAX ? 4 : 8);
}

/*
 * Write the header of a data event of size bytes (slim_page_event_size())
 * at ev, time delta below 2^27: where its payload goes.
 */
static inline void *slim_page_put_data(uint32_t *ev, uint32_t size, uint32_t delta)
{
	if (size <= 4 + 4 * SLIM_PAGE_TYPE_DATA_MAX) {
		ev[0] = slim_page_hdr((size - 4) / 4, delta);
		return ev + 1;
	}
	ev[0] = slim_page_hdr(0, delta);
	ev[1] = size - 4;	/* the kernel's length word counts itself */
	return ev + 2;
}

/* A time extend of delta (below SLIM_PAGE_EXTEND_MAX) at p: 8 bytes. */
static inline void slim_page_put_extend(void *p, uint64_t delta)
{
	uint32_t w[2] = {
		slim_page_hdr(SLIM_PAGE_TYPE_EXTEND, (uint32_t)(delta & SLIM_PAGE_DELTA_MAX)),
		(uint32_t)(delta >> SLIM_PAGE_DELTA_BITS),
	};

	memcpy(p, w, sizeof(w));
}

/* One entry of a page's data: an event, padding, an extend or a stamp. */
struct slim_page_entry {
	unsigned int type;	/* type_len */
	uint32_t delta;
	uint32_t array0;	/* the word after the header, where there is one */
	uint32_t size;		/* bytes the entry takes */
	uint32_t off;		/* where it starts */
	const unsigned char *payload;	/* data events */
	uint32_t len;		/* payload bytes */
};

/* Why an entry could not be read: what it needs, what is there. */
enum slim_page_err {
	SLIM_PAGE_E_HEADER = 1,	/* the header (or its second word) is cut */
	SLIM_PAGE_E_LENWORD,	/* type 0: no room for the length word */
	SLIM_PAGE_E_LENGTH,	/* the event's length runs past the data */
	SLIM_PAGE_E_PADDING,	/* a padding length runs past the data */
};

struct slim_page_bad {
	enum slim_page_err err;
	uint32_t off;		/* of the entry */
	uint32_t need, room;
};

/*
 * The entry at *off of data[0, end): 1 with e filled and *off past it,
 * 0 at the end (or padding to the end of the page), -1 if it is
 * malformed (bad says how, when not NULL; *off is left alone).
 */
static inline int slim_page_next(const struct slim_page_fmt *f, const unsigned char *data,
				 uint32_t end, uint32_t *off, struct slim_page_entry *e,
				 struct slim_page_bad *bad)
{
	uint32_t at = *off, room, h;
	enum slim_page_err err;

	if (at >= end)
		return 0;
	room = end - at;
	if (room < 4) {
		err = SLIM_PAGE_E_HEADER;
		e->size = 4;
		goto malformed;
	}
	h = slim_page_u32(f, data + at);
	e->off = at;
	e->type = f->big_endian ? h >> SLIM_PAGE_DELTA_BITS : h & 31;
	e->delta = f->big_endian ? h & SLIM_PAGE_DELTA_MAX : h >> 5;
	e->array0 = 0;
	e->payload = NULL;
	e->len = 0;
	if (e->type == SLIM_PAGE_TYPE_PADDING && e->delta == 0) {
		*off = end;	/* the rest of the page is padding */
		return 0;
	}
	if (e->type == 0 || e->type > SLIM_PAGE_TYPE_DATA_MAX) {
		if (room < 8) {
			err = e->type ? SLIM_PAGE_E_HEADER : SLIM_PAGE_E_LENWORD;
			e->size = 8;
			goto malformed;
		}
		e->array0 = slim_page_u32(f, data + at + 4);
	}
	switch (e->type) {
	case SLIM_PAGE_TYPE_PADDING:
		e->size = 4 + e->array0;
		if (e->array0 < 4 || e->array0 > room - 4) {
			err = SLIM_PAGE_E_PADDING;
			e->size = e->array0;
			room -= 4;
			goto malformed;
		}
		break;
	case SLIM_PAGE_TYPE_EXTEND:
	case SLIM_PAGE_TYPE_STAMP:
		e->size = 8;
		break;
	case 0:			/* the length counts itself and the payload */
		if (e->array0 < 4 || e->array0 > room - 4) {
			err = SLIM_PAGE_E_LENGTH;
			e->size = e->array0;
			room -= 4;
			goto malformed;
		}
		e->len = e->array0 - 4;
		e->payload = data + at + 8;
		e->size = 4 + e->array0;
		break;
	default:
		e->len = 4 * e->type;
		if (e->len > room - 4) {
			err = SLIM_PAGE_E_LENGTH;
			e->size = e->len;
			room -= 4;
			goto malformed;
		}
		e->payload = data + at + 4;
		e->size = 4 + e->len;
		break;
	}
	*off = at + e->size;
	return 1;
malformed:
	if (bad) {
		bad->err = err;
		bad->off = at;
		bad->need = e->size;
		bad->room = room;
	}
	return -1;
}

/*
 * slim_page_next() on a page in this host's order, the data events this
 * library writes (type_len their words, or 0 and a length word) read
 * here, anything else by slim_page_next(): for a walk over every event,
 * as the recorder's conversion of cycle stamps makes.
 */
static inline int slim_page_next_host(const unsigned char *data, uint32_t n, uint32_t *off,
				      struct slim_page_entry *ev)
{
	uint32_t at = *off, h, len;

	if (at < n && n - at >= 8) {
		memcpy(&h, data + at, 4);
		len = 4 * slim_page_hdr_type(h);
		if (len && len <= 4 * SLIM_PAGE_TYPE_DATA_MAX && len <= n - at - 4) {
			ev->type = len / 4;
			ev->delta = slim_page_hdr_delta(h);
			ev->array0 = 0;
			ev->off = at;
			ev->size = 4 + len;
			ev->payload = data + at + 4;
			ev->len = len;
			*off = at + ev->size;
			return 1;
		}
		memcpy(&len, data + at + 4, 4);
		if (slim_page_hdr_type(h) == 0 && len >= 4 && len <= n - at - 4) {
			ev->type = 0;
			ev->delta = slim_page_hdr_delta(h);
			ev->array0 = len;
			ev->off = at;
			ev->size = 4 + len;
			ev->payload = data + at + 8;
			ev->len = len - 4;
			*off = at + ev->size;
			return 1;
		}
	}
	return slim_page_next(&slim_page_host, data, n, off, ev, NULL);
}

static inline int slim_page_is_data(const struct slim_page_entry *e)
{
	return e->type <= SLIM_PAGE_TYPE_DATA_MAX;
}

/* The time after entry e, from the time t before it. */
static inline uint64_t slim_page_time(const struct slim_page_entry *e, uint64_t t)
{
	uint64_t wide = (uint64_t)e->array0 << SLIM_PAGE_DELTA_BITS | e->delta;

	if (e->type == SLIM_PAGE_TYPE_EXTEND)
		return t + wide;
	if (e->type == SLIM_PAGE_TYPE_STAMP)	/* the low 59 bits */
		return (t & ~SLIM_PAGE_EXTEND_MAX) | wide;
	return t + e->delta;
}

/* ---- the commit word and the lost-events trailer ---- */

struct slim_page_info {
	uint64_t time_stamp;
	uint64_t commit;	/* the low 32 bits of the word, flags included */
	uint32_t len;		/* data bytes */
	long long missed;	/* events lost before the page: 0, N, or -1 unknown */
};

enum slim_page_commit_err {
	SLIM_PAGE_E_FLAGS = 1,	/* bits 27..29 set */
	SLIM_PAGE_E_COMMIT,	/* length beyond the data area */
	SLIM_PAGE_E_NOROOM,	/* no room after the data for the stored count */
	SLIM_PAGE_E_COUNT,	/* a stored count that is negative */
};

/* Read page's header and trailer: 0, or an enum slim_page_commit_err. */
int slim_page_info(const struct slim_page_fmt *f, const unsigned char *page,
		   struct slim_page_info *pi);

/*
 * Finish a page of this host's layout whose data holds n bytes: the
 * commit word, the flag and count of `missed` lost events (when there
 * is room for the count after the data; else only the flag), zeros to
 * the end.  The time stamp is the caller's.
 */
void slim_page_finish(unsigned char *page, uint32_t n, uint64_t missed);

/* Room a page of n data bytes has for a lost count after them. */
static inline int slim_page_count_fits(uint32_t n)
{
	return n + 8 <= SLIM_PAGE_DATA;
}

/* ---- header_page / header_event texts of a file ---- */

enum slim_page_fmt_err {
	SLIM_PAGE_E_FIELDS = 1,	/* no timestamp, commit or data field */
	SLIM_PAGE_E_FIT,	/* they do not fit a page */
	SLIM_PAGE_E_EVENT,	/* not the 5/27-bit event header */
};

/* What header_page says, for messages. */
struct slim_page_fields {
	int ts_off, ts_size, commit_off, commit_size, data_off, data_size;
};

/*
 * The layout of a file's pages from its header_page and header_event
 * texts: 0, or an enum slim_page_fmt_err (fl says what was found).
 */
int slim_page_fmt_parse(struct slim_page_fmt *f, const char *header_page,
			const char *header_event, unsigned int page_size,
			int big_endian, struct slim_page_fields *fl);

#pragma GCC visibility pop

#endif /* SLIM_RING_PAGE_H */
