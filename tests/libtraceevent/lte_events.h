/* SPDX-License-Identifier: MIT */
/*
 * Events for the libtraceevent cross-check: between them they use every
 * field kind (__field of each width and signedness, __array, __string,
 * __string_len, __dynamic_array) and every print helper, with the printf
 * conversions kernel trace headers use.  Kernel style: built with
 * -I include/slimtrace/compat.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM lte

#if !defined(_TRACE_LTE_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_LTE_EVENTS_H

#include <linux/types.h>
#include <linux/tracepoint.h>

#define LTE_NAME_LEN	12
#define LTE_NR_VALS	4

/* Every integer width, both signednesses, kernel type names. */
TRACE_EVENT(lte_ints,

	TP_PROTO(u8 a, s8 b, u16 c, s16 d, u32 e, s32 f, u64 g, s64 h),

	TP_ARGS(a, b, c, d, e, f, g, h),

	TP_STRUCT__entry(
		__field(u8,	a)
		__field(s8,	b)
		__field(u16,	c)
		__field(s16,	d)
		__field(u32,	e)
		__field(s32,	f)
		__field(u64,	g)
		__field(s64,	h)
	),

	TP_fast_assign(
		__entry->a = a; __entry->b = b; __entry->c = c; __entry->d = d;
		__entry->e = e; __entry->f = f; __entry->g = g; __entry->h = h;
	),

	TP_printk("a=%u b=%d c=%u d=%d e=%u f=%d g=%llu h=%lld",
		  __entry->a, __entry->b, __entry->c, __entry->d, __entry->e,
		  __entry->f, (unsigned long long)__entry->g,
		  (long long)__entry->h)
);

/* The same widths under their C names, and long, size_t, bool, pointers. */
TRACE_EVENT(lte_ctypes,

	TP_PROTO(unsigned char a, signed char b, unsigned short c, short d,
		 unsigned int e, int f, long g, unsigned long h,
		 long long i, unsigned long long j, size_t k, bool l,
		 const void *p),

	TP_ARGS(a, b, c, d, e, f, g, h, i, j, k, l, p),

	TP_STRUCT__entry(
		__field(unsigned char,		a)
		__field(signed char,		b)
		__field(unsigned short,		c)
		__field(short,			d)
		__field(unsigned int,		e)
		__field(int,			f)
		__field(long,			g)
		__field(unsigned long,		h)
		__field(long long,		i)
		__field(unsigned long long,	j)
		__field(size_t,			k)
		__field(bool,			l)
		__field(const void *,		p)
	),

	TP_fast_assign(
		__entry->a = a; __entry->b = b; __entry->c = c; __entry->d = d;
		__entry->e = e; __entry->f = f; __entry->g = g; __entry->h = h;
		__entry->i = i; __entry->j = j; __entry->k = k; __entry->l = l;
		__entry->p = p;
	),

	TP_printk("a=%u b=%d c=%u d=%d e=%u f=%d g=%ld h=%lu i=%lld j=%llu k=%zu l=%d p=%p",
		  __entry->a, __entry->b, __entry->c, __entry->d, __entry->e,
		  __entry->f, __entry->g, __entry->h, __entry->i, __entry->j,
		  __entry->k, __entry->l, __entry->p)
);

/* printf conversions, flags, widths and length modifiers. */
TRACE_EVENT(lte_conv,

	TP_PROTO(int n, unsigned int u, unsigned long ul, u64 x),

	TP_ARGS(n, u, ul, x),

	TP_STRUCT__entry(
		__field(int,		n)
		__field(unsigned int,	u)
		__field(unsigned long,	ul)
		__field(u64,		x)
	),

	TP_fast_assign(
		__entry->n = n; __entry->u = u; __entry->ul = ul; __entry->x = x;
	),

	TP_printk("%03d|%5d|%-5d|%i|%.4d|%x|%08x|%X|%o|%5u|%-4u|%lx|%lu|%ld|%zu|%zx|%llx|%016llx|%hu|%hd|%hhu|100%%",
		  __entry->n, __entry->n, __entry->n, __entry->n, __entry->n,
		  __entry->u, __entry->u, __entry->u, __entry->u, __entry->u,
		  __entry->u, __entry->ul, __entry->ul, __entry->ul,
		  (size_t)__entry->ul, (size_t)__entry->ul,
		  (unsigned long long)__entry->x, (unsigned long long)__entry->x,
		  (unsigned short)__entry->u, (short)__entry->n,
		  (unsigned char)__entry->u)
);

