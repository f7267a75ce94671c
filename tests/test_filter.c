// SPDX-License-Identifier: MIT
/*
 * The filter language on hand-made records: grammar, every operator on
 * every field kind and width, the kernel's truncation and glob rules,
 * pseudo-fields, every error with its caret, the filter-file error text,
 * the fast form against the predicate walk, and garbage that must neither
 * crash nor read outside the record.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slimtrace/field.h>

#include "filter/filter.h"
#include "check.h"

/* ------------------------------------------------------------------ */
/* A class with one field of each kind, at offsets that are not aligned. */

enum {
	OFF_U8 = 8, OFF_S8 = 9, OFF_U16 = 10, OFF_S16 = 12, OFF_U32 = 14,
	OFF_S32 = 18, OFF_U64 = 22, OFF_S64 = 30, OFF_NAME = 38, OFF_STR = 46,
	OFF_ARR = 50, OFF_PTR = 53, OFF_ADDR = 61, FIXED = 69,
};

static char strings[1024];
static size_t strings_len;
static struct slim_field fields[16];
static struct slim_field_table table = { strings, fields, 0, FIXED };

static uint16_t str_off(const char *s)
{
	size_t n = strlen(s) + 1;
	size_t at = strings_len;

	memcpy(strings + at, s, n);
	strings_len += n;
	return (uint16_t)at;
}

static void add_field(struct slim_field_table *t, const char *type,
		      const char *name, unsigned int off, unsigned int size,
		      int is_signed)
{
	struct slim_field *f = (struct slim_field *)&t->fields[t->nr_fields++];

	f->type = str_off(type);
	f->name = str_off(name);
	f->offset = (uint16_t)off;
	f->size = (uint16_t)size;
	f->is_signed = (uint8_t)is_signed;
	f->filter_type = SLIM_FILTER_AUTO;
}

static void build_table(void)
{
	add_field(&table, "u8", "u8f", OFF_U8, 1, 0);
	add_field(&table, "s8", "s8f", OFF_S8, 1, 1);
	add_field(&table, "u16", "u16f", OFF_U16, 2, 0);
	add_field(&table, "s16", "s16f", OFF_S16, 2, 1);
	add_field(&table, "u32", "u32f", OFF_U32, 4, 0);
	add_field(&table, "s32", "s32f", OFF_S32, 4, 1);
	add_field(&table, "u64", "u64f", OFF_U64, 8, 0);
	add_field(&table, "s64", "s64f", OFF_S64, 8, 1);
	add_field(&table, "char[8]", "name", OFF_NAME, 8, 0);
	add_field(&table, "__data_loc char[]", "str", OFF_STR, 4, 0);
	add_field(&table, "u8[3]", "arr", OFF_ARR, 3, 0);
	add_field(&table, "const char *", "ptr", OFF_PTR, 8, 0);
	add_field(&table, "unsigned long", "addr", OFF_ADDR, 8, 0);
}

struct rec {
	unsigned char b[FIXED + 64];
	unsigned int len;
};

struct vals {
	uint8_t u8;
	int8_t s8;
	uint16_t u16;
	int16_t s16;
	uint32_t u32;
	int32_t s32;
	uint64_t u64;
	int64_t s64;
	const char *name;	/* up to 8 bytes, NUL-padded */
	const char *str;	/* the __data_loc string */
	uint64_t addr;
};

static void make_rec(struct rec *r, const struct vals *v)
{
	struct slim_trace_entry ent = { 7, 0x81, 2, 1234 };
	size_t n = strlen(v->str ? v->str : "") + 1;
	uint32_t loc = (uint32_t)(n << 16) | FIXED;

	memset(r, 0, sizeof(*r));
	memcpy(r->b, &ent, sizeof(ent));
	memcpy(r->b + OFF_U8, &v->u8, 1);
	memcpy(r->b + OFF_S8, &v->s8, 1);
	memcpy(r->b + OFF_U16, &v->u16, 2);
	memcpy(r->b + OFF_S16, &v->s16, 2);
	memcpy(r->b + OFF_U32, &v->u32, 4);
	memcpy(r->b + OFF_S32, &v->s32, 4);
	memcpy(r->b + OFF_U64, &v->u64, 8);
	memcpy(r->b + OFF_S64, &v->s64, 8);
	if (v->name)
		memcpy(r->b + OFF_NAME, v->name, strnlen(v->name, 8));
	memcpy(r->b + OFF_STR, &loc, 4);
	memcpy(r->b + OFF_ADDR, &v->addr, 8);
	memcpy(r->b + FIXED, v->str ? v->str : "", n);
	r->len = (unsigned int)(FIXED + n);
}

static const struct slim_filter_ctx ctx0 = { "bash", 1 };

/*
 * Compile against table, match r: 1/0, or -1 when refused (which is a
 * failure unless a refusal was expected).
 */
static int eval_ctx(const char *expr, const struct rec *r,
		    const struct slim_filter_ctx *ctx)
{
	struct slim_filter *f = NULL;
	struct slim_filter_error e;
	int ret;

	if (slim_filter_compile(&table, expr, &f, &e)) {
		fprintf(stderr, "     refused [%s]: %s at %d\n", expr, e.msg, e.pos);
		return -1;
	}
	ret = slim_filter_match(f, r->b, r->len, ctx);
	slim_filter_free(f);
	return ret;
}

#define MATCH(expr, r, want) do {					\
	int _got = eval_ctx(expr, r, &ctx0);				\
	if (!check_report(_got == (want), expr, __FILE__, __LINE__))	\
		fprintf(stderr, "     got %d, want %d\n", _got, want);	\
} while (0)

/* A refusal: message, caret position and errno. */
static void expect_error(const char *expr, const char *msg, int pos, int errnum,
			 int line)
{
	struct slim_filter *f = NULL;
	struct slim_filter_error e;
	int ret = slim_filter_compile(&table, expr, &f, &e);
	int ok = ret == -EINVAL && !f && !strcmp(e.msg, msg) && e.pos == pos &&
		 e.errnum == errnum;

	if (!check_report(ok, expr, __FILE__, line))
		fprintf(stderr, "     got %d \"%s\" pos %d errno %d, want \"%s\" pos %d errno %d\n",
			ret, e.msg, e.pos, e.errnum, msg, pos, errnum);
	slim_filter_free(f);
}

#define ERR(expr, msg, pos) expect_error(expr, msg, pos, EINVAL, __LINE__)
#define ERRNO(expr, msg, pos, e) expect_error(expr, msg, pos, e, __LINE__)

/* ------------------------------------------------------------------ */

