/* SPDX-License-Identifier: MIT */
/*
 * The ftrace event filter language (internal API).
 *
 * An expression is compiled once against a class's field table into an
 * immutable program that recording threads share read-only; matching a
 * record neither allocates nor locks. The language, its error messages and
 * caret positions are those of the kernel's trace_events_filter.c as seen
 * through tracefs (see docs/filter.md for the details and the few places
 * where slimtrace differs on purpose).
 */
#ifndef SLIM_FILTER_H
#define SLIM_FILTER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <slimtrace/compiler.h>
#include <slimtrace/field.h>

/* Internal: reached directly, not through the GOT, from the library. */
#pragma GCC visibility push(hidden)

struct slim_filter;

/* What kind of error a compile failed with; the kernel's FILT_ERR_* set. */
enum slim_filter_errcode {
	SLIM_FERR_NONE = 0,
	SLIM_FERR_INVALID_OP,		/* "Invalid operator" */
	SLIM_FERR_TOO_MANY_OPEN,	/* "Too many '('" */
	SLIM_FERR_TOO_MANY_CLOSE,	/* "Too few '('" */
	SLIM_FERR_MISSING_QUOTE,	/* "Missing matching quote" */
	SLIM_FERR_MISSING_BRACE_OPEN,	/* "Missing '{'" */
	SLIM_FERR_MISSING_BRACE_CLOSE,	/* "Missing '}'" */
	SLIM_FERR_OPERAND_TOO_LONG,	/* "Operand too long" */
	SLIM_FERR_EXPECT_STRING,	/* "Expecting string field" */
	SLIM_FERR_EXPECT_DIGIT,		/* "Expecting numeric field" */
	SLIM_FERR_ILLEGAL_FIELD_OP,	/* "Illegal operation for field type" */
	SLIM_FERR_FIELD_NOT_FOUND,	/* "Field not found" */
	SLIM_FERR_ILLEGAL_INTVAL,	/* "Illegal integer value" */
	SLIM_FERR_BAD_SUBSYS_FILTER,	/* "Couldn't find or set field in one of a subsystem's events" */
	SLIM_FERR_TOO_MANY_PREDS,	/* "Too many terms in predicate expression" */
	SLIM_FERR_INVALID_FILTER,	/* "Meaningless filter expression" */
	SLIM_FERR_INVALID_CPULIST,	/* "Invalid cpulist" */
	SLIM_FERR_INVALID_VALUE,	/* "Invalid value (did you forget quotes)?" */
	SLIM_FERR_NO_FUNCTION,		/* "Function not found" */
	SLIM_FERR_NO_FILTER,		/* "No filter found" */
	/*
	 * Refused without a message: the kernel's filter file then shows
	 * "Error: (0)" instead of a caret (an empty expression, or an
	 * operand that does not start with a field name).
	 */
	SLIM_FERR_BARE,
};

struct slim_filter_error {
	int pos;		/* the kernel's error position: the caret column of
				 * error_log (the filter file clamps it to the
				 * expression's length); 0 for SLIM_FERR_BARE */
	char msg[96];		/* the kernel's message text; "" for SLIM_FERR_BARE */
	int code;		/* enum slim_filter_errcode */
	int errnum;		/* the errno the kernel's write(2) of this expression
				 * fails with: EINVAL, EPERM, ENOENT or ESRCH */
};

/* What a filter can see besides the record. */
struct slim_filter_ctx {
	const char *comm;	/* COMM: the recording thread's name (NULL: "") */
	int cpu;		/* CPU: the CPU the event was recorded on */
};

/*
 * The kernel's filter files refuse a write of this many bytes or more
 * with EINVAL before parsing it (the old filter stays): the ctl layer's
 * check, since slim_filter_compile takes any length.
 */
#define SLIM_FILTER_WRITE_MAX	4096

/*
 * Compile @expr for records described by @t (NULL: common fields only).
 * Trailing white space is dropped, as the kernel's filter write does.
 * Names are looked up in @t, then the pseudo-fields (CPU, cpu, common_cpu,
 * COMM, comm), then slim_common_fields, which is the kernel's order.
 * Returns 0 and *out, -EINVAL with *err filled (err may be NULL), or
 * -ENOMEM. Writing "0" to clear a filter is the caller's business: the
 * kernel clears when the text, white space stripped at both ends, is "0".
 */
int slim_filter_compile(const struct slim_field_table *t, const char *expr,
			struct slim_filter **out, struct slim_filter_error *err);

