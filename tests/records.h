/* SPDX-License-Identifier: MIT */
/*
 * Test helper: copy every record now in the buffers, oldest first per
 * buffer, without consuming them (what the `trace` file reads).
 */
#ifndef SLIM_TESTS_RECORDS_H
#define SLIM_TESTS_RECORDS_H

#include <stdlib.h>
#include <string.h>
#include "buffers/buffer.h"
#include "ring/ring_buffer.h"

struct test_record {
	unsigned char data[512];
	unsigned int len;
	uint64_t ts;
	int buffer;		/* which of the set's buffers, in its order */
};

/* Fills recs (at most max) from bs; returns how many records there are. */
static inline int test_records_of(struct slim_bufset *bs, struct test_record *recs, int max)
{
	struct slim_buffer *b;
	struct slim_rb_iter it;
	const void *p;
	unsigned int len;
	uint64_t ts;
	int n = 0, k = 0;

	for (b = slim_bufset_first(bs); b; b = slim_buffer_next(b), k++) {
		if (slim_buffer_iter_start(b, &it))
			continue;
		while (slim_rb_iter_next(&it, &p, &len, &ts) == 1) {
			if (n < max && len <= sizeof(recs[n].data)) {
				memcpy(recs[n].data, p, len);
				recs[n].len = len;
				recs[n].ts = ts;
				recs[n].buffer = k;
			}
			n++;
		}
		slim_rb_iter_end(&it);
	}
	return n;
}

/* The same of the top level's buffers. */
static inline int test_records(struct test_record *recs, int max)
{
	return test_records_of(&slim_bufset_top, recs, max);
}

static inline int test_record_type(const struct test_record *r)
{
	const struct slim_trace_entry *e = (const void *)r->data;

	return e->type;
}

#endif