/* The # flag: the kernel writes the 0x prefix even on zero, glibc does not. */
TRACE_EVENT(lte_alt,

	TP_PROTO(unsigned int u, unsigned long ul, u64 x),

	TP_ARGS(u, ul, x),

	TP_STRUCT__entry(
		__field(unsigned int,	u)
		__field(unsigned long,	ul)
		__field(u64,		x)
	),

	TP_fast_assign(
		__entry->u = u; __entry->ul = ul; __entry->x = x;
	),

	TP_printk("x=%#x X=%#X lx=%#lx llx=%#llx o=%#o pad=%#08x",
		  __entry->u, __entry->u, __entry->ul,
		  (unsigned long long)__entry->x, __entry->u, __entry->u)
);

/* Conversions the kernel has and libtraceevent lacks: %c and the + flag. */
TRACE_EVENT(lte_conv_ext,

	TP_PROTO(char c, int n),

	TP_ARGS(c, n),

	TP_STRUCT__entry(
		__field(char,	c)
		__field(int,	n)
	),

	TP_fast_assign(
		__entry->c = c;
		__entry->n = n;
	),

	TP_printk("c=%c n=%+d", __entry->c, __entry->n)
);

/* A char as a number, a char array as text, a byte array as hex. */
TRACE_EVENT(lte_chars,

	TP_PROTO(char c, const char *name, const unsigned char *raw),

	TP_ARGS(c, name, raw),

	TP_STRUCT__entry(
		__field(char,	c)
		__array(char,	name,	LTE_NAME_LEN)
		__array(u8,	raw,	6)
	),

	TP_fast_assign(
		__entry->c = c;
		strncpy(__entry->name, name, LTE_NAME_LEN);
		__entry->name[LTE_NAME_LEN - 1] = '\0';
		memcpy(__entry->raw, raw, 6);
	),

	TP_printk("code=%d name=%s raw=%s",
		  __entry->c, __entry->name, __print_hex(__entry->raw, 6))
);

/* Strings: __string and __string_len. */
TRACE_EVENT(lte_strings,

	TP_PROTO(const char *s, const char *t, int tlen, int n),

	TP_ARGS(s, t, tlen, n),

	TP_STRUCT__entry(
		__string(	s,	s		)
		__string_len(	t,	t,	tlen	)
		__field(	int,	n		)
	),

	TP_fast_assign(
		__assign_str(s);
		__assign_str(t);
		__entry->n = n;
	),

	TP_printk("s=%s t=%s n=%d slen=%u", __get_str(s), __get_str(t),
		  __entry->n, __get_dynamic_array_len(s))
);

/* Dynamic arrays of bytes, as hex and as hex string. */
TRACE_EVENT(lte_bytes,

	TP_PROTO(const u8 *buf, int len, int tag),

	TP_ARGS(buf, len, tag),

	TP_STRUCT__entry(
		__field(int,			tag)
		__dynamic_array(u8,	buf,	len)
	),

	TP_fast_assign(
		__entry->tag = tag;
		memcpy(__get_dynamic_array(buf), buf, len);
	),

	TP_printk("tag=%d len=%d hex=[%s] str=[%s]", __entry->tag,
		  __get_dynamic_array_len(buf),
		  __print_hex(__get_dynamic_array(buf), __get_dynamic_array_len(buf)),
		  __print_hex_str(__get_dynamic_array(buf), __get_dynamic_array_len(buf)))
);

/*
 * __print_array on a dynamic array of each element size, and on an
 * __array.  The element size is a literal: libtraceevent 1.7.1 reads freed
 * memory when it parses sizeof(type) in a print fmt.
 */
