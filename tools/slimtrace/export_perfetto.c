// SPDX-License-Identifier: MIT
/*
 * trace.dat to a Perfetto protobuf trace (ui.perfetto.dev, trace
 * processor): a Trace message of TracePackets, each a TrackDescriptor or
 * a TrackEvent, field numbers as Perfetto's protos give them
 * (docs/formats.md lists the ones used).
 *
 * One track per thread (pid = tid: a trace.dat does not say which
 * process a thread belongs to), named from the file's cmdlines; every
 * event an instant on its thread's track with its fields as debug
 * annotations.  --slice START,END turns a pair of events into a slice:
 * nested on the thread without a key, or matched by the value of KEY
 * (on any thread) and drawn on "lanes", one track per slice in flight.
 * Lost events become instants on a track of their CPU.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "export.h"

/* Field numbers (perfetto/protos/perfetto/trace/...). */
enum {
	TRACE_PACKET = 1,			/* Trace.packet */
	PKT_TIMESTAMP = 8,
	PKT_SEQUENCE_ID = 10,			/* trusted_packet_sequence_id */
	PKT_TRACK_EVENT = 11,
	PKT_INTERNED_DATA = 12,
	PKT_SEQUENCE_FLAGS = 13,
	PKT_TRACK_DESCRIPTOR = 60,
	TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT = 5,
	PD_PID = 1, PD_NAME = 6,
	THD_PID = 1, THD_TID = 2, THD_NAME = 5,
	TE_CATEGORY_IID = 3, TE_DEBUG = 4, TE_TYPE = 9, TE_NAME_IID = 10, TE_TRACK = 11,
	TE_NAME = 23,
	DA_NAME_IID = 1, DA_UINT = 3, DA_INT = 4, DA_STRING = 6, DA_POINTER = 7, DA_NAME = 10,
	DA_ARRAY = 12,
	ID_CATEGORIES = 1, ID_EVENT_NAMES = 2, ID_ANNOTATION_NAMES = 3,	/* InternedData */
	IN_IID = 1, IN_NAME = 2,		/* EventCategory, EventName, DebugAnnotationName */
};

enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3 };
enum { SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2 };
#define SEQUENCE_ID	1

/* Track uuids: a kind in the high half, an id in the low one. */
#define UUID(kind, id)	(((uint64_t)(kind) << 32) | (uint32_t)(id))
enum { K_THREAD = 1, K_PROCESS = 2, K_LANE = 3, K_LOST = 4 };

struct pb {
	uint8_t *p;
	size_t len, cap;
	int oom;
};