static void test_grammar(void)
{
	struct vals v = { .u8 = 1, .s8 = 2, .u16 = 3, .str = "x" };
	struct rec r;

	make_rec(&r, &v);
	MATCH("u8f == 1", &r, 1);
	MATCH("u8f==1", &r, 1);
	MATCH("  u8f\t==\t1  \n", &r, 1);
	MATCH("u8f == 1 && s8f == 2", &r, 1);
	MATCH("u8f == 1 && s8f == 3", &r, 0);
	MATCH("u8f == 0 || s8f == 2", &r, 1);
	MATCH("u8f == 0 || s8f == 0", &r, 0);
	/* && binds tighter than || */
	MATCH("u8f == 1 || s8f == 0 && u16f == 0", &r, 1);
	MATCH("(u8f == 1 || s8f == 0) && u16f == 0", &r, 0);
	MATCH("u8f == 0 && s8f == 0 || u16f == 3", &r, 1);
	MATCH("u8f == 0 && (s8f == 0 || u16f == 3)", &r, 0);
	/* '!' takes the next predicate or group */
	MATCH("!u8f == 1", &r, 0);
	MATCH("!u8f == 0", &r, 1);
	MATCH("! (u8f == 1 && s8f == 0)", &r, 1);
	MATCH("!(u8f == 1 || s8f == 0)", &r, 0);
	MATCH("!!(u8f == 1)", &r, 1);
	MATCH("!u8f == 0 && s8f == 2", &r, 1);
	MATCH("!(u8f == 0) && !(s8f == 0)", &r, 1);
	MATCH("u8f == 1 &&!s8f == 0", &r, 1);
	MATCH("u8f == 1 &&(s8f == 2)", &r, 1);
	MATCH("((((u8f == 1))))", &r, 1);
	MATCH("(u8f == 0 || (s8f == 2 && !(u16f == 4))) && u8f != 0", &r, 1);
	MATCH("!(!(u8f == 1) || !(s8f == 2))", &r, 1);
	/* the kernel's self-test expressions, on a record where all hold */
	MATCH("((((((((u8f == 1) && (s8f == 2)) || (u16f == 9)) && (u8f == 1)) || "
	      "(s8f == 9)) && (u16f == 3)) || (u8f == 9)) && (s8f == 2))", &r, 1);
	MATCH("(u8f == 0 && s8f == 2) || (u8f == 1 && s8f == 0) || "
	      "(u16f == 3 && u8f == 1)", &r, 1);
}

/* One operator on one field against one value, on a record holding x. */
struct num_case {
	const char *expr;
	int want;
};

static void run_num_cases(const struct vals *v, const struct num_case *c, int n)
{
	struct rec r;
	int i;

	make_rec(&r, v);
	for (i = 0; i < n; i++)
		MATCH(c[i].expr, &r, c[i].want);
}

static void test_numbers(void)
{
	static const struct vals v = {
		.u8 = 200, .s8 = -56, .u16 = 40000, .s16 = -25536,
		.u32 = 3000000000u, .s32 = -1294967296, .u64 = 0x8000000000000001ull,
		.s64 = -5, .str = "",
	};
	static const struct num_case c[] = {
		{ "u8f == 200", 1 }, { "u8f != 200", 0 }, { "u8f < 201", 1 },
		{ "u8f <= 200", 1 }, { "u8f > 199", 1 }, { "u8f >= 201", 0 },
		{ "u8f & 8", 1 }, { "u8f & 0x37", 0 },
		{ "s8f == -56", 1 }, { "s8f != -56", 0 }, { "s8f < 0", 1 },
		{ "s8f <= -57", 0 }, { "s8f > -57", 1 }, { "s8f >= -56", 1 },
		{ "s8f & 0x80", 1 }, { "s8f & 0x37", 0 },
		{ "u16f == 40000", 1 }, { "u16f < 40001", 1 }, { "u16f > 40000", 0 },
		{ "u16f & 0x40", 1 }, { "u16f >= 0x9c40", 1 },
		{ "s16f == -25536", 1 }, { "s16f < -25535", 1 }, { "s16f > 0", 0 },
		{ "s16f >= -25536", 1 }, { "s16f <= -25537", 0 },
		{ "u32f == 3000000000", 1 }, { "u32f > 2147483648", 1 },
		{ "u32f < 3000000000", 0 }, { "u32f & 0x80000000", 1 },
		{ "s32f == -1294967296", 1 }, { "s32f < 0", 1 }, { "s32f > -1294967297", 1 },
		{ "s32f <= -1294967297", 0 },
		{ "u64f == 0x8000000000000001", 1 }, { "u64f > 0x8000000000000000", 1 },
		{ "u64f < 1", 0 }, { "u64f & 1", 1 }, { "u64f != 9223372036854775809", 0 },
		{ "u64f >= 18446744073709551615", 0 },
		{ "s64f == -5", 1 }, { "s64f < -4", 1 }, { "s64f > -9223372036854775808", 1 },
		{ "s64f < -9223372036854775808", 0 }, { "s64f & -9223372036854775808", 1 },
		{ "s64f <= 9223372036854775807", 1 },
		/* literal forms */
		{ "u8f == 0xc8", 1 }, { "u8f == 0XC8", 1 }, { "u8f == 0310", 1 },
		{ "s8f == -070", 1 }, { "s8f == -0x38", 1 }, { "u8f > 00", 1 },
		{ "s64f == -0x5", 1 },
		/* common fields: type 7, flags 0x81, preempt count 2, pid 1234 */
		{ "common_type == 7", 1 }, { "common_flags & 0x80", 1 },
		{ "common_flags == 0x81", 1 }, { "common_preempt_count >= 2", 1 },
		{ "common_pid == 1234", 1 }, { "common_pid < 0", 0 },
	};

	run_num_cases(&v, c, (int)(sizeof(c) / sizeof(c[0])));
}

/* Values outside the field's range are truncated to it, as the kernel does. */
static void test_truncation(void)
{
	static const struct vals v = {
		.u8 = 0, .s8 = -1, .u16 = 0, .s16 = -1, .u32 = 4294967295u,
		.s32 = -1, .u64 = 1, .s64 = 0, .str = "",
	};
	static const struct num_case c[] = {
		{ "u8f == 256", 1 },		/* 256 -> 0 */
		{ "u8f < 256", 0 },		/* 0 < 0 */
		{ "u8f == 0x100", 1 },
		{ "s8f == 255", 1 },		/* 255 -> -1 */
		{ "s8f == 0xff", 1 },
		{ "s8f < 128", 0 },		/* 128 -> -128: -1 < -128 is false */
		{ "s8f > 128", 1 },
		{ "u16f == 65536", 1 },
		{ "s16f == 65535", 1 },
		{ "u32f == 0x1ffffffff", 1 },	/* -> 0xffffffff */
		{ "s32f == 0xffffffff", 1 },	/* -> -1 */
		{ "s32f == 4294967295", 1 },
		{ "s32f < 0x80000000", 0 },	/* -> INT_MIN */
		{ "s32f == 0x7fffffffffffffff", 1 },
		{ "s64f == -0", 1 },
		{ "u64f & 0x100000001", 1 },
	};

	run_num_cases(&v, c, (int)(sizeof(c) / sizeof(c[0])));
	/* A field of no integer width compiles and never matches. */
	run_num_cases(&v, (const struct num_case[]){ { "arr == 0", 0 }, { "arr != 0", 0 },
		      { "arr & CPUS{0}", 0 } }, 3);
}

