// SPDX-License-Identifier: MIT
/*
 * The ftrace event filter language: parser, compiler and evaluator.
 *
 * The language, the messages and where the caret goes are the kernel's
 * (trace_events_filter.c, as tracefs shows it); docs/filter.md describes
 * them and tests/test_filter_kernel.c holds us to the kernel's verdicts.
 *
 * An expression compiles to a flat array of predicates in source order.
 * Each predicate carries the index to go to when it is true and when it is
 * false; index n means "keep", n + 1 "discard". Targets only point
 * forward, so matching is one pass with no stack.  Integer compares
 * joined by only "&&" or only "||" also get a fast form (filter.h), which
 * the record path runs; the walk is for everything else, and for a
 * record too short for a field.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <slimtrace/compiler.h>
#include <slimtrace/field.h>

#include "core/symbols.h"
#include "filter/filter.h"

/* The kernel's limits on an operand: string values and number text. */
#define MAX_STR_VAL	256
#define MAX_NUM_TEXT	24
#define TASK_COMM_LEN	16

/* Operators, in the order the kernel tries them ("<=" before "<"). */
enum {
	OP_GLOB, OP_NE, OP_EQ, OP_LE, OP_LT, OP_GE, OP_GT, OP_BAND, NR_OPS
};

static const char *const op_text[NR_OPS] = {
	"~", "!=", "==", "<=", "<", ">=", ">", "&",
};

enum pred_kind {
	PK_FALSE,	/* never true, like the kernel's NOP predicate */
	PK_NUM,		/* integer field against a value */
	PK_NUM_CPUS,	/* integer field against a CPU set */
	PK_CPU,		/* the CPU pseudo-field against a value */
	PK_CPU_CPUS,	/* the CPU pseudo-field against a CPU set */
	PK_FUNC,	/* field.function: an address inside a symbol */
	PK_CPUMASK,	/* a __data_loc cpumask_t field against a CPU set */
	PK_STR_STATIC,	/* char name[N]; the string kinds come last */
	PK_STR_DYN,	/* __data_loc char[] */
	PK_STR_RDYN,	/* __rel_loc char[] */
	PK_STR_COMM,	/* the COMM pseudo-field */
};

/*
 * An integer predicate needs three facts about field x and value v:
 * x == v, x < v (in the field's signedness) and (x & v) != 0. They make
 * a 3-bit index into the operator's truth table, built at compile time,
 * so every operator runs the same code with no branch.
 */
#define T_EQ	1
#define T_LT	2
#define T_BAND	4

/* The kernel's string match kinds, chosen when the pattern is compiled. */
enum { SM_FULL, SM_FRONT, SM_MIDDLE, SM_END, SM_GLOB };

/*
 * One predicate. An integer field is loaded at its own width (an odd
 * width byte by byte, cut with width_mask) and sign-extended with
 * sign_bit.
 */
struct pred {
	/* what the integer fast path reads, first */
	uint8_t kind;		/* enum pred_kind */
	uint8_t truth;		/* integers: result for each T_* combination */
	uint16_t offset;	/* of the field in the record */
	uint32_t end;		/* offset + field bytes: the record must reach it */
	uint64_t val;		/* value, as the field's type sees it */
	uint64_t bias;		/* 1 << 63 for a signed order: makes it unsigned */
	uint64_t width_mask;	/* the field's bytes of an 8-byte load */
	uint64_t sign_bit;	/* top bit of a signed field narrower than 8 */
	uint32_t on_true, on_false;
	/* the rest */
	uint8_t op;
	uint8_t match;		/* SM_*: strings */
	uint8_t invert;		/* strings: "!=" or a "!pattern" glob */
	uint32_t size;		/* field bytes: a static string's length */
	uint32_t plen;		/* pattern length */
	uint32_t nbits;		/* CPU set size */
	uint64_t val2;		/* function: end address */
	const char *pat;	/* pattern, NUL-terminated */
	const uint64_t *mask;	/* CPU set */
};

struct slim_filter {
	struct slim_filter_fast fast;	/* first: the record path reads it inline */
	unsigned int nr;
	int integers_only;	/* every predicate is PK_NUM: the fast loop */
	int needs_cpu;		/* reads the CPU pseudo-field */
	int needs_comm;		/* reads the COMM pseudo-field */
	struct pred *preds;
	char *text;
	char *patterns;
	uint64_t *masks;
};

/* ---------------------------------------------------------------------
 * Character classes. The kernel's ctype is Latin-1: 0xa0 is white space
 * and most of 0xc0-0xff are letters. Field names and white space must
 * split where the kernel splits them, so the C locale's ctype won't do.
 */