static void pb_raw(struct pb *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;
		uint8_t *q;

		while (cap < b->len + n)
			cap *= 2;
		q = realloc(b->p, cap);
		if (!q) {
			b->oom = 1;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	uint8_t tmp[10];
	int n = 0;

	do {
		tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	pb_raw(b, tmp, n);
}

static void pb_tag(struct pb *b, int field, int wire)
{
	pb_varint(b, ((uint64_t)field << 3) | wire);
}

static void pb_uint(struct pb *b, int field, uint64_t v)
{
	pb_tag(b, field, 0);
	pb_varint(b, v);
}

static void pb_bytes(struct pb *b, int field, const void *p, size_t n)
{
	pb_tag(b, field, 2);
	pb_varint(b, n);
	pb_raw(b, p, n);
}

static void pb_str(struct pb *b, int field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

/*
 * A nested message: room for a 4-byte length is kept, and when the
 * message ends its length is written there, the content moved down to
 * the varint's real size, so nothing is built twice.
 */
static size_t pb_open(struct pb *b, int field)
{
	static const uint8_t room[4];

	pb_tag(b, field, 2);
	pb_raw(b, room, 4);
	return b->len;
}

static void pb_close(struct pb *b, size_t at)
{
	size_t n = b->len - at, v = n;
	uint8_t *len = b->p + at - 4;
	int k = 0;

	/* A packet is one event of a page: far below 4 varint bytes' 256 MiB. */
	if (b->oom || n >= (1u << 28)) {
		b->oom = 1;
		return;
	}
	do {
		len[k] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			len[k] |= 0x80;
		k++;
	} while (v);
	memmove(len + k, b->p + at, n);
	b->len -= 4 - k;
}

/* ---- the exporter --------------------------------------------------------- */

struct open_slice {
	int lane;
	uint64_t key;			/* integer key, or hash of a text key */
	char *text;			/* the text key, NULL for an integer */
};

struct pf {
	struct tdat *t;
	FILE *f;
	const char *path;
	struct xevent *xe;
	struct pb pkt;
	int first;
	/* Threads and CPUs whose tracks are written. */
	int *tids;
	int nr_tids, cap_tids;
	unsigned char *lost_track;
	/* Slices. */
	const struct export_opts *o;
	unsigned char *role;		/* per event index: 1 start, 2 end */
	int *key_field;			/* per event index: the key's field, -1 */
	int *depth;			/* unkeyed: open slices per thread (by tids index) */
	struct open_slice *open;
	int nr_open, cap_open;
	unsigned char *lane_busy, *lane_known;
	int nr_lanes;
	unsigned long long events, slices, unmatched_end, lost;
	uint64_t last_ts;
	/*
	 * Interning: an event's name has iid = its index + 1, its system the
	 * iid of the first event of that system, a field's name one iid per
	 * distinct name; each is written once, in the first packet using it.
	 */
	uint32_t *cat_iid;		/* per event */
	uint32_t **field_iid;		/* per event, per field */
	unsigned char *name_sent, *cat_sent, *field_sent;
	const char **field_names;	/* by iid - 1 */
	uint32_t nr_field_names;
};

static int pf_emit(struct pf *p)
{
	struct pb head = { 0 };
	int ret = 0;

	if (p->pkt.oom)
		return cli_fail("out of memory");
	pb_tag(&head, TRACE_PACKET, 2);
	pb_varint(&head, p->pkt.len);
	if (head.oom || fwrite(head.p, 1, head.len, p->f) != head.len ||
	    fwrite(p->pkt.p, 1, p->pkt.len, p->f) != p->pkt.len)
		ret = cli_fail("convert: %s: write failed: %s", p->path, strerror(errno));
	free(head.p);
	p->pkt.len = 0;
	return ret;
}

static void pkt_start(struct pf *p)
{
	p->pkt.len = 0;
	pb_uint(&p->pkt, PKT_SEQUENCE_ID, SEQUENCE_ID);
	if (p->first) {
		pb_uint(&p->pkt, PKT_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
		p->first = 0;
	}
}

static int thread_index(struct pf *p, int tid)
{
	int i;

	for (i = p->nr_tids - 1; i >= 0; i--)
		if (p->tids[i] == tid)
			return i;
	return -1;
}

/* The thread's track (and its process's), written before its first event. */
static int thread_track(struct pf *p, int tid)
{
	const char *name = xthread_name(p->t, tid);
	size_t td, sub;
	int i = thread_index(p, tid);

	if (i >= 0)
		return i;
	if (p->nr_tids == p->cap_tids) {
		int cap = p->cap_tids ? p->cap_tids * 2 : 16;
		int *n = realloc(p->tids, cap * sizeof(*n)), *d;

		if (!n)
			return -1;
		p->tids = n;
		d = realloc(p->depth, cap * sizeof(*d));
		if (!d)
			return -1;
		p->depth = d;
		p->cap_tids = cap;
	}
	p->tids[p->nr_tids] = tid;
	p->depth[p->nr_tids] = 0;
	pkt_start(p);
	td = pb_open(&p->pkt, PKT_TRACK_DESCRIPTOR);
	pb_uint(&p->pkt, TD_UUID, UUID(K_PROCESS, tid));
	sub = pb_open(&p->pkt, TD_PROCESS);
	pb_uint(&p->pkt, PD_PID, (uint32_t)tid);
	pb_str(&p->pkt, PD_NAME, name);
	pb_close(&p->pkt, sub);
	pb_close(&p->pkt, td);
	if (pf_emit(p))
		return -1;
	pkt_start(p);
	td = pb_open(&p->pkt, PKT_TRACK_DESCRIPTOR);
	pb_uint(&p->pkt, TD_UUID, UUID(K_THREAD, tid));
	pb_uint(&p->pkt, TD_PARENT, UUID(K_PROCESS, tid));
	sub = pb_open(&p->pkt, TD_THREAD);
	pb_uint(&p->pkt, THD_PID, (uint32_t)tid);
	pb_uint(&p->pkt, THD_TID, (uint32_t)tid);
	pb_str(&p->pkt, THD_NAME, name);
	pb_close(&p->pkt, sub);
	pb_close(&p->pkt, td);
	if (pf_emit(p))
		return -1;
	return p->nr_tids++;
}

static int named_track(struct pf *p, uint64_t uuid, const char *name)
{
	size_t td;

	pkt_start(p);
	td = pb_open(&p->pkt, PKT_TRACK_DESCRIPTOR);
	pb_uint(&p->pkt, TD_UUID, uuid);
	pb_str(&p->pkt, TD_NAME, name);
	pb_close(&p->pkt, td);
	return pf_emit(p);
}

/* ---- interning ------------------------------------------------------------- */

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 0x100000001b3ULL;
	return h;
}

/* Distinct field names through an open-addressed table of name iids. */
static int intern_fields(struct pf *p, size_t total)
{
	size_t size = 16, h;
	uint32_t *table;
	int e, k;

	while (size < 2 * total)
		size *= 2;
	table = calloc(size, sizeof(*table));
	p->field_names = calloc(total + 1, sizeof(*p->field_names));
	p->field_sent = calloc(total + 2, 1);
	if (!table || !p->field_names || !p->field_sent) {
		free(table);
		return -1;
	}
	for (e = 0; e < p->t->nr_events; e++) {
		const struct xevent *xe = &p->xe[e];

		for (k = 0; k < xe->nr_fields; k++) {
			const char *name = xe->fields[k].name;

			for (h = name_hash(name) & (size - 1); table[h]; h = (h + 1) & (size - 1))
				if (!strcmp(p->field_names[table[h] - 1], name))
					break;
			if (!table[h]) {
				p->field_names[p->nr_field_names++] = name;
				table[h] = p->nr_field_names;
			}
			p->field_iid[e][k] = table[h];
		}
	}
	free(table);
	return 0;
}

static int intern_setup(struct pf *p)
{
	int n = p->t->nr_events, e, j;
	size_t total = 0;

	p->cat_iid = calloc(n + 1, sizeof(*p->cat_iid));
	p->field_iid = calloc(n + 1, sizeof(*p->field_iid));
	p->name_sent = calloc(n + 1, 1);
	p->cat_sent = calloc(n + 2, 1);
	if (!p->cat_iid || !p->field_iid || !p->name_sent || !p->cat_sent)
		return cli_fail("out of memory");
	for (e = 0; e < n; e++) {
		for (j = 0; j < e && strcmp(p->t->events[j].system, p->t->events[e].system); j++)
			;
		p->cat_iid[e] = j < e ? p->cat_iid[j] : (uint32_t)e + 1;
		p->field_iid[e] = calloc(p->xe[e].nr_fields + 1, sizeof(**p->field_iid));
		if (!p->field_iid[e])
			return cli_fail("out of memory");
		total += p->xe[e].nr_fields;
	}
	if (intern_fields(p, total))
		return cli_fail("out of memory");
	return 0;
}

static void intern_free(struct pf *p)
{
	int e;

	for (e = 0; p->field_iid && e < p->t->nr_events; e++)
		free(p->field_iid[e]);
	free(p->field_iid);
	free(p->cat_iid);
	free(p->name_sent);
	free(p->cat_sent);
	free(p->field_sent);
	free(p->field_names);
}

static void interned_entry(struct pb *b, int field, uint64_t iid, const char *name)
{
	size_t at = pb_open(b, field);

	pb_uint(b, IN_IID, iid);
	pb_str(b, IN_NAME, name);
	pb_close(b, at);
}

/* What event IDX's packet refers to and was not written yet. */
static void intern_new(struct pf *p, int idx, int named)
{
	const struct xevent *xe = &p->xe[idx];
	uint32_t cat = p->cat_iid[idx];
	size_t at = 0;
	int k, open = 0;

	if (named && (!p->cat_sent[cat] || !p->name_sent[idx])) {
		at = pb_open(&p->pkt, PKT_INTERNED_DATA);
		open = 1;
		if (!p->cat_sent[cat])
			interned_entry(&p->pkt, ID_CATEGORIES, cat, xe->ev->system);
		if (!p->name_sent[idx])
			interned_entry(&p->pkt, ID_EVENT_NAMES, (uint64_t)idx + 1, xe->ev->name);
		p->cat_sent[cat] = p->name_sent[idx] = 1;
	}
	for (k = 0; k < xe->nr_fields; k++) {
		uint32_t iid = p->field_iid[idx][k];

		if (p->field_sent[iid])
			continue;
		if (!open) {
			at = pb_open(&p->pkt, PKT_INTERNED_DATA);
			open = 1;
		}
		interned_entry(&p->pkt, ID_ANNOTATION_NAMES, iid, p->field_names[iid - 1]);
		p->field_sent[iid] = 1;
	}
	if (open)
		pb_close(&p->pkt, at);
}

static void annotation_value(struct pb *b, const struct xfield *f, uint64_t v)
{
	if (f->is_pointer)
		pb_uint(b, DA_POINTER, v);
	else if (f->is_signed)
		pb_uint(b, DA_INT, v);	/* int64: two's complement as a varint */
	else
		pb_uint(b, DA_UINT, v);
}

static void annotation(struct pf *p, const struct xfield *f, uint32_t name_iid,
		       const struct tdat_record *r)
{
	struct pb *b = &p->pkt;
	const uint8_t *data;
	int n = xfield_span(p->t, f, r, &data), i;
	size_t da = pb_open(b, TE_DEBUG), el;

	pb_uint(b, DA_NAME_IID, name_iid);
	if (f->kind == XF_TEXT) {
		pb_bytes(b, DA_STRING, data, n);
	} else if (f->kind == XF_BYTES) {
		for (i = 0; i < n; i++) {
			el = pb_open(b, DA_ARRAY);
			pb_uint(b, DA_UINT, data[i]);
			pb_close(b, el);
		}
	} else if (!f->array) {
		annotation_value(b, f, xfield_int(p->t, f, data, 0));
	} else {
		for (i = 0; i < n; i++) {
			el = pb_open(b, DA_ARRAY);
			annotation_value(b, f, xfield_int(p->t, f, data, i));
			pb_close(b, el);
		}
	}
	pb_close(b, da);
}

static int track_event(struct pf *p, const struct tdat_record *r, int type, uint64_t track,
		       const struct xevent *xe)
{
	int idx = (int)(xe - p->xe), i;
	size_t te;

	pkt_start(p);
	pb_uint(&p->pkt, PKT_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	pb_uint(&p->pkt, PKT_TIMESTAMP, r->ts);
	intern_new(p, idx, type != TYPE_SLICE_END);
	te = pb_open(&p->pkt, PKT_TRACK_EVENT);
	pb_uint(&p->pkt, TE_TYPE, type);
	pb_uint(&p->pkt, TE_TRACK, track);
	if (type != TYPE_SLICE_END) {
		pb_uint(&p->pkt, TE_CATEGORY_IID, p->cat_iid[idx]);
		pb_uint(&p->pkt, TE_NAME_IID, (uint64_t)idx + 1);
	}
	for (i = 0; i < xe->nr_fields; i++)
		annotation(p, &xe->fields[i], p->field_iid[idx][i], r);
	pb_close(&p->pkt, te);
	return pf_emit(p);
}

/* MISSED events lost on CPU before TS: > 0 a count, -1 unknown. */
static int lost_event(struct pf *p, int cpu, uint64_t ts, long long missed)
{
	char name[64];
	size_t te, da;

	if (!p->lost_track[cpu]) {
		snprintf(name, sizeof(name), "CPU %d: lost events", cpu);
		if (named_track(p, UUID(K_LOST, cpu), name))
			return -1;
		p->lost_track[cpu] = 1;
	}
	p->lost += missed > 0 ? (unsigned long long)missed : 0;
	pkt_start(p);
	pb_uint(&p->pkt, PKT_TIMESTAMP, ts);
	te = pb_open(&p->pkt, PKT_TRACK_EVENT);
	pb_uint(&p->pkt, TE_TYPE, TYPE_INSTANT);
	pb_uint(&p->pkt, TE_TRACK, UUID(K_LOST, cpu));
	pb_str(&p->pkt, TE_NAME, "events lost");
	da = pb_open(&p->pkt, TE_DEBUG);
	pb_str(&p->pkt, DA_NAME, "count");
	if (missed > 0)
		pb_uint(&p->pkt, DA_UINT, (uint64_t)missed);
	else
		pb_str(&p->pkt, DA_STRING, "unknown");
	pb_close(&p->pkt, da);
	da = pb_open(&p->pkt, TE_DEBUG);
	pb_str(&p->pkt, DA_NAME, "cpu");
	pb_uint(&p->pkt, DA_UINT, (uint64_t)cpu);
	pb_close(&p->pkt, da);
	pb_close(&p->pkt, te);
	return pf_emit(p);
}

/* ---- slices ----------------------------------------------------------------- */

static uint64_t text_hash(const uint8_t *s, int n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	int i;

	for (i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ULL;
	return h;
}

/* The record's key: an integer, or a text (*text, *n set). */
static uint64_t slice_key(struct pf *p, const struct tdat_record *r, const struct xfield *f,
			  const uint8_t **text, int *n)
{
	const uint8_t *data;
	int cnt = xfield_span(p->t, f, r, &data);

	*text = NULL;
	if (f->kind == XF_INT && cnt > 0)
		return xfield_int(p->t, f, data, 0);
	*text = data;
	*n = cnt;
	return text_hash(data, cnt);
}

static int lane_get(struct pf *p)
{
	char name[300];
	int i;

	for (i = 0; i < p->nr_lanes && p->lane_busy[i]; i++)
		;
	if (i == p->nr_lanes) {
		unsigned char *b = realloc(p->lane_busy, i + 1), *k;

		if (!b)
			return -1;
		p->lane_busy = b;
		k = realloc(p->lane_known, i + 1);
		if (!k)
			return -1;
		p->lane_known = k;
		p->lane_known[i] = 0;
		p->nr_lanes++;
	}
	if (!p->lane_known[i]) {
		snprintf(name, sizeof(name), "%s %d", p->o->slice_start, i);
		if (named_track(p, UUID(K_LANE, i), name))
			return -1;
		p->lane_known[i] = 1;
	}
	p->lane_busy[i] = 1;
	return i;
}

static int keyed_start(struct pf *p, const struct tdat_record *r, const struct xevent *xe,
		       const struct xfield *kf)
{
	struct open_slice *s;
	const uint8_t *text;
	int n = 0, lane;
	uint64_t key = slice_key(p, r, kf, &text, &n);

	if (p->nr_open == p->cap_open) {
		int cap = p->cap_open ? p->cap_open * 2 : 16;

		s = realloc(p->open, cap * sizeof(*s));
		if (!s)
			return cli_fail("out of memory");
		p->open = s;
		p->cap_open = cap;
	}
	lane = lane_get(p);
	if (lane < 0)
		return cli_fail("out of memory");
	s = &p->open[p->nr_open++];
	s->lane = lane;
	s->key = key;
	s->text = text ? strndup((const char *)text, n) : NULL;
	if (text && !s->text)
		return cli_fail("out of memory");
	return track_event(p, r, TYPE_SLICE_BEGIN, UUID(K_LANE, lane), xe);
}

/* The oldest open slice with R's key ends; none: an instant, counted. */
static int keyed_end(struct pf *p, const struct tdat_record *r, const struct xevent *xe,
		     const struct xfield *kf, uint64_t thread)
{
	const uint8_t *text;
	int n = 0, i, lane;
	uint64_t key = slice_key(p, r, kf, &text, &n);

	for (i = 0; i < p->nr_open; i++) {
		struct open_slice *s = &p->open[i];

		if (s->key != key || !s->text != !text)
			continue;
		if (text && ((int)strlen(s->text) != n || memcmp(s->text, text, n)))
			continue;
		lane = s->lane;
		free(s->text);
		memmove(s, s + 1, (p->nr_open - i - 1) * sizeof(*s));
		p->nr_open--;
		p->lane_busy[lane] = 0;
		p->slices++;
		return track_event(p, r, TYPE_SLICE_END, UUID(K_LANE, lane), xe);
	}
	p->unmatched_end++;
	return track_event(p, r, TYPE_INSTANT, thread, xe);
}

static int put_record(struct pf *p, const struct tdat_record *r)
{
	int idx = (int)(r->event - p->t->events);
	const struct xevent *xe = &p->xe[idx];
	int tid = xrecord_tid(p->t, r), ti = thread_track(p, tid);
	uint64_t thread = UUID(K_THREAD, tid);
	const struct xfield *kf;

	if (ti < 0)
		return cli_fail("out of memory");
	p->events++;
	if (!p->role || !p->role[idx])
		return track_event(p, r, TYPE_INSTANT, thread, xe);
	kf = p->key_field[idx] >= 0 ? &xe->fields[p->key_field[idx]] : NULL;
	if (p->role[idx] == 1 && kf)
		return keyed_start(p, r, xe, kf);
	if (p->role[idx] == 2 && kf)
		return keyed_end(p, r, xe, kf, thread);
	if (p->role[idx] == 1) {
		p->depth[ti]++;
		return track_event(p, r, TYPE_SLICE_BEGIN, thread, xe);
	}
	if (p->depth[ti] > 0) {
		p->depth[ti]--;
		p->slices++;
		return track_event(p, r, TYPE_SLICE_END, thread, xe);
	}
	p->unmatched_end++;
	return track_event(p, r, TYPE_INSTANT, thread, xe);
}

static int find_key(const struct xevent *xe, const char *key)
{
	int i;

	for (i = 0; i < xe->nr_fields; i++)
		if (!strcmp(xe->fields[i].name, key))
			return i;
	return -1;
}

/* Mark the events --slice names; a name that matches nothing is an error. */
static int mark_role(struct pf *p, const char *spec, int role)
{
	struct tdat *t = p->t;
	int i, found = 0;

	for (i = 0; i < t->nr_events; i++) {
		if (!tdat_event_matches(&t->events[i], spec, strlen(spec)))
			continue;
		if (p->role[i] && p->role[i] != role)
			return cli_fail("convert --slice: %s:%s is both the start and the end",
					t->events[i].system, t->events[i].name);
		p->role[i] = role;
		p->key_field[i] = -1;
		found = 1;
		if (!p->o->slice_key)
			continue;
		p->key_field[i] = find_key(&p->xe[i], p->o->slice_key);
		if (p->key_field[i] < 0)
			return cli_fail("convert --slice: %s:%s has no field '%s'", t->events[i].system,
					t->events[i].name, p->o->slice_key);
		if (p->xe[i].fields[p->key_field[i]].kind == XF_BYTES)
			return cli_fail("convert --slice: field '%s' of %s:%s is neither a number nor text",
					p->o->slice_key, t->events[i].system, t->events[i].name);
	}
	if (!found)
		return cli_fail("convert --slice: no event in %s matches '%s'", t->path, spec);
	return 0;
}

static int setup_slices(struct pf *p)
{
	if (!p->o->slice_start)
		return 0;
	p->role = calloc(p->t->nr_events + 1, 1);
	p->key_field = calloc(p->t->nr_events + 1, sizeof(*p->key_field));
	if (!p->role || !p->key_field)
		return cli_fail("out of memory");
	if (mark_role(p, p->o->slice_start, 1) || mark_role(p, p->o->slice_end, 2))
		return EXIT_FAIL;
	return 0;
}

/* Losses no page carried (after the last one): the statistics tell. */
static int lost_after(struct pf *p, const struct tdat_merge *m)
{
	unsigned long long total;
	int cpu;

	for (cpu = 0; cpu < p->t->nr_cpus; cpu++) {
		total = tdat_cpu_lost(&m->cur[cpu], &p->t->cpus[cpu].stat);
		if (total > m->cur[cpu].lost &&
		    lost_event(p, cpu, p->last_ts, (long long)(total - m->cur[cpu].lost)))
			return -1;
	}
	return 0;
}

static int walk(struct pf *p)
{
	struct tdat_merge m;
	struct tdat_record r;
	int ret;

	if (tdat_merge_init(&m, p->t)) {
		tdat_merge_fini(&m);
		return cli_fail("%s: %s", p->t->path, p->t->err);
	}
	while ((ret = tdat_merge_next(&m, &r)) > 0) {
		p->last_ts = r.ts;
		if (r.missed && lost_event(p, r.cpu, r.ts, r.missed)) {
			ret = -2;
			break;
		}
		if (r.event->selected && put_record(p, &r)) {
			ret = -2;
			break;
		}
	}
	if (ret == -1)
		cli_fail("%s: %s", p->t->path, p->t->err);
	if (!ret && lost_after(p, &m))
		ret = -2;
	tdat_merge_fini(&m);
	return ret < 0 ? EXIT_FAIL : 0;
}

static void report_slices(struct pf *p)
{
	int i, depth = 0;

	for (i = 0; i < p->nr_tids; i++)
		depth += p->depth[i];
	if (p->nr_open + depth)
		fprintf(stderr, "slimtrace: convert: warning: %d %s event%s had no %s: %s slice%s never end%s\n",
			p->nr_open + depth, p->o->slice_start, p->nr_open + depth == 1 ? "" : "s",
			p->o->slice_end, p->nr_open + depth == 1 ? "its" : "their",
			p->nr_open + depth == 1 ? "" : "s", p->nr_open + depth == 1 ? "s" : "");
	if (p->unmatched_end)
		fprintf(stderr, "slimtrace: convert: warning: %llu %s event%s matched no %s: "
			"written as instants\n", p->unmatched_end, p->o->slice_end,
			p->unmatched_end == 1 ? "" : "s", p->o->slice_start);
}

int export_perfetto(struct tdat *t, const char *path, const struct export_opts *o)
{
	struct pf p = { .t = t, .path = path, .o = o, .first = 1 };
	int ret, i;

	p.xe = xevents_build(t);
	if (!p.xe)
		return cli_fail("%s: %s", t->path, t->err);
	p.lost_track = calloc(t->nr_cpus + 1, 1);
	ret = p.lost_track ? intern_setup(&p) : cli_fail("out of memory");
	if (!ret)
		ret = setup_slices(&p);
	if (!ret) {
		p.f = fopen(path, "wb");
		if (!p.f)
			ret = cli_fail("convert: %s: cannot create: %s", path, strerror(errno));
	}
	if (!ret)
		ret = walk(&p);
	if (p.f && fclose(p.f) && !ret)
		ret = cli_fail("convert: %s: write failed: %s", path, strerror(errno));
	if (!ret) {
		if (o->slice_start)
			report_slices(&p);
		printf("%s: Perfetto protobuf, %llu events on %d thread track%s, %llu slices, %llu lost\n",
		       path, p.events, p.nr_tids, p.nr_tids == 1 ? "" : "s", p.slices, p.lost);
	}
	for (i = 0; i < p.nr_open; i++)
		free(p.open[i].text);
	free(p.open);
	free(p.lane_busy);
	free(p.lane_known);
	free(p.tids);
	free(p.depth);
	free(p.role);
	free(p.key_field);
	free(p.lost_track);
	intern_free(&p);
	free(p.pkt.p);
	xevents_free(p.xe, t->nr_events);
	return ret;
}