static void test_strings(void)
{
	struct vals v = { .name = "bash", .str = "nginx-worker" };
	struct rec r;

	make_rec(&r, &v);
	MATCH("name == \"bash\"", &r, 1);
	MATCH("name == 'bash'", &r, 1);
	MATCH("name != \"bash\"", &r, 0);
	MATCH("name == \"bas\"", &r, 0);
	MATCH("name == \"bashx\"", &r, 0);
	MATCH("name == \"\"", &r, 0);
	MATCH("name ~ \"bash\"", &r, 1);
	MATCH("name ~ \"ba*\"", &r, 1);
	MATCH("name ~ \"*as*\"", &r, 1);
	MATCH("name ~ \"b?sh\"", &r, 1);
	MATCH("name ~ \"b[a-c]sh\"", &r, 1);
	MATCH("name ~ \"b[!a]sh\"", &r, 0);
	MATCH("name ~ \"!ba*\"", &r, 0);
	MATCH("name ~ \"!zz*\"", &r, 1);
	MATCH("name ~ \"*\"", &r, 1);
	/* kernel quirk: a suffix is looked for at the end of the whole array */
	MATCH("name ~ \"*sh\"", &r, 0);
	MATCH("str == \"nginx-worker\"", &r, 1);
	MATCH("str == 'nginx-worker'", &r, 1);
	MATCH("str != \"nginx\"", &r, 1);
	MATCH("str == \"nginx*\"", &r, 0);	/* == is literal */
	MATCH("str ~ \"nginx*\"", &r, 1);
	MATCH("str ~ \"*worker\"", &r, 1);
	MATCH("str ~ \"*x-w*\"", &r, 1);
	MATCH("str ~ \"n*r\"", &r, 1);
	MATCH("str ~ \"n*x\"", &r, 0);
	MATCH("str ~ \"nginx-worke?\"", &r, 1);
	MATCH("str ~ \"[n]ginx*\"", &r, 1);
	MATCH("str ~ \"[^n]ginx*\"", &r, 1);	/* '^' is a member, not "not" */
	MATCH("str ~ \"[!n]ginx*\"", &r, 0);
	MATCH("str ~ \"nginx\"", &r, 0);
	MATCH("str ~ \"\"", &r, 0);
	MATCH("str ~ \"**\"", &r, 1);
	MATCH("str ~ \"*-*-*\"", &r, 0);
	MATCH("str ~ \"*-*\"", &r, 1);
	MATCH("str ~ \"\\ng*\"", &r, 1);	/* '\' quotes the next character */
	/* kernel quirk: a pattern led by a digit is compared whole */
	v.str = "9lives";
	make_rec(&r, &v);
	MATCH("str ~ \"9*\"", &r, 0);
	MATCH("str ~ \"9lives\"", &r, 1);
	MATCH("str ~ \"*9l*\"", &r, 1);
	v.str = "9*";
	make_rec(&r, &v);
	MATCH("str ~ \"9*\"", &r, 1);
	/* globs on special characters */
	v.str = "a*b?c[d]e\\f";
	make_rec(&r, &v);
	MATCH("str ~ \"a\\*b\\?c\\[d\\]e\\\\f\"", &r, 1);
	MATCH("str ~ \"a?b*\"", &r, 1);
	MATCH("str ~ \"*[[]d*\"", &r, 1);
	MATCH("str ~ \"*[]]e*\"", &r, 1);
	MATCH("str ~ \"a[\"", &r, 0);		/* unterminated class */
	MATCH("str ~ \"a[*\"", &r, 0);
	v.str = "a[";
	make_rec(&r, &v);
	MATCH("str ~ \"a[\"", &r, 1);		/* ... is a plain '[' */
	MATCH("str ~ \"?[\"", &r, 1);
	v.str = "";
	make_rec(&r, &v);
	MATCH("str == \"\"", &r, 1);
	MATCH("str ~ \"\"", &r, 1);
	MATCH("str ~ \"*\"", &r, 1);
	MATCH("str ~ \"[!a]*\"", &r, 0);	/* a class never matches the end */
	MATCH("str ~ \"?*\"", &r, 0);
	/* quotes of the other kind are ordinary characters */
	v.str = "a\"b'c";
	make_rec(&r, &v);
	MATCH("str == 'a\"b''", &r, -1);
	MATCH("str ~ 'a\"b*'", &r, 1);
	MATCH("str ~ \"*'c\"", &r, 1);
	/* a 9-character pattern against char[8]: only 8 bytes are compared */
	v.name = "abcdefgh";
	make_rec(&r, &v);
	MATCH("name == \"abcdefgh\"", &r, 1);
	MATCH("name == \"abcdefghZ\"", &r, 1);
	MATCH("name ~ \"abc*\"", &r, 1);
	MATCH("name ~ \"*fgh*\"", &r, 1);
	/* a char * is never followed: every compare on it is false */
	MATCH("ptr == \"x\"", &r, 0);
	MATCH("ptr != \"x\"", &r, 0);
	MATCH("ptr.ustring ~ \"*\"", &r, 0);
}