static int k_isspace(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

static int k_isdigit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int k_isalnum(unsigned char c)
{
	if (k_isdigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return 1;
	return c >= 0xc0 && c != 0xd7 && c != 0xf7;
}

static int k_hexval(unsigned char c)
{
	if (k_isdigit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int is_name_char(unsigned char c)
{
	return k_isalnum(c) || c == '_';
}

/* ---------------------------------------------------------------------
 * Numbers, as the kernel's kstrtoull()/kstrtoll() read them with base 0:
 * "0x" (followed by a hex digit) means hex, a leading 0 octal, the whole
 * text must be used and the value must fit.
 */
static int parse_u64(const char *s, size_t n, uint64_t *out)
{
	unsigned int base = 10;
	uint64_t v = 0;
	size_t i = 0;
	int overflow = 0;

	if (n && s[0] == '0') {
		base = 8;
		if (n > 2 && (s[1] == 'x' || s[1] == 'X') && k_hexval(s[2]) >= 0) {
			base = 16;
			i = 2;
		}
	}
	if (i == n)
		return -EINVAL;
	for (; i < n; i++) {
		int d = k_hexval(s[i]);

		if (d < 0 || (unsigned int)d >= base)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			overflow = 1;
		v = v * base + d;
	}
	if (overflow)
		return -ERANGE;
	*out = v;
	return 0;
}

static int parse_s64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v;
	int ret;

	if (n && s[0] == '-') {
		ret = parse_u64(s + 1, n - 1, &v);
		if (ret)
			return ret;
		if (v > (uint64_t)INT64_MAX + 1)
			return -ERANGE;
		*out = 0 - v;
		return 0;
	}
	ret = parse_u64(s, n, &v);
	if (ret)
		return ret;
	if (v > (uint64_t)INT64_MAX)
		return -ERANGE;
	*out = v;
	return 0;
}

/* ---------------------------------------------------------------------
 * The compiler's state. Parse errors record the kernel's message,
 * position and errno, and unwind with -EINVAL.
 */
enum node_type { N_LEAF, N_AND, N_OR, N_NOT };

struct node {
	uint8_t type;
	uint32_t left, right;	/* children; a leaf: its predicate index */
	uint32_t first;		/* index of the leftmost predicate below */
};

/* One level of parentheses while parsing. */
struct frame {
	int64_t or_node;	/* the "||" terms so far, or -1 */
	int64_t and_node;	/* the current "&&" term, or -1 */
	uint8_t negate;		/* a '!' stood before the '(' */
};

struct compiler {
	const struct slim_field_table *t;
	const char *s;		/* the expression, trailing space dropped */
	size_t len;
	struct slim_filter_error *err;

	struct pred *preds;
	size_t nr_preds, cap_preds;
	struct node *nodes;
	size_t nr_nodes, cap_nodes;
	struct frame *frames;
	size_t nr_frames, cap_frames;
	char *pat;		/* all patterns, each NUL-terminated */
	size_t pat_len, pat_cap;
	uint64_t *mask;		/* all CPU sets */
	size_t mask_len, mask_cap;
};

static const char *const err_msg[] = {
	[SLIM_FERR_NONE] = "No error",
	[SLIM_FERR_INVALID_OP] = "Invalid operator",
	[SLIM_FERR_TOO_MANY_OPEN] = "Too many '('",
	[SLIM_FERR_TOO_MANY_CLOSE] = "Too few '('",
	[SLIM_FERR_MISSING_QUOTE] = "Missing matching quote",
	[SLIM_FERR_MISSING_BRACE_OPEN] = "Missing '{'",
	[SLIM_FERR_MISSING_BRACE_CLOSE] = "Missing '}'",
	[SLIM_FERR_OPERAND_TOO_LONG] = "Operand too long",
	[SLIM_FERR_EXPECT_STRING] = "Expecting string field",
	[SLIM_FERR_EXPECT_DIGIT] = "Expecting numeric field",
	[SLIM_FERR_ILLEGAL_FIELD_OP] = "Illegal operation for field type",
	[SLIM_FERR_FIELD_NOT_FOUND] = "Field not found",
	[SLIM_FERR_ILLEGAL_INTVAL] = "Illegal integer value",
	[SLIM_FERR_BAD_SUBSYS_FILTER] =
		"Couldn't find or set field in one of a subsystem's events",
	[SLIM_FERR_TOO_MANY_PREDS] = "Too many terms in predicate expression",
	[SLIM_FERR_INVALID_FILTER] = "Meaningless filter expression",
	[SLIM_FERR_INVALID_CPULIST] = "Invalid cpulist",
	[SLIM_FERR_INVALID_VALUE] = "Invalid value (did you forget quotes)?",
	[SLIM_FERR_NO_FUNCTION] = "Function not found",
	[SLIM_FERR_NO_FILTER] = "No filter found",
	[SLIM_FERR_BARE] = "",
};

static void set_error(struct slim_filter_error *err, int code, int pos, int errnum)
{
	if (!err)
		return;
	err->code = code;
	err->pos = pos;
	err->errnum = errnum;
	snprintf(err->msg, sizeof(err->msg), "%s", err_msg[code]);
}

static int fail(struct compiler *c, int code, size_t pos, int errnum)
{
	set_error(c->err, code, pos > INT_MAX ? INT_MAX : (int)pos, errnum);
	return -EINVAL;
}

/*
 * Errors inside a predicate are reported one past the offending index
 * (the kernel hands its predicate parser the position after the
 * predicate's first character), all with EINVAL.
 */
static int fail_at(struct compiler *c, int code, size_t idx)
{
	return fail(c, code, idx + 1, EINVAL);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 8;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		ncap *= 2;
	}
	np = realloc(*p, ncap * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

/* ---------------------------------------------------------------------
 * First pass, as the kernel does before parsing: quotes must close and
 * parentheses balance (each error with its own errno), and an expression
 * of nothing but white space and parentheses is refused without a message.
 */
static int find_bad_open(const char *s, size_t len, int open)
{
	int level = open;
	char quote = 0;
	size_t i;

	/* Backwards from the end, skipping quoted text; index 0 is not looked at. */
	for (i = len ? len - 1 : 0; i > 0; i--) {
		if (quote) {
			if (s[i] == quote)
				quote = 0;
			continue;
		}
		if (s[i] == '(') {
			if (level == open)
				return (int)i;
			level--;
		} else if (s[i] == ')') {
			level++;
		} else if (s[i] == '\'' || s[i] == '"') {
			quote = s[i];
		}
	}
	return 0;
}

static int prescan(struct compiler *c)
{
	const char *s = c->s;
	size_t i, last_quote = 0;
	int open = 1, in_term = 0, terms = 0;
	char quote = 0;

	for (i = 0; s[i]; i++) {
		if (k_isspace(s[i]))
			continue;
		if (quote) {
			if (s[i] == quote)
				quote = 0;
			continue;
		}
		switch (s[i]) {
		case '\'':
		case '"':
			quote = s[i];
			last_quote = i;
			break;
		case '&':
		case '|':
			if (s[i + 1] != s[i])
				break;
			in_term = 0;
			continue;
		case '(':
			in_term = 0;
			open++;
			continue;
		case ')':
			in_term = 0;
			if (open == 1)
				return fail(c, SLIM_FERR_TOO_MANY_CLOSE, i, EPERM);
			open--;
			continue;
		}
		if (!in_term) {
			terms++;
			in_term = 1;
		}
	}
	if (quote)
		return fail(c, SLIM_FERR_MISSING_QUOTE, last_quote, ESRCH);
	if (open != 1)
		return fail(c, SLIM_FERR_TOO_MANY_OPEN,
			    find_bad_open(s, i, open), ENOENT);
	if (!terms)
		return fail(c, SLIM_FERR_BARE, 0, EINVAL);
	return 0;
}

/* ---------------------------------------------------------------------
 * Fields.
 */

/* The type of the STACKTRACE pseudo-field, beyond enum slim_filter_type. */
#define FILTER_STACKTRACE	100

struct field_ref {
	int ftype;		
	unsigned int offset, size;
	int is_signed;
};

static int name_is(const char *name, const char *s, size_t n)
{
	return strncmp(name, s, n) == 0 && name[n] == '\0';
}

static int find_in_table(const struct slim_field_table *t, const char *s,
			 size_t n, struct field_ref *ref)
{
	unsigned int i;

	if (!t)
		return 0;
	for (i = 0; i < t->nr_fields; i++) {
		const struct slim_field *f = &t->fields[i];

		if (!name_is(slim_field_name(t, f), s, n))
			continue;
		ref->ftype = slim_field_filter_type(t, f);
		ref->offset = f->offset;
		ref->size = f->size;
		ref->is_signed = f->is_signed;
		return 1;
	}
	return 0;
}

/*
 * The kernel's generic fields. They have no size: CPU is a signed int,
 * COMM a string, and STACKTRACE (there for histograms) takes unsigned
 * numbers and never matches.
 */
static int find_pseudo(const char *s, size_t n, struct field_ref *ref)
{
	memset(ref, 0, sizeof(*ref));
	if (name_is("CPU", s, n) || name_is("cpu", s, n) ||
	    name_is("common_cpu", s, n)) {
		ref->ftype = SLIM_FILTER_CPU;
		ref->is_signed = 1;
		return 1;
	}
	if (name_is("COMM", s, n) || name_is("comm", s, n)) {
		ref->ftype = SLIM_FILTER_COMM;
		return 1;
	}
	if (name_is("STACKTRACE", s, n) || name_is("stacktrace", s, n)) {
		ref->ftype = FILTER_STACKTRACE;
		return 1;
	}
	return 0;
}

static int find_field(struct compiler *c, const char *s, size_t n,
		      struct field_ref *ref)
{
	return find_in_table(c->t, s, n, ref) || find_pseudo(s, n, ref) ||
	       find_in_table(&slim_common_fields, s, n, ref);
}

static int is_string_type(enum slim_filter_type t)
{
	return t == SLIM_FILTER_STATIC_STRING || t == SLIM_FILTER_DYN_STRING ||
	       t == SLIM_FILTER_RDYN_STRING || t == SLIM_FILTER_PTR_STRING ||
	       t == SLIM_FILTER_COMM;
}

/* ---------------------------------------------------------------------
 * Building predicates.
 */
static struct pred *new_pred(struct compiler *c)
{
	struct pred *p;

	if (grow((void **)&c->preds, &c->cap_preds, c->nr_preds + 1, sizeof(*p)))
		return NULL;
	p = &c->preds[c->nr_preds];
	memset(p, 0, sizeof(*p));
	return p;
}

/* Patterns and CPU sets are kept as offsets until the buffers stop moving. */
static int add_pattern(struct compiler *c, const char *s, size_t n, size_t *off)
{
	if (grow((void **)&c->pat, &c->pat_cap, c->pat_len + n + 1, 1))
		return -ENOMEM;
	memcpy(c->pat + c->pat_len, s, n);
	c->pat[c->pat_len + n] = '\0';
	*off = c->pat_len;
	c->pat_len += n + 1;
	return 0;
}

/* How a field of @size bytes is cut out of an 8-byte load and widened. */
static void set_width(struct pred *p, unsigned int offset, unsigned int size,
		      int is_signed)
{
	p->offset = offset;
	p->size = size;
	p->end = offset + size;
	p->width_mask = size >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << (size * 8)) - 1;
	p->sign_bit = is_signed && size < 8 ? (uint64_t)1 << (size * 8 - 1) : 0;
}

/* A value as the field's own type sees it: truncated, then widened back. */
static uint64_t as_field_type(const struct pred *p, uint64_t v)
{
	v &= p->width_mask;
	return (v ^ p->sign_bit) - p->sign_bit;
}

static int op_result(int op, int eq, int lt, int band)
{
	switch (op) {
	case OP_EQ:
		return eq;
	case OP_NE:
		return !eq;
	case OP_LT:
		return lt;
	case OP_LE:
		return lt || eq;
	case OP_GT:
		return !lt && !eq;
	case OP_GE:
		return !lt;
	default:	/* OP_BAND */
		return band;
	}
}

static uint8_t truth_table(int op)
{
	uint8_t t = 0;
	int i;

	for (i = 0; i < 8; i++) {
		if (op_result(op, !!(i & T_EQ), !!(i & T_LT), !!(i & T_BAND)))
			t |= 1u << i;
	}
	return t;
}

static int is_int_size(unsigned int size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

static void set_num_pred(struct pred *p, const struct field_ref *f, int op,
			 uint64_t val, int is_signed)
{
	if (!is_int_size(f->size)) {
		p->kind = PK_FALSE;
		return;
	}
	p->kind = PK_NUM;
	p->op = op;
	p->truth = truth_table(op);
	set_width(p, f->offset, f->size, is_signed);
	p->val = as_field_type(p, val);
	/* Flipping the sign bit of both sides turns signed order into unsigned. */
	p->bias = is_signed ? (uint64_t)1 << 63 : 0;
}

/*
 * A glob (~) pattern, as the kernel compiles it: a leading '!' inverts;
 * "foo*", "*foo" and "*foo*" become prefix, suffix and substring tests;
 * anything else with '*', '?', '[' or '\' is a full glob; a pattern that
 * starts with a digit is always compared whole.
 */
static void compile_glob(const char **pat, size_t *plen, struct pred *p)
{
	const char *s = *pat;
	size_t n = *plen, i;
	int type = SM_FULL;

	p->invert = 0;
	if (n && s[0] == '!') {
		p->invert = 1;
		s++;
		n--;
	}
	*pat = s;
	*plen = n;
	p->match = SM_FULL;
	if (n && k_isdigit(s[0]))
		return;
	for (i = 0; i < n; i++) {
		if (s[i] == '*') {
			if (i == 0) {
				type = SM_END;
			} else if (i == n - 1) {
				type = type == SM_END ? SM_MIDDLE : SM_FRONT;
				n = i;
				break;
			} else {
				p->match = SM_GLOB;
				return;
			}
		} else if (s[i] == '[' || s[i] == '?' || s[i] == '\\') {
			p->match = SM_GLOB;
			return;
		}
	}
	if (n && s[0] == '*') {
		s++;
		n--;
	}
	*pat = s;
	*plen = n;
	p->match = type;
}

static int string_pred(struct compiler *c, const struct field_ref *f, int op,
		       size_t q_open, size_t q_close, struct pred *p)
{
	const char *pat = c->s + q_open + 1;
	size_t plen = q_close - q_open - 1, off;

	p->match = SM_FULL;
	p->invert = op == OP_NE;
	if (op == OP_GLOB)
		compile_glob(&pat, &plen, p);
	if (add_pattern(c, pat, plen, &off))
		return -ENOMEM;
	p->pat = (const char *)(uintptr_t)off;
	p->plen = plen;
	p->op = op;
	p->offset = f->offset;
	switch (f->ftype) {
	case SLIM_FILTER_COMM:
		p->kind = PK_STR_COMM;
		break;
	case SLIM_FILTER_STATIC_STRING:
		p->kind = PK_STR_STATIC;
		p->size = f->size;
		p->end = f->offset + f->size;
		break;
	case SLIM_FILTER_DYN_STRING:
		p->kind = PK_STR_DYN;
		p->end = f->offset + 4;
		break;
	case SLIM_FILTER_RDYN_STRING:
		p->kind = PK_STR_RDYN;
		p->end = f->offset + 4;
		break;
	default:
		/*
		 * A char * points outside the record: slimtrace never follows
		 * it, so the compare is false, as the kernel's is when the
		 * pointer can't be read.
		 */
		p->kind = PK_FALSE;
		break;
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * CPU lists, as the kernel's cpulist_parse() reads them: groups separated
 * by commas or white space, each "A", "A-B" or "A-B:used/group", with "N"
 * for the last CPU and "all" for every CPU.
 */
struct cpu_range {
	unsigned int start, end, used, group;
};

static int cl_end_of_str(char ch)
{
	return ch == '\0' || ch == '\n';
}

static int cl_end_of_region(char ch)
{
	return k_isspace(ch) || ch == ',' || cl_end_of_str(ch);
}

static const char *cl_number(const char *s, unsigned int *out, unsigned int last)
{
	uint64_t v = 0;
	size_t n = 0;

	if (*s == 'N') {
		*out = last;
		return s + 1;
	}
	while (k_isdigit(s[n])) {
		if (v <= UINT32_MAX)
			v = v * 10 + (s[n] - '0');
		n++;
	}
	if (!n || v > UINT32_MAX)
		return NULL;
	*out = (unsigned int)v;
	return s + n;
}

/* One group; returns where the next one may start, "" at the end, NULL if bad. */
static const char *cl_region(const char *s, struct cpu_range *r, unsigned int last)
{
	if (!strncasecmp(s, "all", 3)) {
		r->start = 0;
		r->end = last;
		s += 3;
	} else {
		s = cl_number(s, &r->start, last);
		if (!s)
			return NULL;
		if (cl_end_of_region(*s)) {
			r->end = r->start;
			goto whole;
		}
		if (*s != '-')
			return NULL;
		s = cl_number(s + 1, &r->end, last);
		if (!s)
			return NULL;
	}
	if (cl_end_of_region(*s))
		goto whole;
	if (*s != ':')
		return NULL;
	s = cl_number(s + 1, &r->used, last);
	if (!s || *s != '/')
		return NULL;
	return cl_number(s + 1, &r->group, last);
whole:
	r->used = r->end + 1;
	r->group = r->end + 1;
	return s;
}

static int parse_cpulist(const char *s, uint64_t *mask, unsigned int nbits)
{
	struct cpu_range r;
	unsigned int cpu, k;

	for (;;) {
		while (k_isspace(*s) || *s == ',')
			s++;
		if (cl_end_of_str(*s))
			return 0;
		s = cl_region(s, &r, nbits - 1);
		if (!s)
			return -EINVAL;
		if (r.start > r.end || r.group == 0 || r.used > r.group)
			return -EINVAL;
		if (r.end >= nbits)
			return -ERANGE;
		for (cpu = r.start; cpu <= r.end; cpu += r.group) {
			for (k = 0; k < r.used && cpu + k <= r.end; k++)
				mask[(cpu + k) / 64] |= (uint64_t)1 << ((cpu + k) % 64);
			if (r.end - cpu < r.group)
				break;
		}
	}
}

/* The kernel sizes CPU sets by the CPUs the machine may have. */
static unsigned int possible_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 && n < 65536 ? (unsigned int)n : 1;
}

static int cpus_pred(struct compiler *c, const struct field_ref *f, int op,
		     size_t *pos, struct pred *p)
{
	const char *s = c->s;
	size_t i = *pos + 4, start, words, off, k;
	unsigned int nbits = possible_cpus(), weight = 0, first = 0;
	uint64_t *mask;
	char *list;
	int ret;

	if (f->ftype != SLIM_FILTER_CPU && f->ftype != SLIM_FILTER_OTHER &&
	    f->ftype != SLIM_FILTER_CPUMASK)
		return fail_at(c, SLIM_FERR_ILLEGAL_FIELD_OP, *pos);
	if (op != OP_EQ && op != OP_NE && op != OP_BAND)
		return fail_at(c, SLIM_FERR_ILLEGAL_FIELD_OP, *pos);
	if (s[i++] != '{')
		return fail_at(c, SLIM_FERR_MISSING_BRACE_OPEN, i);
	start = i;
	while (s[i] && s[i] != '}')
		i++;
	if (s[i] != '}')
		return fail_at(c, SLIM_FERR_MISSING_BRACE_CLOSE, i);
	if (i == start)
		return fail_at(c, SLIM_FERR_INVALID_CPULIST, i);

	words = (nbits + 63) / 64;
	off = c->mask_len;
	if (grow((void **)&c->mask, &c->mask_cap, off + words, sizeof(uint64_t)))
		return -ENOMEM;
	mask = c->mask + off;
	memset(mask, 0, words * sizeof(uint64_t));
	list = strndup(s + start, i - start);
	if (!list)
		return -ENOMEM;
	ret = parse_cpulist(list, mask, nbits);
	free(list);
	if (ret)
		return fail_at(c, SLIM_FERR_INVALID_CPULIST, i);
	*pos = i + 1;

	for (k = nbits; k-- > 0;) {
		if (mask[k / 64] & ((uint64_t)1 << (k % 64))) {
			weight++;
			first = (unsigned int)k;
		}
	}
	/* One CPU is a plain value; "&" then means "==" (a cpumask stays a set). */
	if (weight == 1 && f->ftype != SLIM_FILTER_CPUMASK) {
		if (op == OP_BAND)
			op = OP_EQ;
		if (f->ftype == SLIM_FILTER_CPU) {
			p->kind = PK_CPU;
			p->op = op;
			p->val = first;
		} else {
			set_num_pred(p, f, op, first, 0);
		}
		return 0;
	}
	c->mask_len += words;
	p->op = op;
	p->nbits = nbits;
	p->mask = (const uint64_t *)(uintptr_t)off;
	if (f->ftype == SLIM_FILTER_CPU) {
		p->kind = PK_CPU_CPUS;
	} else if (f->ftype == SLIM_FILTER_CPUMASK) {
		p->kind = PK_CPUMASK;
		p->offset = (uint16_t)f->offset;
		p->end = f->offset + 4;
	} else if (is_int_size(f->size)) {
		p->kind = PK_NUM_CPUS;
		set_width(p, f->offset, f->size, 0);
	} else {
		p->kind = PK_FALSE;
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * field.function: the value names a symbol (or an address inside one) and
 * the predicate tests that the field holds an address within it. The
 * kernel asks kallsyms; here the dynamic linker answers.
 */
static int symbol_range(const char *name, uint64_t addr, uint64_t *start,
			uint64_t *end)
{
	struct slim_symbol sym;
	int ret = name ? slim_symbol_named(name, &sym) :
			 slim_symbol_at((uintptr_t)addr, &sym);

	if (ret)
		return ret;
	*start = sym.start;
	*end = sym.start + sym.size;
	return 0;
}

static int function_pred(struct compiler *c, const struct field_ref *f, int op,
			 size_t *pos, struct pred *p)
{
	const char *s = c->s;
	size_t i = *pos, start = *pos;
	uint64_t addr = 0, lo, hi;
	char *name = NULL;
	int ret;

	if (f->size != sizeof(long))
		return fail_at(c, SLIM_FERR_ILLEGAL_FIELD_OP, i);
	if (op != OP_EQ && op != OP_NE)
		return fail_at(c, SLIM_FERR_INVALID_OP, i);
	if (k_isdigit(s[i])) {
		while (k_isalnum(s[i]))
			i++;
		if (i - start >= MAX_NUM_TEXT)
			return fail_at(c, SLIM_FERR_OPERAND_TOO_LONG, i);
		if (parse_u64(s + start, i - start, &addr))
			return fail_at(c, SLIM_FERR_INVALID_VALUE, i);
	} else {
		while (s[i] && !k_isspace(s[i]))
			i++;
		name = strndup(s + start, i - start);
		if (!name)
			return -ENOMEM;
	}
	ret = symbol_range(name, addr, &lo, &hi);
	free(name);
	if (ret)
		return fail_at(c, SLIM_FERR_NO_FUNCTION, i);
	p->kind = PK_FUNC;
	p->op = op;
	set_width(p, f->offset, 8, 0);
	p->val = lo;
	p->val2 = hi;
	*pos = i;
	return 0;
}

/* ---------------------------------------------------------------------
 * One predicate: "field op value", starting at a non-space character.
 * Returns the index after it, or a negative errno.
 */
static int match_op(const char *s)
{
	int op;

	for (op = 0; op < NR_OPS; op++) {
		if (!strncmp(s, op_text[op], strlen(op_text[op])))
			return op;
	}
	return -1;
}

static int number_pred(struct compiler *c, const struct field_ref *f, int op,
		       size_t *pos, struct pred *p)
{
	const char *s = c->s;
	size_t i = *pos, start = *pos;
	uint64_t val;
	int ret;

	if (is_string_type(f->ftype))
		return fail_at(c, SLIM_FERR_EXPECT_STRING, i);
	if (op == OP_GLOB)
		return fail_at(c, SLIM_FERR_ILLEGAL_FIELD_OP, i);
	if (s[i] == '-')
		i++;
	while (k_isalnum(s[i]))
		i++;
	if (i - start >= MAX_NUM_TEXT)
		return fail_at(c, SLIM_FERR_OPERAND_TOO_LONG, i);
	if (f->is_signed)
		ret = parse_s64(s + start, i - start, &val);
	else
		ret = parse_u64(s + start, i - start, &val);
	if (ret)
		return fail_at(c, SLIM_FERR_ILLEGAL_INTVAL, start);
	*pos = i;
	if (f->ftype == SLIM_FILTER_CPU) {
		p->kind = PK_CPU;
		p->op = op;
		p->val = val;
		return 0;
	}
	set_num_pred(p, f, op, val, f->is_signed);
	return 0;
}

static int quoted_pred(struct compiler *c, const struct field_ref *f, int op,
		       size_t *pos, struct pred *p)
{
	const char *s = c->s;
	size_t i = *pos, open = *pos;
	int ret;

	if (op != OP_EQ && op != OP_NE && op != OP_GLOB)
		return fail_at(c, SLIM_FERR_ILLEGAL_FIELD_OP, i);
	if (!is_string_type(f->ftype))
		return fail_at(c, SLIM_FERR_EXPECT_DIGIT, i);
	for (i++; s[i] && s[i] != s[open]; i++)
		;
	if (!s[i])
		return fail_at(c, SLIM_FERR_MISSING_QUOTE, i);
	if (i - open - 1 >= MAX_STR_VAL)
		return fail_at(c, SLIM_FERR_OPERAND_TOO_LONG, i);
	ret = string_pred(c, f, op, open, i, p);
	if (ret)
		return ret;
	*pos = i + 1;
	return 0;
}

static int parse_pred(struct compiler *c, size_t *pos)
{
	const char *s = c->s;
	size_t i = *pos, name = *pos;
	struct field_ref f;
	int op, function = 0, ret;
	struct pred *p;

	while (is_name_char(s[i]))
		i++;
	if (i == name)
		return fail(c, SLIM_FERR_BARE, 0, EPERM);
	if (!find_field(c, s + name, i - name, &f))
		return fail_at(c, SLIM_FERR_FIELD_NOT_FOUND, i);
	/* Every string of a user-space tracer is a user string. */
	if (!strncmp(s + i, ".ustring", 8))
		i += 8;
	if (!strncmp(s + i, ".function", 9)) {
		function = 1;
		i += 9;
	}
	while (k_isspace(s[i]))
		i++;
	op = match_op(s + i);
	if (op < 0)
		return fail_at(c, SLIM_FERR_INVALID_OP, i);
	i += strlen(op_text[op]);
	while (k_isspace(s[i]))
		i++;

	p = new_pred(c);
	if (!p)
		return -ENOMEM;
	if (function)
		ret = function_pred(c, &f, op, &i, p);
	else if (!strncmp(s + i, "CPUS", 4))
		ret = cpus_pred(c, &f, op, &i, p);
	else if (s[i] == '"' || s[i] == '\'')
		ret = quoted_pred(c, &f, op, &i, p);
	else if (k_isdigit(s[i]) || s[i] == '-')
		ret = number_pred(c, &f, op, &i, p);
	else
		ret = fail_at(c, SLIM_FERR_INVALID_VALUE, i);
	if (ret)
		return ret;
	c->nr_preds++;
	*pos = i;
	return 0;
}

/* ---------------------------------------------------------------------
 * Expressions: "&&" binds tighter than "||", '!' negates the predicate
 * or parenthesized group after it. Parsed without recursion, so that no
 * input can exhaust the stack: each '(' pushes a frame.
 */
static int64_t new_node(struct compiler *c, int type, uint32_t left, uint32_t right)
{
	struct node *n;

	if (grow((void **)&c->nodes, &c->cap_nodes, c->nr_nodes + 1, sizeof(*n)))
		return -1;
	n = &c->nodes[c->nr_nodes];
	n->type = type;
	n->left = left;
	n->right = right;
	n->first = type == N_LEAF ? left : c->nodes[left].first;
	return (int64_t)c->nr_nodes++;
}

static int push_frame(struct compiler *c, int negate)
{
	struct frame *fr;

	if (grow((void **)&c->frames, &c->cap_frames, c->nr_frames + 1, sizeof(*fr)))
		return -ENOMEM;
	fr = &c->frames[c->nr_frames++];
	fr->or_node = -1;
	fr->and_node = -1;
	fr->negate = negate;
	return 0;
}

/* A finished operand joins the current "&&" term of the innermost frame. */
static int add_operand(struct compiler *c, int64_t node, int negate)
{
	struct frame *fr = &c->frames[c->nr_frames - 1];

	if (negate)
		node = new_node(c, N_NOT, (uint32_t)node, 0);
	if (node >= 0 && fr->and_node >= 0)
		node = new_node(c, N_AND, (uint32_t)fr->and_node, (uint32_t)node);
	if (node < 0)
		return -ENOMEM;
	fr->and_node = node;
	return 0;
}

static int end_or_term(struct compiler *c)
{
	struct frame *fr = &c->frames[c->nr_frames - 1];
	int64_t node = fr->and_node;

	if (fr->or_node >= 0)
		node = new_node(c, N_OR, (uint32_t)fr->or_node, (uint32_t)node);
	if (node < 0)
		return -ENOMEM;
	fr->or_node = node;
	fr->and_node = -1;
	return 0;
}

/* Close the innermost frame; its expression is an operand of the outer one. */
static int close_frame(struct compiler *c)
{
	struct frame fr;

	if (end_or_term(c))
		return -ENOMEM;
	fr = c->frames[--c->nr_frames];
	return add_operand(c, fr.or_node, fr.negate);
}

/* What may follow an operand: ')', "&&", "||" or the end. */
static int after_operand(struct compiler *c, size_t *pos, int *done)
{
	const char *s = c->s;
	size_t i = *pos;
	int ret;

	for (;;) {
		while (k_isspace(s[i]))
			i++;
		if (s[i] == ')') {
			/* The first pass balanced the parentheses already. */
			if (c->nr_frames == 1)
				return fail(c, SLIM_FERR_TOO_MANY_CLOSE, i + 1, EPERM);
			ret = close_frame(c);
			if (ret)
				return ret;
			i++;
			continue;
		}
		if (!s[i]) {
			if (c->nr_frames > 1)
				return fail(c, SLIM_FERR_TOO_MANY_OPEN, i + 1, EPERM);
			*done = 1;
			break;
		}
		if ((s[i] == '&' || s[i] == '|') && s[i + 1] == s[i]) {
			if (s[i] == '|' && end_or_term(c))
				return -ENOMEM;
			i += 2;
			break;
		}
		return fail(c, SLIM_FERR_TOO_MANY_PREDS, i, EPERM);
	}
	*pos = i;
	return 0;
}

static int parse_expr(struct compiler *c)
{
	const char *s = c->s;
	size_t i = 0;
	int negate = 0, done = 0, ret;
	int64_t leaf;

	if (push_frame(c, 0))
		return -ENOMEM;
	while (!done) {
		while (k_isspace(s[i]))
			i++;
		if (!s[i]) {
			if (!c->nr_preds)
				return fail(c, SLIM_FERR_NO_FILTER, i, EINVAL);
			return fail(c, SLIM_FERR_INVALID_FILTER, i, EINVAL);
		}
		if (s[i] == '(') {
			if (push_frame(c, negate))
				return -ENOMEM;
			negate = 0;
			i++;
			continue;
		}
		if (s[i] == '!' && s[i + 1] != '=' && s[i + 1] != '~') {
			negate = !negate;
			i++;
			continue;
		}
		ret = parse_pred(c, &i);
		if (ret)
			return ret;
		leaf = new_node(c, N_LEAF, (uint32_t)(c->nr_preds - 1), 0);
		if (leaf < 0 || add_operand(c, leaf, negate))
			return -ENOMEM;
		negate = 0;
		ret = after_operand(c, &i, &done);
		if (ret)
			return ret;
	}
	return end_or_term(c);
}

/*
 * Give every predicate its true and false targets: for "a && b", a true
 * "a" goes on to b's first predicate and a false one to the whole term's
 * false target; "||" the other way round; '!' swaps the targets. The tree
 * is walked with an explicit stack; order does not matter, since each
 * node's targets are known when it is pushed.
 */
struct gen_item {
	uint32_t node, t, f;
};

static int gen_targets(struct compiler *c, uint32_t root)
{
	struct gen_item *stack;
	size_t top = 0;
	uint32_t n = (uint32_t)c->nr_preds;

	stack = malloc((c->nr_nodes + 1) * sizeof(*stack));
	if (!stack)
		return -ENOMEM;
	stack[top++] = (struct gen_item){ root, n, n + 1 };
	while (top) {
		struct gen_item it = stack[--top];
		const struct node *nd = &c->nodes[it.node];
		uint32_t right_first = nd->type == N_AND || nd->type == N_OR ?
				       c->nodes[nd->right].first : 0;

		switch (nd->type) {
		case N_LEAF:
			c->preds[nd->left].on_true = it.t;
			c->preds[nd->left].on_false = it.f;
			break;
		case N_NOT:
			stack[top++] = (struct gen_item){ nd->left, it.f, it.t };
			break;
		case N_AND:
			stack[top++] = (struct gen_item){ nd->right, it.t, it.f };
			stack[top++] = (struct gen_item){ nd->left, right_first, it.f };
			break;
		case N_OR:
			stack[top++] = (struct gen_item){ nd->right, it.t, it.f };
			stack[top++] = (struct gen_item){ nd->left, it.t, right_first };
			break;
		}
	}
	free(stack);
	return 0;
}

/* ---------------------------------------------------------------------
 * The fast form (filter.h): a chain of interval literals.
 */

/* An interval that holds for no value: the masked field is 0, not in [1, max]. */
static void lit_never(struct slim_filter_lit *l)
{
	l->mask = 0;
	l->lo = 1;
	l->range = UINT64_MAX - 1;
}

/*
 * Predicate p as an interval of the widened field: its order is the
 * field's (signed: from INT64_MIN up), the interval wraps modulo 2^64.
 */
static void lit_of_pred(const struct pred *p, struct slim_filter_lit *l)
{
	uint64_t min = p->bias, max = p->bias - 1, v = p->val;
	int is_signed = p->sign_bit || p->bias;

	l->offset = p->offset;
	if (p->size == 8)
		l->load = SLIM_FLOAD_64;
	else if (p->size == 4)
		l->load = is_signed ? SLIM_FLOAD_S32 : SLIM_FLOAD_U32;
	else if (p->size == 2)
		l->load = is_signed ? SLIM_FLOAD_S16 : SLIM_FLOAD_U16;
	else
		l->load = is_signed ? SLIM_FLOAD_S8 : SLIM_FLOAD_U8;
	l->mask = UINT64_MAX;
	switch (p->op) {
	case OP_EQ:		/* [v, v] */
		l->lo = v;
		l->range = 0;
		break;
	case OP_NE:		/* [v + 1, v - 1]: all but v */
		l->lo = v + 1;
		l->range = UINT64_MAX - 1;
		break;
	case OP_LT:		/* [min, v - 1] */
		if (v == min) {
			lit_never(l);
			break;
		}
		l->lo = min;
		l->range = v - 1 - min;
		break;
	case OP_LE:		/* [min, v] */
		l->lo = min;
		l->range = v - min;
		break;
	case OP_GT:		/* [v + 1, max] */
		if (v == max) {
			lit_never(l);
			break;
		}
		l->lo = v + 1;
		l->range = max - v - 1;
		break;
	case OP_GE:		/* [v, max] */
		l->lo = v;
		l->range = max - v;
		break;
	default:		/* OP_BAND: x & v in [1, max] */
		l->mask = v;
		l->lo = 1;
		l->range = UINT64_MAX - 1;
		break;
	}
}

/* The literal that holds where l does not: the interval's complement. */
static void lit_negate(struct slim_filter_lit *l)
{
	if (l->range == UINT64_MAX) {
		lit_never(l);
		return;
	}
	l->lo += l->range + 1;
	l->range = ~l->range - 1;
}

/*
 * Is the predicate array a chain: each predicate but the last either
 * goes on to the next or ends with one same verdict, and the last ends
 * with either verdict?  Then *cont[i] says which of its results goes on
 * (the last's: which gives the other verdict) and *keep_if_all the
 * verdict when every predicate goes on.
 */
static int chain_shape(const struct pred *preds, uint32_t n, uint8_t *cont,
		       uint8_t *keep_if_all)
{
	uint32_t discard = n + 1, exit = discard, i;
	int have_exit = 0;

	for (i = 0; i + 1 < n; i++) {
		uint32_t t = preds[i].on_true, f = preds[i].on_false, out;

		if (t == i + 1 && f >= n) {
			cont[i] = 1;
			out = f;
		} else if (f == i + 1 && t >= n) {
			cont[i] = 0;
			out = t;
		} else {
			return 0;
		}
		if (have_exit && out != exit)
			return 0;
		exit = out;
		have_exit = 1;
	}
	if (preds[i].on_true < n || preds[i].on_false < n ||
	    preds[i].on_true == preds[i].on_false)
		return 0;
	cont[i] = preds[i].on_true != exit;
	*keep_if_all = exit == discard;
	return 1;
}

/*
 * The group a literal runs in: S32, 64, U32, and the rest, which the
 * other widths and every literal with a mask ("&", never) join, so that
 * the width loops need not apply one.
 */
static int lit_rank(const struct slim_filter_lit *l)
{
	if (l->mask != UINT64_MAX)
		return 3;
	switch (l->load) {
	case SLIM_FLOAD_S32:
		return 0;
	case SLIM_FLOAD_64:
		return 1;
	case SLIM_FLOAD_U32:
		return 2;
	default:
		return 3;
	}
}

/* By group, then in the record's order (qsort is not stable). */
static int lit_order(const void *a, const void *b)
{
	const struct slim_filter_lit *x = a, *y = b;

	if (lit_rank(x) != lit_rank(y))
		return lit_rank(x) - lit_rank(y);
	return (x->offset > y->offset) - (x->offset < y->offset);
}

/* The fast form of f (its preds and targets final); ENOMEM only. */
static int build_fast(struct slim_filter *f)
{
	struct slim_filter_fast *ff = &f->fast;
	struct slim_filter_lit *lits;
	uint8_t *cont;
	uint32_t i;

	ff->prog = SLIM_FPROG_GENERIC;
	if (!f->integers_only || !f->nr)
		return 0;
	cont = malloc(f->nr);
	if (!cont)
		return -ENOMEM;
	if (!chain_shape(f->preds, f->nr, cont, &ff->keep_if_all)) {
		free(cont);
		return 0;
	}
	lits = calloc(f->nr, sizeof(*lits));
	if (!lits) {
		free(cont);
		return -ENOMEM;
	}
	for (i = 0; i < f->nr; i++) {
		const struct pred *p = &f->preds[i];

		lit_of_pred(p, &lits[i]);
		if (!cont[i])
			lit_negate(&lits[i]);
		if (p->end > ff->need)
			ff->need = p->end;
	}
	free(cont);
	qsort(lits, f->nr, sizeof(*lits), lit_order);
	ff->nr = f->nr;
	ff->lits = lits;
	ff->end = lits + f->nr;
	for (i = 0; i < f->nr && lit_rank(&lits[i]) == 0; i++)
		;
	ff->end_s32 = lits + i;
	for (; i < f->nr && lit_rank(&lits[i]) == 1; i++)
		;
	ff->end_64 = lits + i;
	for (; i < f->nr && lit_rank(&lits[i]) == 2; i++)
		;
	ff->end_u32 = lits + i;
	/*
	 * One literal without a mask is the program "load, compare", the
	 * literal turned round so that it holds exactly when the record is
	 * kept.  One with a mask is a chain of one.
	 */
	ff->prog = SLIM_FPROG_CHAIN;
	if (f->nr == 1 && lits[0].mask == UINT64_MAX) {
		ff->one = lits[0];
		if (!ff->keep_if_all)
			lit_negate(&ff->one);
		ff->prog = ff->one.load;
	}
	return 0;
}

static void compiler_release(struct compiler *c)
{
	free(c->preds);
	free(c->nodes);
	free(c->frames);
	free(c->pat);
	free(c->mask);
}

static int finish(struct compiler *c, struct slim_filter **out)
{
	struct slim_filter *f;
	size_t i;

	if (gen_targets(c, (uint32_t)c->frames[0].or_node))
		return -ENOMEM;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->text = strndup(c->s, c->len);
	if (!f->text) {
		free(f);
		return -ENOMEM;
	}
	for (i = 0; i < c->nr_preds; i++) {
		struct pred *p = &c->preds[i];

		if (p->kind >= PK_STR_STATIC)
			p->pat = c->pat + (uintptr_t)p->pat;
		if (p->kind == PK_NUM_CPUS || p->kind == PK_CPU_CPUS || p->kind == PK_CPUMASK)
			p->mask = c->mask + (uintptr_t)p->mask;
	}
	f->nr = (unsigned int)c->nr_preds;
	f->preds = c->preds;
	f->integers_only = 1;
	for (i = 0; i < c->nr_preds; i++) {
		f->integers_only &= c->preds[i].kind == PK_NUM;
		f->needs_cpu |= c->preds[i].kind == PK_CPU ||
				c->preds[i].kind == PK_CPU_CPUS;
		f->needs_comm |= c->preds[i].kind == PK_STR_COMM;
	}
	f->patterns = c->pat;
	f->masks = c->mask;
	c->preds = NULL;
	c->pat = NULL;
	c->mask = NULL;
	if (build_fast(f)) {
		slim_filter_free(f);
		return -ENOMEM;
	}
	*out = f;
	return 0;
}

static size_t stripped_len(const char *s)
{
	size_t n = strlen(s);

	while (n && k_isspace(s[n - 1]))
		n--;
	return n;
}

int slim_filter_compile(const struct slim_field_table *t, const char *expr,
			struct slim_filter **out, struct slim_filter_error *err)
{
	struct compiler c;
	char *copy;
	int ret;

	*out = NULL;
	if (err)
		set_error(err, SLIM_FERR_NONE, 0, 0);
	if (!expr)
		expr = "";
	memset(&c, 0, sizeof(c));
	c.len = stripped_len(expr);
	copy = strndup(expr, c.len);
	if (!copy)
		return -ENOMEM;
	c.t = t;
	c.s = copy;
	c.err = err;
	ret = prescan(&c);
	if (!ret)
		ret = parse_expr(&c);
	if (!ret)
		ret = finish(&c, out);
	if (ret == -ENOMEM && err)
		set_error(err, SLIM_FERR_NONE, 0, ENOMEM);
	compiler_release(&c);
	free(copy);
	return ret;
}

void slim_filter_free(struct slim_filter *f)
{
	if (!f)
		return;
	free((void *)f->fast.lits);
	free(f->preds);
	free(f->patterns);
	free(f->masks);
	free(f->text);
	free(f);
}

int slim_filter_needs_comm(const struct slim_filter *f)
{
	return f->needs_comm;
}

int slim_filter_needs_cpu(const struct slim_filter *f)
{
	return f->needs_cpu;
}

const char *slim_filter_text(const struct slim_filter *f)
{
	return f ? f->text : NULL;
}

unsigned int slim_filter_nr_preds(const struct slim_filter *f)
{
	return f ? f->nr : 0;
}

int slim_filter_error_text(const char *expr, const struct slim_filter_error *err,
			   char *buf, size_t len)
{
	size_t n = stripped_len(expr ? expr : "");
	size_t pos;

	if (!expr)
		expr = "";
	if (!err || err->code == SLIM_FERR_BARE || err->code == SLIM_FERR_NONE)
		return snprintf(buf, len, "%.*s\nError: (0)\n\n", (int)n, expr);
	pos = err->pos < 0 ? 0 : (size_t)err->pos;
	if (pos > n)
		pos = n;
	return snprintf(buf, len, "%.*s\n%*s^\nparse_error: %s\n\n", (int)n,
			expr, (int)pos, "", err->msg);
}

void slim_filter_subsys_error(struct slim_filter_error *err)
{
	set_error(err, SLIM_FERR_BAD_SUBSYS_FILTER, 0, EINVAL);
}

/* ---------------------------------------------------------------------
 * Matching.
 */

/* Bytes of a string; reads past n see NUL, so nothing outside is touched. */
struct sview {
	const unsigned char *p;
	unsigned int n;
};

static inline unsigned char sv_at(const struct sview *v, unsigned int k)
{
	return k < v->n ? v->p[k] : 0;
}

/* strncmp(str, pat, len) == 0, or strcmp when len is 0. */
static int sm_full(const struct sview *v, const struct pred *p, unsigned int len)
{
	unsigned int k;

	for (k = 0; !len || k < len; k++) {
		unsigned char a = sv_at(v, k);
		unsigned char b = k < p->plen ? (unsigned char)p->pat[k] : 0;

		if (a != b)
			return 0;
		if (!a)
			return 1;
	}
	return 1;
}

static int sm_front(const struct sview *v, const struct pred *p, unsigned int len)
{
	unsigned int k;

	if (len && len < p->plen)
		return 0;
	for (k = 0; k < p->plen; k++) {
		if (sv_at(v, k) != (unsigned char)p->pat[k])
			return 0;
	}
	return 1;
}

/* With a length the kernel searches the raw bytes, NULs included. */
static int sm_middle(const struct sview *v, const struct pred *p, unsigned int len)
{
	unsigned int k;

	if (!len) {
		len = 0;
		while (sv_at(v, len))
			len++;
	}
	if (len < p->plen)
		return 0;
	for (k = 0; k + p->plen <= len; k++) {
		unsigned int j;

		for (j = 0; j < p->plen; j++) {
			if (sv_at(v, k + j) != (unsigned char)p->pat[j])
				break;
		}
		if (j == p->plen)
			return 1;
	}
	return 0;
}

/* The kernel takes the last byte of the length to be the NUL. */
static int sm_end(const struct sview *v, const struct pred *p, unsigned int len)
{
	unsigned int k, from;

	if (!len || len - 1 < p->plen)
		return 0;
	from = len - 1 - p->plen;
	for (k = 0; k < p->plen; k++) {
		if (sv_at(v, from + k) != (unsigned char)p->pat[k])
			return 0;
	}
	return 1;
}

/*
 * A character class at pat (just after '['): sets *end past the closing
 * ']' and returns whether ch is in it, or -1 if the class never closes
 * (then the '[' is an ordinary character).
 */
static int glob_class(const unsigned char *pat, unsigned char ch,
		      const unsigned char **end)
{
	int inverted = *pat == '!', match = 0;
	const unsigned char *q = pat + inverted;
	unsigned char lo = *q++;

	do {
		unsigned char hi = lo;

		if (!lo)
			return -1;
		if (q[0] == '-' && q[1] != ']') {
			hi = q[1];
			if (!hi)
				return -1;
			q += 2;
		}
		if (lo <= ch && ch <= hi)
			match = 1;
		lo = *q++;
	} while (lo != ']');
	*end = q;
	return match != inverted;
}

/*
 * The kernel's glob: '*' any run, '?' any one character, "[a-z]" and
 * "[!a-z]" classes (']' first in a class is literal), '\' quotes the next
 * character. Backtracks to the last '*' only, which is enough for globs.
 */
static int sm_glob(const struct sview *v, const unsigned char *pat)
{
	const unsigned char *star_pat = NULL;
	unsigned int k = 0, star_k = 0;

	for (;;) {
		unsigned char ch = sv_at(v, k++);
		unsigned char d = *pat++;
		const unsigned char *end;
		int in;

		switch (d) {
		case '?':
			if (!ch)
				return 0;
			continue;
		case '*':
			if (!*pat)
				return 1;
			star_pat = pat;
			star_k = --k;
			continue;
		case '[':
			if (!ch)	/* a class never matches the end */
				return 0;
			in = glob_class(pat, ch, &end);
			if (in < 0)
				goto literal;
			if (in) {
				pat = end;
				continue;
			}
			goto backtrack;
		case '\\':
			d = *pat++;
			/* fall through */
		default:
literal:
			if (ch == d) {
				if (!d)
					return 1;
				continue;
			}
backtrack:
			if (!ch || !star_pat)
				return 0;
			pat = star_pat;
			k = ++star_k;
			continue;
		}
	}
}

static int str_match(const struct pred *p, const struct sview *v, unsigned int len)
{
	int r;

	switch (p->match) {
	case SM_FULL:
		r = sm_full(v, p, len);
		break;
	case SM_FRONT:
		r = sm_front(v, p, len);
		break;
	case SM_MIDDLE:
		r = sm_middle(v, p, len);
		break;
	case SM_END:
		r = sm_end(v, p, len);
		break;
	default:
		r = sm_glob(v, (const unsigned char *)p->pat);
		break;
	}
	return r ^ p->invert;
}

static const unsigned char empty_string[1];

static int eval_string(const struct pred *p, const unsigned char *rec,
		       unsigned int len, const struct slim_filter_ctx *ctx)
{
	unsigned char comm[TASK_COMM_LEN];
	struct sview v = { empty_string, 1 };
	unsigned int slen = 1;
	uint32_t loc, off;

	switch (p->kind) {
	case PK_STR_STATIC:
		slen = p->size;
		v.p = rec + p->offset;
		v.n = p->offset >= len ? 0 : len - p->offset;
		if (v.n > slen)
			v.n = slen;
		break;
	case PK_STR_DYN:
	case PK_STR_RDYN:
		if (p->end > len)
			break;
		memcpy(&loc, rec + p->offset, sizeof(loc));
		off = slim_data_loc_offset(loc);
		/* __rel_loc: the offset counts from the end of the locator. */
		if (p->kind == PK_STR_RDYN)
			off += p->end;
		slen = slim_data_loc_len(loc);
		if (off + slen > len) {
			slen = 1;	/* corrupt: an empty string */
			break;
		}
		v.p = rec + off;
		/* A zero length means "up to the NUL": stop at the record's end. */
		v.n = slen ? slen : len - off;
		break;
	default:	/* PK_STR_COMM: a NUL-padded char[16], like a task's comm */
		memset(comm, 0, sizeof(comm));
		if (ctx && ctx->comm)
			strncpy((char *)comm, ctx->comm, TASK_COMM_LEN - 1);
		v.p = comm;
		v.n = TASK_COMM_LEN;
		slen = TASK_COMM_LEN;
		break;
	}
	return str_match(p, &v, slen);
}

/* An integer field, widened as its type says; 0 if the record is too short. */
static inline int load_int(const struct pred *p, const unsigned char *rec,
			   unsigned int len, uint64_t *out)
{
	const unsigned char *at = rec + p->offset;
	uint64_t v;
	uint32_t v4;
	uint16_t v2;

	if (slim_unlikely(p->end > len))
		return 0;
	/*
	 * The field's own width: a wider load would read bytes the probe
	 * did not just store, and wait for the store buffer to drain.
	 */
	switch (p->size) {
	case 4:
		memcpy(&v4, at, 4);
		v = v4;
		break;
	case 8:
		memcpy(&v, at, 8);
		break;
	case 2:
		memcpy(&v2, at, 2);
		v = v2;
		break;
	case 1:
		v = *at;
		break;
	default:
		v = slim_load_uint(at, p->size) & p->width_mask;
	}
	*out = (v ^ p->sign_bit) - p->sign_bit;
	return 1;
}

static inline int compare(const struct pred *p, uint64_t x)
{
	unsigned int facts = (x == p->val) * T_EQ |
			     ((x ^ p->bias) < (p->val ^ p->bias)) * T_LT |
			     ((x & p->val) != 0) * T_BAND;

	return (p->truth >> facts) & 1;
}

static int cpu_in(const struct pred *p, int64_t cpu)
{
	if (cpu < 0 || cpu >= (int64_t)p->nbits)
		return 0;
	return (p->mask[cpu / 64] >> (cpu % 64)) & 1;
}

/* A CPU set against one CPU: the set has two or more, so never equal. */
static int cpus_op(const struct pred *p, int64_t cpu)
{
	switch (p->op) {
	case OP_EQ:
		return 0;
	case OP_NE:
		return 1;
	default:
		return cpu_in(p, cpu);
	}
}

/*
 * A cpumask field against a CPU set, over the possible CPUs: "==" and
 * "!=" compare the sets, "&" asks whether they share a CPU.  A locator
 * outside the record matches nothing.
 */
static int eval_cpumask(const struct pred *p, const unsigned char *rec, unsigned int len)
{
	unsigned int i, eq = 1, any = 0;
	uint32_t loc, off, n;

	if (p->end > len)
		return 0;
	memcpy(&loc, rec + p->offset, sizeof(loc));
	off = slim_data_loc_offset(loc);
	n = slim_data_loc_len(loc);
	if (off > len || n > len - off)
		return 0;
	for (i = 0; i < p->nbits; i++) {
		unsigned int a = (unsigned int)slim_bitmask_test(rec + off, n, i);
		unsigned int b = (p->mask[i / 64] >> (i % 64)) & 1;

		eq &= a == b;
		any |= a & b;
	}
	switch (p->op) {
	case OP_EQ:
		return eq;
	case OP_NE:
		return !eq;
	default:
		return any;
	}
}

static int eval_cpu(const struct pred *p, int cpu)
{
	int cmp = (int)p->val;

	switch (p->op) {
	case OP_EQ:
		return cpu == cmp;
	case OP_NE:
		return cpu != cmp;
	case OP_LT:
		return cpu < cmp;
	case OP_LE:
		return cpu <= cmp;
	case OP_GT:
		return cpu > cmp;
	case OP_GE:
		return cpu >= cmp;
	default:	/* "&" on the CPU is never true in the kernel either */
		return 0;
	}
}

/* Out of line, so the integer path of slim_filter_match stays small. */
static __attribute__((noinline)) int
eval_other(const struct pred *p, const unsigned char *rec, unsigned int len,
	   const struct slim_filter_ctx *ctx)
{
	int cpu = ctx ? ctx->cpu : 0;
	uint64_t x;

	switch (p->kind) {
	case PK_NUM_CPUS:
		if (!load_int(p, rec, len, &x))
			return 0;
		x = (uint32_t)x;	/* the kernel takes the CPU as an unsigned int */
		if (x >= p->nbits)
			return 0;
		return cpus_op(p, (int64_t)x);
	case PK_CPU:
		return eval_cpu(p, cpu);
	case PK_CPU_CPUS:
		return cpus_op(p, cpu);
	case PK_FUNC:
		if (!load_int(p, rec, len, &x))
			return 0;
		return (x >= p->val && x < p->val2) == (p->op == OP_EQ);
	case PK_CPUMASK:
		return eval_cpumask(p, rec, len);
	case PK_STR_STATIC:
	case PK_STR_DYN:
	case PK_STR_RDYN:
	case PK_STR_COMM:
		return eval_string(p, rec, len, ctx);
	default:
		return 0;
	}
}

static inline int int_pred(const struct pred *p, const unsigned char *rec,
			   unsigned int len)
{
	uint64_t x;

	return load_int(p, rec, len, &x) && compare(p, x);
}

/* Filters of integer compares only: a leaf loop, nothing to call. */
static inline int match_integers(const struct slim_filter *f,
				 const unsigned char *rec, unsigned int len)
{
	const struct pred *preds = f->preds;
	unsigned int i = 0, n = f->nr;

	while (i < n) {
		const struct pred *p = &preds[i];

		i = int_pred(p, rec, len) ? p->on_true : p->on_false;
	}
	return i == n;
}

static __attribute__((noinline)) int
match_any(const struct slim_filter *f, const unsigned char *rec,
	  unsigned int len, const struct slim_filter_ctx *ctx)
{
	const struct pred *preds = f->preds;
	unsigned int i = 0, n = f->nr;
	int hit;

	while (i < n) {
		const struct pred *p = &preds[i];

		if (p->kind == PK_NUM)
			hit = int_pred(p, rec, len);
		else
			hit = eval_other(p, rec, len, ctx);
		i = hit ? p->on_true : p->on_false;
	}
	return i == n;
}

const struct slim_filter_ctx slim_filter_ctx_unknown;

static inline int match_walk(const struct slim_filter *f, const void *rec,
			     unsigned int len, const struct slim_filter_ctx *ctx)
{
	if (slim_likely(f->integers_only))
		return match_integers(f, rec, len);
	if (ctx == &slim_filter_ctx_unknown && (f->needs_comm || f->needs_cpu))
		return -1;
	return match_any(f, rec, len, ctx);
}

int slim_filter_match(const struct slim_filter *f, const void *rec,
		      unsigned int len, const struct slim_filter_ctx *ctx)
{
	const struct slim_filter_fast *ff = &f->fast;
	int keep = slim_filter_quick(f, rec, len);

	/* The usual widths of one predicate first: no jump table. */
	if (slim_likely(keep >= 0))
		return keep;
	/* A record too short for a field: the walk, where that predicate is false. */
	if (slim_likely(len >= ff->need)) {
		if (ff->prog <= SLIM_FLOAD_64)
			return slim_filter_load(ff->prog, (const unsigned char *)rec +
						ff->one.offset) - ff->one.lo <= ff->one.range;
		if (ff->prog == SLIM_FPROG_CHAIN)
			return slim_filter_chain_holds(ff, rec) == ff->keep_if_all;
	}
	return match_walk(f, rec, len, ctx);
}

int slim_filter_match_walk(const struct slim_filter *f, const void *rec,
			   unsigned int len, const struct slim_filter_ctx *ctx)
{
	return match_walk(f, rec, len, ctx);
}