/*
 * 1 keep, 0 discard. Reads only rec[0..len): a field or a __data_loc
 * string outside the record reads as empty (numbers: the predicate is
 * false). Safe from any number of threads at once.  ctx NULL: COMM ""
 * and CPU 0.  ctx &slim_filter_ctx_unknown: -1 when the filter reads
 * COMM or CPU, which the caller then finds (they cost to find).
 */
extern const struct slim_filter_ctx slim_filter_ctx_unknown;
int slim_filter_match(const struct slim_filter *f, const void *rec,
		      unsigned int len, const struct slim_filter_ctx *ctx);

/*
 * The form the record path runs.  At compile time a filter whose
 * predicates are all integer compares joined by only "&&" or only "||"
 * (a leaf may be negated) becomes a chain of literals, each a test that
 * the field, loaded at its own width and widened, lies in an interval
 * (modulo 2^64, so that "!=" and a negation are intervals too):
 *
 *	((x & mask) - lo) <= range
 *
 * which is every operator of every width and signedness in one formula
 * with no branch ("&": mask is the value and the interval [1, max]).
 * The chain's verdict is keep_if_all when every literal holds, the
 * other one when any fails; with no side effects, evaluating all of
 * them, in any order, gives the short-circuit's answer.  One predicate
 * with no mask (the common filter) is kept in the filter itself, turned
 * to hold exactly when the record is kept, and its load width is the
 * program kind: one dispatch, one load, one compare.
 */
enum slim_filter_load {
	SLIM_FLOAD_U8, SLIM_FLOAD_S8, SLIM_FLOAD_U16, SLIM_FLOAD_S16,
	SLIM_FLOAD_U32, SLIM_FLOAD_S32, SLIM_FLOAD_64,
};

enum slim_filter_prog {
	/* 0..SLIM_FLOAD_64: one literal with no mask, loaded that way (fast.one) */
	SLIM_FPROG_CHAIN = SLIM_FLOAD_64 + 1,	/* fast.nr literals (fast.lits) */
	SLIM_FPROG_GENERIC,			/* the predicate walk */
};

struct slim_filter_lit {
	uint64_t mask, lo, range;
	uint16_t offset;	/* of the field in the record */
	uint8_t load;		/* enum slim_filter_load */
};

/* The start of struct slim_filter (filter.c). */
struct slim_filter_fast {
	uint8_t prog;		/* enum slim_filter_prog */
	uint8_t keep_if_all;	/* chain: the verdict when every literal holds */
	uint32_t need;		/* chain: record bytes the fields lie within */
	uint32_t nr;		/* chain: literals */
	struct slim_filter_lit one;		/* that literal: it holds when kept */
	/*
	 * The chain's literals in groups: the S32 ones, the 64-bit, the
	 * U32, then the rest (other widths, and any with a mask), so that
	 * the usual widths run in loops of their own, with no dispatch
	 * per literal and no mask.
	 */
	const struct slim_filter_lit *lits, *end_s32, *end_64, *end_u32, *end;
};

/* A field, at its own width: a wider load would wait for the probe's stores. */
static inline __attribute__((always_inline)) uint64_t
slim_filter_load(unsigned int load, const unsigned char *at)
{
	uint32_t v4;
	uint16_t v2;
	uint64_t v8;

	switch (load) {
	case SLIM_FLOAD_U8:
		return *at;
	case SLIM_FLOAD_S8:
		return (uint64_t)(int64_t)(int8_t)*at;
	case SLIM_FLOAD_U16:
		memcpy(&v2, at, 2);
		return v2;
	case SLIM_FLOAD_S16:
		memcpy(&v2, at, 2);
		return (uint64_t)(int64_t)(int16_t)v2;
	case SLIM_FLOAD_U32:
		memcpy(&v4, at, 4);
		return v4;
	case SLIM_FLOAD_S32:
		memcpy(&v4, at, 4);
		return (uint64_t)(int64_t)(int32_t)v4;
	default:
		memcpy(&v8, at, 8);
		return v8;
	}
}

static inline __attribute__((always_inline)) int
slim_filter_lit_holds(const struct slim_filter_lit *l, uint64_t x)
{
	return ((x & l->mask) - l->lo) <= l->range;
}

/*
 * Every literal, none skipped: no branch on a result to mispredict, no
 * chain of loads (each literal's address is known up front).
 */