static void test_pseudo(void)
{
	struct vals v = { .u8 = 1, .str = "" };
	struct slim_filter_ctx c1 = { "kworker/0:1", 1 };
	struct slim_filter_ctx none = { NULL, 0 };
	struct rec r;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	make_rec(&r, &v);
	MATCH("COMM == \"bash\"", &r, 1);
	MATCH("comm == \"bash\"", &r, 1);
	MATCH("COMM != \"bash\"", &r, 0);
	MATCH("COMM ~ \"ba*\"", &r, 1);
	MATCH("COMM ~ \"*as*\"", &r, 1);
	MATCH("COMM ~ \"*sh\"", &r, 0);	/* kernel quirk: 16-byte comm */
	MATCH("CPU == 1", &r, 1);
	MATCH("cpu != 1", &r, 0);
	MATCH("common_cpu < 2", &r, 1);
	MATCH("CPU <= 0", &r, 0);
	MATCH("CPU > 0", &r, 1);
	MATCH("CPU >= 2", &r, 0);
	MATCH("CPU & 1", &r, 0);		/* kernel quirk: never true */
	MATCH("CPU == 0x100000001", &r, 1);	/* compared as an int */
	MATCH("CPU == -1", &r, 0);
	MATCH("stacktrace == 0", &r, 0);
	MATCH("STACKTRACE != 0", &r, 0);
	CHECK_EQ_INT(eval_ctx("COMM ~ \"kworker/*\" && CPU == 1", &r, &c1), 1);
	CHECK_EQ_INT(eval_ctx("COMM == \"\"", &r, &none), 1);
	CHECK_EQ_INT(eval_ctx("CPU == 0", &r, &none), 1);
	CHECK_EQ_INT(eval_ctx("CPU == 0 && COMM == \"\"", &r, NULL), 1);

	/* CPU sets: one CPU is a plain value, more are a mask */
	MATCH("CPU == CPUS{0}", &r, 0);
	MATCH("u8f == CPUS{1}", &r, ncpu > 1 ? 1 : -1);
	MATCH("u8f & CPUS{0}", &r, 0);
	if (ncpu >= 2) {
		MATCH("CPU & CPUS{0-1}", &r, 1);
		MATCH("CPU & CPUS{0,1}", &r, 1);
		MATCH("CPU == CPUS{0-1}", &r, 0);	/* a set is never one CPU */
		MATCH("CPU != CPUS{0-1}", &r, 1);
		MATCH("u8f & CPUS{0-N}", &r, 1);
		MATCH("u8f & CPUS{all:1/2}", &r, 0);	/* even CPUs */
		MATCH("u8f == CPUS{1,N}", &r, ncpu == 2 ? 1 : 0);
		MATCH("u8f & CPUS{ 0-1 }", &r, 1);
		MATCH("CPU & CPUS{1}", &r, 1);		/* '&' on one CPU means == */
	}
}

/* An event field named like a pseudo-field wins, as in the kernel. */
static void test_field_shadows_pseudo(void)
{
	struct slim_field f2[1];
	struct slim_field_table t2 = { strings, f2, 0, 24 };
	struct slim_filter *f;
	struct slim_filter_error e;
	unsigned char rec[24] = { 0 };
	int ret;

	add_field(&t2, "char[16]", "comm", 8, 16, 0);
	memcpy(rec + 8, "nginx", 5);
	ret = slim_filter_compile(&t2, "comm == \"nginx\" && COMM == \"bash\"", &f, &e);
	CHECK_EQ_INT(ret, 0);
	if (!ret) {
		CHECK_EQ_INT(slim_filter_match(f, rec, sizeof(rec), &ctx0), 1);
		slim_filter_free(f);
	}
	/* no table at all: the common fields and pseudo-fields still work */
	ret = slim_filter_compile(NULL, "common_pid == 1234 && CPU == 1", &f, &e);
	CHECK_EQ_INT(ret, 0);
	if (!ret) {
		struct vals v = { .str = "" };
		struct rec r;

		make_rec(&r, &v);
		CHECK_EQ_INT(slim_filter_match(f, r.b, r.len, &ctx0), 1);
		CHECK_EQ_INT(slim_filter_nr_preds(f), 2);
		slim_filter_free(f);
	}
}

static void test_function(void)
{
	void *q = dlsym(RTLD_DEFAULT, "qsort");
	struct vals v = { .str = "" };
	char expr[128];
	struct rec r;

	CHECK(q != NULL);
	if (!q)
		return;
	v.addr = (uintptr_t)q + 1;
	make_rec(&r, &v);
	MATCH("addr.function == qsort", &r, 1);
	MATCH("addr.function != qsort", &r, 0);
	snprintf(expr, sizeof(expr), "addr.function == 0x%llx",
		 (unsigned long long)(uintptr_t)q);
	MATCH(expr, &r, 1);
	v.addr = 0;
	make_rec(&r, &v);
	MATCH("addr.function == qsort", &r, 0);
	MATCH("addr.function != qsort", &r, 1);
	ERR("addr.function == no_such_symbol_xyz", "Function not found", 36);
	ERR("addr.function == 1", "Function not found", 19);
	ERR("addr.function < qsort", "Invalid operator", 17);
	ERR("u32f.function == qsort", "Illegal operation for field type", 18);
	ERR("addr.function == 0xg", "Invalid value (did you forget quotes)?", 21);
}

