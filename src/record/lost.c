// SPDX-License-Identifier: MIT
/*
 * Lost events owed to later pages.  Overwritten events are counted on
 * the next page a ring hands out; events the writer refused (drop mode,
 * nested, too big) are in no page and happened before the page the
 * writer goes to next, so they go on the first page after the one being
 * filled when they were seen.  A table entry per ring (not per buffer:
 * a resized buffer gets a new ring).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "record/rec.h"

#define OWED_MAX	4

struct rec_ring {
	struct slim_rb *rb;
	uint64_t refused_seen;	/* refused events noticed so far */
	int nr_owed;
	struct {
		uint64_t count;	/* lost events noticed... */
		uint64_t after;	/* ...to go on the first page after this one */
	} owed[OWED_MAX];	/* oldest first */
};

static int grow(struct rec_lost *l, int in_signal)
{
	int cap = 2 * l->nr + 16;
	struct rec_ring *g = rec_grow(l->rings, (size_t)l->cap * sizeof(*g),
				      (size_t)cap * sizeof(*g), in_signal);

	if (!g)
		return -ENOMEM;
	l->rings = g;
	l->cap = cap;
	return 0;
}

int rec_lost_init(struct rec_lost *l)
{
	memset(l, 0, sizeof(*l));
	return grow(l, 0);
}

void rec_lost_free(struct rec_lost *l)
{
	rec_release(l->rings);
	memset(l, 0, sizeof(*l));
}

int rec_lost_ring(struct rec_lost *l, struct slim_rb *rb, int may_grow)
{
	int i;

	for (i = 0; i < l->nr; i++)
		if (l->rings[i].rb == rb)
			return i;
	if (l->nr >= l->cap && grow(l, !may_grow))
		return -1;
	memset(&l->rings[l->nr], 0, sizeof(l->rings[0]));
	l->rings[l->nr].rb = rb;
	return l->nr++;
}

/* When the list is full the newest entry grows: its events go on a page early. */
static void owe(struct rec_ring *g, uint64_t count, uint64_t after)
{
	int last = g->nr_owed - 1;

	if (last >= 0 && (g->nr_owed == OWED_MAX || g->owed[last].after == after)) {
		g->owed[last].count += count;
		return;
	}
	g->owed[g->nr_owed].count = count;
	g->owed[g->nr_owed].after = after;
	g->nr_owed++;
}

void rec_lost_note_refused(struct rec_lost *l, int ring, struct slim_rb *rb)
{
	struct rec_ring *g = &l->rings[ring];
	uint64_t cur = rec_src_write_seq(rb);
	uint64_t d = rec_src_refused(rb);

	if (d == g->refused_seen)
		return;
	owe(g, d - g->refused_seen, cur);
	g->refused_seen = d;
}

uint64_t rec_lost_take(struct rec_lost *l, int ring, uint64_t seq)
{
	struct rec_ring *g = &l->rings[ring];
	uint64_t n = 0;
	int i, k = 0;

	for (i = 0; i < g->nr_owed; i++) {
		if (seq > g->owed[i].after)
			n += g->owed[i].count;
		else
			g->owed[k++] = g->owed[i];
	}
	g->nr_owed = k;
	return n;
}

void rec_lost_owe(struct rec_lost *l, int ring, uint64_t count)
{
	owe(&l->rings[ring], count, 0);
}
