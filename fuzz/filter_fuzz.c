// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the filter language: the input is an expression,
 * compiled against a fixed class (the fields of the kernel differential
 * test's uprobe event, plus a char[16] and a char *). What compiles is run
 * over a few fixed records, among them one with a corrupt __data_loc and
 * one cut short; what does not gets its filter-file error text built.
 * Built and run by `make fuzz` (fuzz/fuzz.mk).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <slimtrace/field.h>

#include "filter/filter.h"

/* name, type, offset, size, signed */
#define FIELDS(X)						\
	X("__probe_ip", "unsigned long", 8, 8, 0)		\
	X("idx", "u32", 16, 4, 0)				\
	X("a", "s32", 20, 4, 1)					\
	X("b", "u32", 24, 4, 0)					\
	X("c", "s64", 28, 8, 1)					\
	X("d", "u64", 36, 8, 0)					\
	X("e", "s16", 44, 2, 1)					\
	X("f", "u8", 46, 1, 0)					\
	X("g", "s8", 47, 1, 1)					\
	X("h", "u16", 48, 2, 0)					\
	X("x", "u32", 50, 4, 0)					\
	X("s", "__data_loc char[]", 54, 4, 1)			\
	X("name", "char[16]", 58, 16, 0)			\
	X("ptr", "const char *", 74, 8, 0)

#define FIXED	82
#define NR_FIELDS 14

static char strings[512];
static struct slim_field fields[NR_FIELDS];
static const struct slim_field_table table = { strings, fields, NR_FIELDS, FIXED };

#define NR_RECS	5
static unsigned char recs[NR_RECS][FIXED + 32];
static unsigned int rec_len[NR_RECS];

static size_t add(size_t at, const char *s)
{
	strcpy(strings + at, s);
	return at + strlen(s) + 1;
}

static void setup(void)
{
	size_t at = 0;
	unsigned int i = 0, r;

#define X(n, t, o, sz, sg)						\
	fields[i].type = (uint16_t)at;					\
	at = add(at, t);						\
	fields[i].name = (uint16_t)at;					\
	at = add(at, n);						\
	fields[i].offset = o;						\
	fields[i].size = sz;						\
	fields[i].is_signed = sg;					\
	i++;
	FIELDS(X)
#undef X
	for (r = 0; r < NR_RECS; r++) {
		static const char *const str[NR_RECS] = {
			"", "nginx", "a*b?c[d]", "0123456789abcdef0123456789", "x",
		};
		struct slim_trace_entry ent = { 7, 0xff, 0xff, 1000 + (int)r };
		size_t n = strlen(str[r]) + 1;
		uint32_t loc = (uint32_t)(n << 16) | FIXED;

		memcpy(recs[r], &ent, sizeof(ent));
		memset(recs[r] + 8, r == 1 ? 0xff : (int)(r * 37), FIXED - 8);
		memcpy(recs[r] + 58, "bash\0\0\0\0\0\0\0\0\0\0\0", 16);
		memcpy(recs[r] + FIXED, str[r], n);
		rec_len[r] = (unsigned int)(FIXED + n);
		if (r == 3)	/* corrupt: the string runs past the record */
			loc = (200u << 16) | FIXED;
		memcpy(recs[r] + 54, &loc, 4);
	}
	rec_len[4] = 40;	/* cut short in the middle of the fields */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct slim_filter *f = NULL;
	struct slim_filter_error err;
	struct slim_filter_ctx ctx = { "slimf_target", 1 };
	char *expr, text[256];
	unsigned int r;

	if (!ready) {
		setup();
		ready = 1;
	}
	expr = malloc(size + 1);
	if (!expr)
		return 0;
	memcpy(expr, data, size);
	expr[size] = '\0';
	if (slim_filter_compile(&table, expr, &f, &err) == 0) {
		for (r = 0; r < NR_RECS; r++) {
			/* The fast form must say what the predicate walk says. */
			if (slim_filter_match(f, recs[r], rec_len[r], &ctx) !=
			    slim_filter_match_walk(f, recs[r], rec_len[r], &ctx))
				abort();
			slim_filter_match(f, recs[r], rec_len[r], NULL);
		}
		if (strcmp(slim_filter_text(f), "") == 0)
			abort();	/* an empty expression never compiles */
		slim_filter_free(f);
	} else {
		int n = slim_filter_error_text(expr, &err, text, sizeof(text));

		if (n < 0 || err.code == SLIM_FERR_NONE)
			abort();
	}
	free(expr);
	return 0;
}