static void test_errors(void)
{
	ERR("foo == 1", "Field not found", 4);
	ERR("1", "Field not found", 2);
	ERR("Comm == \"x\"", "Field not found", 5);
	ERR("u8f", "Invalid operator", 4);
	ERR("u8f = 1", "Invalid operator", 5);
	ERR("u8f 1", "Invalid operator", 5);
	ERR("u8f !~ 1", "Invalid operator", 5);
	ERR("!u8f", "Invalid operator", 5);
	ERR("u8f ==", "Invalid value (did you forget quotes)?", 7);
	ERR("u8f == abc", "Invalid value (did you forget quotes)?", 8);
	ERR("u8f == +1", "Invalid value (did you forget quotes)?", 8);
	ERR("u8f <> 1", "Invalid value (did you forget quotes)?", 6);
	ERR("name == bash", "Invalid value (did you forget quotes)?", 9);
	ERR("u8f == 08", "Illegal integer value", 8);
	ERR("u8f == 0x", "Illegal integer value", 8);
	ERR("u8f == 1a", "Illegal integer value", 8);
	ERR("u8f == -1", "Illegal integer value", 8);
	ERR("s8f == - 1", "Illegal integer value", 8);
	ERR("s8f == --1", "Illegal integer value", 8);
	ERR("s8f == 18446744073709551615", "Illegal integer value", 8);
	ERR("s64f == -9223372036854775809", "Illegal integer value", 9);
	ERR("u64f == 18446744073709551616", "Illegal integer value", 9);
	ERR("u8f == 123456789012345678901234", "Operand too long", 32);
	ERR("u32f == -0", "Illegal integer value", 9);
	ERR("u8f ~ 1", "Illegal operation for field type", 7);
	ERR("name < \"a\"", "Illegal operation for field type", 8);
	ERR("str & \"a\"", "Illegal operation for field type", 7);
	ERR("COMM < \"a\"", "Illegal operation for field type", 8);
	ERR("u8f < CPUS{0}", "Illegal operation for field type", 7);
	ERR("name == CPUS{0}", "Illegal operation for field type", 9);
	ERR("u8f == \"1\"", "Expecting numeric field", 8);
	ERR("CPU == '1'", "Expecting numeric field", 8);
	ERR("stacktrace == \"x\"", "Expecting numeric field", 15);
	ERR("name == 1", "Expecting string field", 9);
	ERR("COMM == 1", "Expecting string field", 9);
	ERR("ptr == 1", "Expecting string field", 8);
	ERR("u8f == CPUS", "Missing '{'", 13);
	ERR("u8f == CPUS {0}", "Missing '{'", 13);
	ERR("u8f == CPUS{", "Missing '}'", 13);
	ERR("u8f == CPUS{}", "Invalid cpulist", 13);
	ERR("u8f == CPUS{x}", "Invalid cpulist", 14);
	ERR("u8f == CPUS{1-0}", "Invalid cpulist", 16);
	ERR("u8f == CPUS{0-}", "Invalid cpulist", 15);
	ERR("u8f == CPUS{100000}", "Invalid cpulist", 19);
	ERR("u8f == CPUS{0-1:3/2}", "Invalid cpulist", 20);
	ERR("u8f == CPUS{0:1/2}", "Invalid cpulist", 18);
	ERR("u8f == 1 &&", "Meaningless filter expression", 11);
	ERR("u8f == 1 || !", "Meaningless filter expression", 13);
	ERR("!", "No filter found", 1);
	ERR("! !", "No filter found", 3);
	ERRNO("u8f == 1 u16f == 2", "Too many terms in predicate expression", 9, EPERM);
	ERRNO("u8f == 1 & u16f == 2", "Too many terms in predicate expression", 9, EPERM);
	ERRNO("u8f == 1.5", "Too many terms in predicate expression", 8, EPERM);
	ERRNO("(u8f == 1) ()", "Too many terms in predicate expression", 11, EPERM);
	ERRNO("name == \"a\" \"b\"", "Too many terms in predicate expression", 12, EPERM);
	ERRNO("u8f == 1)", "Too few '('", 8, EPERM);
	ERRNO(")", "Too few '('", 0, EPERM);
	ERRNO("(u8f == 1", "Too many '('", 0, ENOENT);
	ERRNO("u8f == 1 && (", "Too many '('", 12, ENOENT);
	ERRNO("!(", "Too many '('", 1, ENOENT);
	ERRNO("(((u8f == 1) && (u16f == 1)", "Too many '('", 1, ENOENT);
	ERRNO("name == \"bash", "Missing matching quote", 8, ESRCH);
	ERRNO("name == 'bash\"", "Missing matching quote", 8, ESRCH);
	ERRNO("name == \"ba\\\"sh\"", "Missing matching quote", 15, ESRCH);
	/* refused without a message */
	ERRNO("", "", 0, EINVAL);
	ERRNO("   ", "", 0, EINVAL);
	ERRNO("()", "", 0, EINVAL);
	ERRNO("== 1", "", 0, EPERM);
	ERRNO("&& u8f == 1", "", 0, EPERM);
	ERRNO("u8f == 1 && && u8f == 1", "", 0, EPERM);
	ERRNO("(u8f == 1 &&)", "", 0, EPERM);
	ERRNO("\"s\" == \"x\"", "", 0, EPERM);
	/* string values of 256 bytes and more are refused */
	{
		char big[300];

		snprintf(big, sizeof(big), "name == \"%0256d\"", 0);
		ERR(big, "Operand too long", 266);
		snprintf(big, sizeof(big), "name == \"%0255d\"", 0);
		{
			struct slim_filter *f;
			struct slim_filter_error e;

			CHECK_EQ_INT(slim_filter_compile(&table, big, &f, &e), 0);
			slim_filter_free(f);
		}
	}
	/* error codes for the system-filter decision */
	{
		struct slim_filter *f;
		struct slim_filter_error e;

		CHECK_EQ_INT(slim_filter_compile(&table, "nope == 1", &f, &e), -EINVAL);
		CHECK_EQ_INT(e.code, SLIM_FERR_FIELD_NOT_FOUND);
		CHECK(f == NULL);
		CHECK_EQ_INT(slim_filter_compile(&table, "u8f ==", &f, &e), -EINVAL);
		CHECK_EQ_INT(e.code, SLIM_FERR_INVALID_VALUE);
		/* err may be NULL */
		CHECK_EQ_INT(slim_filter_compile(&table, "u8f ==", &f, NULL), -EINVAL);
	}
}

static void check_text(const char *expr, const char *want, int line)
{
	struct slim_filter *f = NULL;
	struct slim_filter_error e;
	char buf[512];
	int n;

	slim_filter_compile(&table, expr, &f, &e);
	slim_filter_free(f);
	n = slim_filter_error_text(expr, &e, buf, sizeof(buf));
	if (!check_report(!strcmp(buf, want) && n == (int)strlen(want), expr,
			  __FILE__, line))
		fprintf(stderr, "     got \"%s\"\n    want \"%s\"\n", buf, want);
}

static void test_error_text(void)
{
	struct slim_filter_error e;
	char small[8];
	int n;

	check_text("u8f == abc", "u8f == abc\n        ^\nparse_error: "
		   "Invalid value (did you forget quotes)?\n\n", __LINE__);
	/* the caret stops at the end of the text, trailing space dropped */
	check_text("u8f ==  \n", "u8f ==\n      ^\nparse_error: "
		   "Invalid value (did you forget quotes)?\n\n", __LINE__);
	check_text("(u8f == 1", "(u8f == 1\n^\nparse_error: Too many '('\n\n", __LINE__);
	check_text("== 1", "== 1\nError: (0)\n\n", __LINE__);
	check_text(" ", "\nError: (0)\n\n", __LINE__);
	slim_filter_subsys_error(&e);
	n = slim_filter_error_text("prev_pid == 0", &e, small, sizeof(small));
	CHECK_EQ_STR(small, "prev_pi");
	CHECK_EQ_INT(n, (int)strlen("prev_pid == 0\n^\nparse_error: Couldn't find or "
				     "set field in one of a subsystem's events\n\n"));
	CHECK_EQ_INT(e.code, SLIM_FERR_BAD_SUBSYS_FILTER);
	CHECK_EQ_INT(e.pos, 0);
}

static void test_text(void)
{
	struct slim_filter *f;
	struct slim_filter_error e;

	CHECK_EQ_INT(slim_filter_compile(&table, "  u8f == 1 && (s8f < 2)\t\n", &f, &e), 0);
	CHECK_EQ_STR(slim_filter_text(f), "  u8f == 1 && (s8f < 2)");
	CHECK_EQ_INT(slim_filter_nr_preds(f), 2);
	slim_filter_free(f);
	slim_filter_free(NULL);
}