TRACE_EVENT(lte_arrays,

	TP_PROTO(const u8 *b, int nb, const u16 *h, int nh, const u32 *w, int nw,
		 const u64 *q, int nq, const int *fixed),

	TP_ARGS(b, nb, h, nh, w, nw, q, nq, fixed),

	TP_STRUCT__entry(
		__dynamic_array(u8,	b,	nb)
		__dynamic_array(u16,	h,	nh)
		__dynamic_array(u32,	w,	nw)
		__dynamic_array(u64,	q,	nq)
		__array(int,		fixed,	LTE_NR_VALS)
	),

	TP_fast_assign(
		memcpy(__get_dynamic_array(b), b, nb * sizeof(*b));
		memcpy(__get_dynamic_array(h), h, nh * sizeof(*h));
		memcpy(__get_dynamic_array(w), w, nw * sizeof(*w));
		memcpy(__get_dynamic_array(q), q, nq * sizeof(*q));
		memcpy(__entry->fixed, fixed, sizeof(__entry->fixed));
	),

	TP_printk("b=%s h=%s w=%s q=%s fixed=%s",
		  __print_array(__get_dynamic_array(b), __get_dynamic_array_len(b), 1),
		  __print_array(__get_dynamic_array(h), __get_dynamic_array_len(h) / 2, 2),
		  __print_array(__get_dynamic_array(w), __get_dynamic_array_len(w) / 4, 4),
		  __print_array(__get_dynamic_array(q), __get_dynamic_array_len(q) / 8, 8),
		  __print_array(__entry->fixed, LTE_NR_VALS, 4))
);

/* __print_flags and __print_symbolic, with known and unknown values. */
TRACE_EVENT(lte_flags,

	TP_PROTO(unsigned long flags, unsigned int mode, int state, u64 big),

	TP_ARGS(flags, mode, state, big),

	TP_STRUCT__entry(
		__field(unsigned long,	flags)
		__field(unsigned int,	mode)
		__field(int,		state)
		__field(u64,		big)
	),

	TP_fast_assign(
		__entry->flags = flags;
		__entry->mode = mode;
		__entry->state = state;
		__entry->big = big;
	),

	TP_printk("flags=%s mode=%s state=%s big=%s",
		  __print_flags(__entry->flags, "|",
				{ 0x01, "READ" }, { 0x02, "WRITE" },
				{ 0x0c, "RW_EXEC" }, { 0x100, "SYNC" }),
		  __print_flags(__entry->mode, ", ",
				{ 1, "A" }, { 2, "B" }, { 4, "C" }),
		  __print_symbolic(__entry->state,
				   { 0, "IDLE" }, { 1, "RUNNING" },
				   { 2, "BLOCKED" }, { 100, "DEAD" }),
		  __print_symbolic(__entry->big,
				   { 1, "ONE" }, { 0x100000000, "FOUR_G" }))
);

/* __print_symbolic_u64, with values past 32 bits. */
TRACE_EVENT(lte_sym64,

	TP_PROTO(u64 val),

	TP_ARGS(val),

	TP_STRUCT__entry(
		__field(u64,	val)
	),

	TP_fast_assign(
		__entry->val = val;
	),

	TP_printk("val=%s",
		  __print_symbolic_u64(__entry->val,
				       { 1, "ONE" },
				       { 0x100000000ULL, "FOUR_G" },
				       { 0xffffffffffffffffULL, "ALL" }))
);

/* Expressions in the print arguments: arithmetic, ternaries, casts. */
TRACE_EVENT(lte_expr,

	TP_PROTO(int a, int b, unsigned int bits),

	TP_ARGS(a, b, bits),

	TP_STRUCT__entry(
		__field(int,		a)
		__field(int,		b)
		__field(unsigned int,	bits)
	),

	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
		__entry->bits = bits;
	),

	TP_printk("sum=%d diff=%d prod=%d hi=%u lo=%u mask=%x sign=%s eq=%d",
		  __entry->a + __entry->b, __entry->a - __entry->b,
		  __entry->a * __entry->b, __entry->bits >> 16,
		  __entry->bits & 0xffff, __entry->bits | 0x1,
		  __entry->a < 0 ? "neg" : "nonneg", __entry->a == __entry->b)
);

#endif /* _TRACE_LTE_EVENTS_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE lte_events
#include <trace/define_trace.h>