static inline __attribute__((always_inline)) int
slim_filter_chain_holds(const struct slim_filter_fast *ff, const unsigned char *rec)
{
	const struct slim_filter_lit *l;
	unsigned long miss = 0;

	/*
	 * A count of the literals that fail: cmp and adc, no setcc.  Each
	 * loop starts from the bound stored, not where the last one ended,
	 * which the compiler would work out after each.
	 */
	for (l = ff->lits; l < ff->end_s32; l++)
		miss += l->range < slim_filter_load(SLIM_FLOAD_S32, rec + l->offset) - l->lo;
	for (l = ff->end_s32; l < ff->end_64; l++)
		miss += l->range < slim_filter_load(SLIM_FLOAD_64, rec + l->offset) - l->lo;
	for (l = ff->end_64; l < ff->end_u32; l++)
		miss += l->range < slim_filter_load(SLIM_FLOAD_U32, rec + l->offset) - l->lo;
	for (l = ff->end_u32; l < ff->end; l++)
		miss += !slim_filter_lit_holds(l, slim_filter_load(l->load, rec + l->offset));
	return !miss;
}

/*
 * A one-predicate filter's verdict on a record, tested in the caller
 * (the record path's commit) for the usual widths: 1 keep, 0 discard,
 * -1 when only slim_filter_match() can say.  An if chain, not a switch:
 * the common widths come first and no jump table is loaded.
 */
static inline __attribute__((always_inline)) int
slim_filter_quick(const struct slim_filter *f, const void *rec, unsigned int len)
{
	const struct slim_filter_fast *ff = (const struct slim_filter_fast *)f;
	const unsigned char *at = (const unsigned char *)rec + ff->one.offset;
	unsigned int prog = ff->prog;
	uint64_t x;

	if (slim_unlikely(len < ff->need))
		return -1;
	if (prog == SLIM_FLOAD_S32)
		x = slim_filter_load(SLIM_FLOAD_S32, at);
	else if (prog == SLIM_FLOAD_64)
		x = slim_filter_load(SLIM_FLOAD_64, at);
	else if (prog == SLIM_FLOAD_U32)
		x = slim_filter_load(SLIM_FLOAD_U32, at);
	else
		return -1;
	return x - ff->one.lo <= ff->one.range;
}

/* The same for a chain of several: 1, 0, or -1 (slim_filter_match() can say). */
static inline __attribute__((always_inline)) int
slim_filter_quick_chain(const struct slim_filter *f, const void *rec, unsigned int len)
{
	const struct slim_filter_fast *ff = (const struct slim_filter_fast *)f;

	if (slim_unlikely(ff->prog != SLIM_FPROG_CHAIN || len < ff->need))
		return -1;
	return slim_filter_chain_holds(ff, rec) == ff->keep_if_all;
}

/*
 * slim_filter_match() by the predicate walk alone, the fast form not
 * looked at: the reference the tests hold the fast form to.
 */
int slim_filter_match_walk(const struct slim_filter *f, const void *rec,
			   unsigned int len, const struct slim_filter_ctx *ctx);

/* Does the filter read the COMM pseudo-field (the thread's name)? */
int slim_filter_needs_comm(const struct slim_filter *f);
/* Does the filter read the CPU pseudo-field?  (Finding the CPU costs.) */
int slim_filter_needs_cpu(const struct slim_filter *f);

/* The expression as stored: what the filter file shows once it is set. */
const char *slim_filter_text(const struct slim_filter *f);

/* Number of predicates (leaves) of the program. */
unsigned int slim_filter_nr_preds(const struct slim_filter *f);

void slim_filter_free(struct slim_filter *f);

/*
 * The exact bytes the kernel's `filter` file reads back after a refused
 * write of @expr: "<expr>\n<caret line>\nparse_error: <msg>\n\n", or
 * "<expr>\nError: (0)\n\n" for SLIM_FERR_BARE (<expr> without its trailing
 * white space). Returns the length the full text needs (like snprintf);
 * @buf gets as much as fits, NUL-terminated when @len > 0.
 */
int slim_filter_error_text(const char *expr, const struct slim_filter_error *err,
			   char *buf, size_t len);

/*
 * A system filter (events/<sys>/filter): the kernel compiles the
 * expression for every event of the system. An event it compiles for gets
 * it; every other event, whatever the error (not only a missing field),
 * gets its filter cleared (events pass unfiltered) and its filter file
 * shows this error: the expression, a caret at column 0 and
 * "Couldn't find or set field in one of a subsystem's events". The write
 * itself succeeds. This fills @err with that error.
 */
void slim_filter_subsys_error(struct slim_filter_error *err);

#pragma GCC visibility pop

#endif /* SLIM_FILTER_H */