/* ------------------------------------------------------------------ */
/*
 * The fast form (filter.h): every operator on every integer width and
 * signedness, passing and rejecting, one predicate and chains, against
 * the predicate walk and against C's own compare of the field's type.
 */
struct int_field {
	const char *name;
	unsigned int off, size;
	int is_signed;
	uint8_t load;		/* the one-predicate program expected */
};

static const struct int_field int_fields[] = {
	{ "u8f", OFF_U8, 1, 0, SLIM_FLOAD_U8 },
	{ "s8f", OFF_S8, 1, 1, SLIM_FLOAD_S8 },
	{ "u16f", OFF_U16, 2, 0, SLIM_FLOAD_U16 },
	{ "s16f", OFF_S16, 2, 1, SLIM_FLOAD_S16 },
	{ "u32f", OFF_U32, 4, 0, SLIM_FLOAD_U32 },
	{ "s32f", OFF_S32, 4, 1, SLIM_FLOAD_S32 },
	{ "u64f", OFF_U64, 8, 0, SLIM_FLOAD_64 },
	{ "s64f", OFF_S64, 8, 1, SLIM_FLOAD_64 },
};
#define NR_INT_FIELDS	(sizeof(int_fields) / sizeof(int_fields[0]))

/* Each width's edges, and values that are edges of no width. */
static const uint64_t edge_vals[] = {
	0, 1, 2, 5, 42, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff,
	0x10000, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000,
	0x7fffffffffffffff, 0x8000000000000000, 0xffffffffffffffff,
	(uint64_t)-2, (uint64_t)-128, (uint64_t)-129, (uint64_t)-32768,
	(uint64_t)-2147483648LL, (uint64_t)-2147483649LL, 0x123456789abcdef0,
};
#define NR_EDGE_VALS	(sizeof(edge_vals) / sizeof(edge_vals[0]))

static const char *const int_ops[] = { "==", "!=", "<", "<=", ">", ">=", "&" };
#define NR_INT_OPS	(sizeof(int_ops) / sizeof(int_ops[0]))

/* v cut to the field's width and widened back as its type does. */
static uint64_t as_type(const struct int_field *fl, uint64_t v)
{
	unsigned int bits = fl->size * 8;

	if (bits == 64)
		return v;
	v &= ((uint64_t)1 << bits) - 1;
	if (fl->is_signed && (v >> (bits - 1)))
		v |= ~(uint64_t)0 << bits;
	return v;
}

static int c_compare(const struct int_field *fl, unsigned int op, uint64_t x, uint64_t v)
{
	int64_t sx = (int64_t)x, sv = (int64_t)v;
	int lt = fl->is_signed ? sx < sv : x < v;

	switch (op) {
	case 0: return x == v;
	case 1: return x != v;
	case 2: return lt;
	case 3: return lt || x == v;
	case 4: return !lt && x != v;
	case 5: return !lt;
	default: return (x & v) != 0;
	}
}

/*
 * A compare that is the same for every value of the widened type: 0
 * for "< min" and "> max", 1 for ">= min" and "<= max", else -1.  The
 * fast form makes "never" a mask of 0, and so "always" when negated.
 */
static int compare_const(const struct int_field *fl, unsigned int op, uint64_t v)
{
	uint64_t min = fl->is_signed ? (uint64_t)INT64_MIN : 0;

	if ((op == 2 && v == min) || (op == 4 && v == min - 1))
		return 0;
	if ((op == 5 && v == min) || (op == 3 && v == min - 1))
		return 1;
	return -1;
}

static void set_int(struct rec *r, const struct int_field *fl, uint64_t v)
{
	uint8_t v1 = (uint8_t)v;
	uint16_t v2 = (uint16_t)v;
	uint32_t v4 = (uint32_t)v;

	switch (fl->size) {
	case 1:
		memcpy(r->b + fl->off, &v1, 1);
		break;
	case 2:
		memcpy(r->b + fl->off, &v2, 2);
		break;
	case 4:
		memcpy(r->b + fl->off, &v4, 4);
		break;
	default:
		memcpy(r->b + fl->off, &v, 8);
	}
}

/* A value as the field's parser reads it: signed fields take "-N". */
static const char *value_text(const struct int_field *fl, uint64_t v, char *buf,
			      size_t len)
{
	if (!fl->is_signed)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%lld", (long long)v);
	return buf;
}

/* The fast form's verdicts (match, quick) against the walk's; 0 if all agree. */
static int fast_disagrees(const struct slim_filter *f, const struct rec *r,
			  unsigned int len, int *verdict)
{
	int walk = slim_filter_match_walk(f, r->b, len, &ctx0);
	int fast = slim_filter_match(f, r->b, len, &ctx0);
	int quick = slim_filter_quick(f, r->b, len);

	*verdict = walk;
	return fast != walk || (quick >= 0 && quick != walk);
}

static void test_fast_single(void)
{
	struct vals v = { .str = "x" };
	unsigned int i, op, k, j, cases = 0, wrong = 0, wrong_prog = 0, want_prog;
	unsigned int kept = 0, dropped = 0;
	char expr[128], num[32];
	struct rec r;

	make_rec(&r, &v);
	for (i = 0; i < NR_INT_FIELDS; i++) {
		const struct int_field *fl = &int_fields[i];

		for (op = 0; op < NR_INT_OPS; op++) {
			for (k = 0; k < NR_EDGE_VALS; k++) {
				struct slim_filter *f, *nf;
				struct slim_filter_error e;
				uint64_t c = edge_vals[k];
				int neg;

				value_text(fl, c, num, sizeof(num));
				snprintf(expr, sizeof(expr), "%s %s %s", fl->name, int_ops[op], num);
				if (slim_filter_compile(&table, expr, &f, &e)) {
					fprintf(stderr, "     refused [%s]: %s\n", expr, e.msg);
					wrong++;
					continue;
				}
				snprintf(expr, sizeof(expr), "!(%s %s %s)", fl->name,
					 int_ops[op], num);
				if (slim_filter_compile(&table, expr, &nf, &e)) {
					slim_filter_free(f);
					wrong++;
					continue;
				}
				/*
				 * A mask ("&" on anything but all ones, a
				 * constant answer): a chain of one.
				 */
				for (neg = 0; neg < 2; neg++) {
					int konst = compare_const(fl, op, as_type(fl, c));

					want_prog = fl->load;
					if ((op == 6 && as_type(fl, c) != UINT64_MAX) ||
					    konst == 0 || (neg && konst == 1))
						want_prog = SLIM_FPROG_CHAIN;
					wrong_prog += ((const struct slim_filter_fast *)
						       (neg ? nf : f))->prog != want_prog;
				}
				for (j = 0; j < NR_EDGE_VALS; j++) {
					uint64_t x = as_type(fl, edge_vals[j]);
					int want = c_compare(fl, op, x, as_type(fl, c)), got;

					set_int(&r, fl, x);
					for (neg = 0; neg < 2; neg++) {
						const struct slim_filter *g = neg ? nf : f;
						int bad = fast_disagrees(g, &r, r.len, &got);

						bad |= got != (want ^ neg);
						if (bad && wrong < 5)
							fprintf(stderr, "     %s%s %s %s on %llx: "
								"walk %d, want %d, or fast differs\n",
								neg ? "!" : "", fl->name, int_ops[op],
								num, (unsigned long long)x, got,
								want ^ neg);
						wrong += bad;
						kept += got == 1;
						dropped += got == 0;
						cases++;
					}
				}
				set_int(&r, fl, 0);
				slim_filter_free(f);
				slim_filter_free(nf);
			}
		}
	}
	CHECK(cases > 10000);
	CHECK(kept > cases / 4 && dropped > cases / 4);
	CHECK_EQ_INT(wrong_prog, 0);
	CHECK_EQ_INT(wrong, 0);
}

