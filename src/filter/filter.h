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