/* A deterministic generator: the same cases every run. */
static uint64_t lcg_state = 0x9e3779b97f4a7c15;

static uint32_t lcg(void)
{
	lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(lcg_state >> 33);
}

/* A random integer predicate, negated at random. */
static size_t random_leaf(char *buf, size_t len)
{
	const struct int_field *fl = &int_fields[lcg() % NR_INT_FIELDS];
	uint64_t c = edge_vals[lcg() % NR_EDGE_VALS];
	char num[32];

	value_text(fl, c, num, sizeof(num));
	return (size_t)snprintf(buf, len, "%s%s %s %s", lcg() % 3 ? "" : "!",
				fl->name, int_ops[lcg() % NR_INT_OPS], num);
}

static void random_rec(struct rec *r)
{
	unsigned int i;

	for (i = 0; i < NR_INT_FIELDS; i++)
		set_int(r, &int_fields[i], edge_vals[lcg() % NR_EDGE_VALS]);
}

/*
 * Chains of 2 to 8 predicates joined by "&&" or by "||" (the fast form),
 * and by both or under a negation (the fast form or the walk: whichever
 * compiles), on random records and on records cut short.
 */
static void test_fast_chains(void)
{
	unsigned int n, i, round, cases = 0, wrong = 0, chains = 0, want_chain = 0;
	unsigned int kept = 0, dropped = 0;
	struct vals v = { .str = "x" };
	char expr[1024];
	struct rec r;

	make_rec(&r, &v);
	for (round = 0; round < 600; round++) {
		unsigned int shape = round % 4;	/* &&, ||, mixed, negated */
		struct slim_filter *f;
		struct slim_filter_error e;
		size_t at = 0;
		int got;

		n = 2 + lcg() % 7;
		if (shape == 3)
			at += (size_t)snprintf(expr, sizeof(expr), "!(");
		for (i = 0; i < n; i++) {
			const char *op = shape == 1 ? " || " :
					 shape == 2 && lcg() % 2 ? " || " : " && ";

			if (i)
				at += (size_t)snprintf(expr + at, sizeof(expr) - at, "%s", op);
			at += random_leaf(expr + at, sizeof(expr) - at);
		}
		if (shape == 3)
			snprintf(expr + at, sizeof(expr) - at, ")");
		if (slim_filter_compile(&table, expr, &f, &e)) {
			fprintf(stderr, "     refused [%s]: %s\n", expr, e.msg);
			wrong++;
			continue;
		}
		chains += ((const struct slim_filter_fast *)f)->prog == SLIM_FPROG_CHAIN;
		want_chain += shape < 2;
		if (shape < 2 && ((const struct slim_filter_fast *)f)->prog != SLIM_FPROG_CHAIN) {
			fprintf(stderr, "     not a chain [%s]\n", expr);
			wrong++;
		}
		for (i = 0; i < 40; i++) {
			random_rec(&r);
			if (fast_disagrees(f, &r, r.len, &got)) {
				if (wrong < 5)
					fprintf(stderr, "     [%s]: fast and walk disagree\n", expr);
				wrong++;
			}
			kept += got == 1;
			dropped += got == 0;
			cases++;
		}
		/* Cut short: a field past the end makes its predicate false. */
		for (i = 0; i <= FIXED; i += 7)
			wrong += fast_disagrees(f, &r, i, &got);
		slim_filter_free(f);
	}
	CHECK(chains >= want_chain);
	CHECK(kept > cases / 5 && dropped > cases / 5);
	CHECK_EQ_INT(wrong, 0);
}

/* A record that ends early or lies about its string must be survived. */
static void test_short_records(void)
{
	struct vals v = { .u8 = 5, .name = "abc", .str = "hello" };
	struct slim_filter *f;
	struct slim_filter_error e;
	struct rec r;
	uint32_t loc;

	make_rec(&r, &v);
	/* numbers beyond the record: false */
	CHECK_EQ_INT(slim_filter_compile(&table, "s64f == 0", &f, &e), 0);
	CHECK_EQ_INT(slim_filter_match(f, r.b, OFF_S64 + 7, &ctx0), 0);
	CHECK_EQ_INT(slim_filter_match(f, r.b, OFF_S64 + 8, &ctx0), 1);
	slim_filter_free(f);
	/* a static string cut short reads as NUL-padded */
	CHECK_EQ_INT(slim_filter_compile(&table, "name == \"ab\"", &f, &e), 0);
	CHECK_EQ_INT(slim_filter_match(f, r.b, OFF_NAME + 2, &ctx0), 1);
	CHECK_EQ_INT(slim_filter_match(f, r.b, 0, &ctx0), 0);
	slim_filter_free(f);
	/* a corrupt __data_loc reads as the empty string */
	CHECK_EQ_INT(slim_filter_compile(&table, "str == \"\"", &f, &e), 0);
	CHECK_EQ_INT(slim_filter_match(f, r.b, r.len, &ctx0), 0);
	loc = (200u << 16) | FIXED;
	memcpy(r.b + OFF_STR, &loc, 4);
	CHECK_EQ_INT(slim_filter_match(f, r.b, r.len, &ctx0), 1);
	loc = (6u << 16) | 0xfff0;
	memcpy(r.b + OFF_STR, &loc, 4);
	CHECK_EQ_INT(slim_filter_match(f, r.b, r.len, &ctx0), 1);
	CHECK_EQ_INT(slim_filter_match(f, r.b, OFF_STR + 3, &ctx0), 1);
	slim_filter_free(f);
	/* a zero length means "up to the NUL", bounded by the record */
	loc = (0u << 16) | FIXED;
	memcpy(r.b + OFF_STR, &loc, 4);
	CHECK_EQ_INT(slim_filter_compile(&table, "str ~ \"hel*\"", &f, &e), 0);
	CHECK_EQ_INT(slim_filter_match(f, r.b, r.len, &ctx0), 1);
	CHECK_EQ_INT(slim_filter_match(f, r.b, FIXED + 2, &ctx0), 0);
	slim_filter_free(f);
}

static unsigned int rnd(unsigned int *seed, unsigned int n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) % n;
}

/* A random expression: mostly well-formed predicates, some damage. */
static size_t random_expr(unsigned int *seed, char *expr, size_t size)
{
	static const char *const field[] = {
		"u8f", "s8f", "u16f", "s16f", "u32f", "s32f", "u64f", "s64f",
		"name", "str", "arr", "ptr", "COMM", "CPU", "addr.function",
		"common_pid", "nope",
	};
	static const char *const op[] = {
		"==", "!=", "<", "<=", ">", ">=", "&", "~", "=", "",
	};
	static const char *const val[] = {
		"0", "1", "-1", "0x80", "077", "255", "\"a*\"", "'*b*'", "\"[!x]?\"",
		"\"\"", "\"*c\"", "CPUS{0}", "CPUS{0-N}", "qsort", "08", "\"a",
	};
	static const char *const glue[] = {
		" && ", " || ", " && !", " || (", ") && ", " & ", ")", "(", "!",
	};
	size_t n = 0;
	unsigned int k, parts;

#define PICK(a) a[rnd(seed, sizeof(a) / sizeof(a[0]))]
	parts = 1 + rnd(seed, 5);
	for (k = 0; k < parts && n + 64 < size; k++) {
		if (k)
			n += (size_t)snprintf(expr + n, size - n, "%s", PICK(glue));
		n += (size_t)snprintf(expr + n, size - n, "%s %s %s", PICK(field),
				      PICK(op), PICK(val));
		if (!rnd(seed, 8))	/* damage: any byte anywhere */
			expr[rnd(seed, (unsigned int)n)] = (char)(1 + rnd(seed, 255));
	}
#undef PICK
	expr[n] = '\0';
	return n;
}

/* Random expressions: never a crash, never a read outside the record. */
static void test_garbage(void)
{
	struct vals v = { .u8 = 1, .name = "bash", .str = "abc" };
	unsigned int seed = 12345, i, k;
	struct rec r;
	char expr[512];
	int compiled = 0, refused = 0, bad = 0;

	make_rec(&r, &v);
	for (i = 0; i < 20000; i++) {
		struct slim_filter *f = NULL;
		struct slim_filter_error e;

		random_expr(&seed, expr, sizeof(expr));
		if (!slim_filter_compile(&table, expr, &f, &e)) {
			compiled++;
			/* every prefix of the record, down to nothing */
			for (k = 0; k <= r.len; k += 5)
				slim_filter_match(f, r.b, k, &ctx0);
			slim_filter_match(f, r.b, r.len, NULL);
			slim_filter_free(f);
		} else {
			refused++;
			bad += e.code == SLIM_FERR_NONE || f != NULL;
		}
	}
	CHECK_EQ_INT(bad, 0);
	CHECK(compiled > 300);
	CHECK(refused > 1000);
}

/* Deep nesting and long chains must not exhaust the stack. */
static void test_deep(void)
{
	size_t depth = 100000, n = 0, i;
	char *s = malloc(depth * 24 + 64);
	struct slim_filter *f;
	struct slim_filter_error e;
	struct vals v = { .u8 = 1, .str = "" };
	struct rec r;

	if (!s)
		return;
	make_rec(&r, &v);
	for (i = 0; i < depth; i++)
		s[n++] = '(';
	n += (size_t)sprintf(s + n, "!!u8f == 1");
	for (i = 0; i < depth; i++)
		s[n++] = ')';
	s[n] = '\0';
	CHECK_EQ_INT(slim_filter_compile(&table, s, &f, &e), 0);
	if (f) {
		CHECK_EQ_INT(slim_filter_match(f, r.b, r.len, &ctx0), 1);
		slim_filter_free(f);
	}
	n = 0;
	for (i = 0; i < depth; i++)
		n += (size_t)sprintf(s + n, "%su8f == %zu", i ? " || " : "", i + 2);
	strcpy(s + n, " || u8f == 1");
	CHECK_EQ_INT(slim_filter_compile(&table, s, &f, &e), 0);
	if (f) {
		CHECK_EQ_INT(slim_filter_nr_preds(f), depth + 1);
		CHECK_EQ_INT(slim_filter_match(f, r.b, r.len, &ctx0), 1);
		slim_filter_free(f);
	}
	free(s);
}

/* One compiled filter, matched by several threads at once. */
struct thread_arg {
	const struct slim_filter *f;
	int id, wrong;
};

static void *thread_main(void *p)
{
	struct thread_arg *a = p;
	struct slim_filter_ctx ctx = { a->id & 1 ? "worker" : "main", a->id };
	struct vals v = { .str = "nginx" };
	struct rec r;
	int i, want;

	for (i = 0; i < 20000; i++) {
		v.u32 = (uint32_t)i;
		make_rec(&r, &v);
		want = (a->id & 1) || i < 100;
		a->wrong += slim_filter_match(a->f, r.b, r.len, &ctx) != want;
	}
	return NULL;
}

static void test_threads(void)
{
	struct slim_filter *f;
	struct slim_filter_error e;
	struct thread_arg a[4];
	pthread_t th[4];
	int i, started = 0, wrong = 0;

	CHECK_EQ_INT(slim_filter_compile(&table, "str ~ \"ngin*\" && "
					 "(COMM ~ \"w*\" || u32f < 100)", &f, &e), 0);
	if (!f)
		return;
	for (i = 0; i < 4; i++) {
		a[i] = (struct thread_arg){ f, i, 0 };
		if (pthread_create(&th[i], NULL, thread_main, &a[i]) == 0)
			started++;
	}
	for (i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		wrong += a[i].wrong;
	}
	CHECK_EQ_INT(started, 4);
	CHECK_EQ_INT(wrong, 0);
	slim_filter_free(f);
}

int main(void)
{
	build_table();
	test_grammar();
	test_numbers();
	test_truncation();
	test_strings();
	test_pseudo();
	test_field_shadows_pseudo();
	test_function();
	test_errors();
	test_error_text();
	test_text();
	test_fast_single();
	test_fast_chains();
	test_short_records();
	test_garbage();
	test_deep();
	test_threads();
	return check_done("filter");
}
