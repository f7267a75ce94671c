/* SPDX-License-Identifier: MIT */
/*
 * The dialect's kernel 6.x forms: bitmask, cpumask and __rel_loc fields,
 * __vstring, __string_len, conditions, reg()/unreg() functions,
 * TRACE_DEFINE_ENUM/SIZEOF and the %pS family.  Kernel style (compat).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ext

#if !defined(_TRACE_EXT_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_EXT_EVENTS_H

#include <stdarg.h>
#include <linux/tracepoint.h>

#ifndef EXT_EVENTS_HELPERS
#define EXT_EVENTS_HELPERS
enum ext_state {
	EXT_IDLE = 0,
	EXT_BUSY = 7,
	EXT_GONE = 12345678,	/* longer than its name */
};

struct ext_pair {
	int a, b;
};

/* How often the condition of ext_cond was evaluated. */
extern int ext_cond_evals;
static inline int ext_cond_check(int v)
{
	ext_cond_evals++;
	return v > 0;
}

int ext_fn_reg(void);
void ext_fn_unreg(void);
#endif

TRACE_DEFINE_ENUM(EXT_IDLE);
TRACE_DEFINE_ENUM(EXT_BUSY);
TRACE_DEFINE_ENUM(EXT_GONE);
TRACE_DEFINE_SIZEOF(struct ext_pair);

TRACE_EVENT(ext_masks,

	TP_PROTO(const unsigned long *bits, unsigned int nr_bits,
		 const struct cpumask *cpus),

	TP_ARGS(bits, nr_bits, cpus),

	TP_STRUCT__entry(
		__field(	unsigned int,	nr_bits		)
		__bitmask(	bits,		nr_bits		)
		__cpumask(	cpus				)
	),

	TP_fast_assign(
		__entry->nr_bits = nr_bits;
		__assign_bitmask(bits, bits, nr_bits);
		__assign_cpumask(cpus, cpumask_bits(cpus));
	),

	TP_printk("nr=%u bits=%s cpus=%s", __entry->nr_bits,
		  __get_bitmask(bits), __get_cpumask(cpus))
);

TRACE_EVENT(ext_rel,

	TP_PROTO(const char *name, int v, const unsigned char *blob, int blob_len,
		 const unsigned long *bits),

	TP_ARGS(name, v, blob, blob_len, bits),

	TP_STRUCT__entry(
		__rel_string(		name,	name			)
		__field(		int,	v			)
		__rel_dynamic_array(	u8,	blob,	blob_len	)
		__rel_bitmask(		bits,	64			)
		__rel_string_len(	part,	name,	name ? strnlen(name, 3) : 0)
	),

	TP_fast_assign(
		__assign_rel_str(name);
		__entry->v = v;
		memcpy(__get_rel_dynamic_array(blob), blob, blob_len);
		__assign_rel_bitmask(bits, bits, 64);
		__assign_rel_str(part);
	),

	TP_printk("name=%s v=%d blob=%s bits=%s part=%s",
		  __get_rel_str(name), __entry->v,
		  __print_hex(__get_rel_dynamic_array(blob), __entry->v > 0 ? 4 : 0),
		  __get_rel_bitmask(bits), __get_rel_str(part))
);

/* libtraceevent 1.7 crashes on __get_rel_dynamic_array_len: apart. */
DEFINE_EVENT_PRINT(ext_rel, ext_rel_len,
	TP_PROTO(const char *name, int v, const unsigned char *blob, int blob_len,
		 const unsigned long *bits),
	TP_ARGS(name, v, blob, blob_len, bits),
	TP_printk("len=%u blob=%s", __get_rel_dynamic_array_len(blob),
		  __print_hex(__get_rel_dynamic_array(blob),
			      __get_rel_dynamic_array_len(blob))));

TRACE_EVENT(ext_strings,

	TP_PROTO(const char *s, int len, const char *fmt, va_list *ap),

	TP_ARGS(s, len, fmt, ap),

	TP_STRUCT__entry(
		__string_len(	part,	s,	len	)
		__vstring(	msg,	fmt,	ap	)
	),

	TP_fast_assign(
		__assign_str_len(part, s, len);
		__assign_vstr(msg, fmt, ap);
	),

	TP_printk("part=%s msg=%s", __get_str(part), __get_str(msg))
);

TRACE_EVENT(ext_enum,

	TP_PROTO(int state, int n),

	TP_ARGS(state, n),

	TP_STRUCT__entry(
		__field(int, state)
		__field(int, n)
	),

	TP_fast_assign(
		__entry->state = state;
		__entry->n = n;
	),

	TP_printk("EXT_BUSY: state=%s busy=%d big=%d pair=%d n=%d",
		  __print_symbolic(__entry->state, { EXT_IDLE, "idle" },
				   { EXT_BUSY, "busy" }, { EXT_GONE, "gone" }),
		  __entry->state == EXT_BUSY, __entry->state == EXT_GONE,
		  (int)sizeof(struct ext_pair), __entry->n)
);

TRACE_EVENT(ext_syms,

	TP_PROTO(const void *fn, const void *ret),

	TP_ARGS(fn, ret),

	TP_STRUCT__entry(
		__field(const void *, fn)
		__field(const void *, ret)
	),

	TP_fast_assign(
		__entry->fn = fn;
		__entry->ret = ret;
	),

	TP_printk("S=%pS s=%ps B=%pB x=%px", __entry->fn, __entry->fn,
		  __entry->ret, __entry->fn)
);

TRACE_EVENT_CONDITION(ext_cond,

	TP_PROTO(int v),

	TP_ARGS(v),

	TP_CONDITION(ext_cond_check(v)),

	TP_STRUCT__entry(
		__field(int, v)
	),

	TP_fast_assign(
		__entry->v = v;
	),

	TP_printk("v=%d", __entry->v)
);

TRACE_EVENT_FN(ext_fn,

	TP_PROTO(int v),

	TP_ARGS(v),

	TP_STRUCT__entry(
		__field(int, v)
	),

	TP_fast_assign(
		__entry->v = v;
	),

	TP_printk("v=%d", __entry->v),

	ext_fn_reg, ext_fn_unreg
);

DECLARE_EVENT_CLASS(ext_class,

	TP_PROTO(int v),

	TP_ARGS(v),

	TP_STRUCT__entry(
		__field(int, v)
	),

	TP_fast_assign(
		__entry->v = v;
	),

	TP_printk("class v=%d", __entry->v)
);

DEFINE_EVENT_CONDITION(ext_class, ext_class_cond,
	TP_PROTO(int v),
	TP_ARGS(v),
	TP_CONDITION(!(v % 2)));

DEFINE_EVENT_FN(ext_class, ext_class_fn,
	TP_PROTO(int v),
	TP_ARGS(v),
	ext_fn_reg, NULL);

TRACE_EVENT_FN_COND(ext_fn_cond,

	TP_PROTO(int v),

	TP_ARGS(v),

	TP_CONDITION(v != 3),

	TP_STRUCT__entry(
		__field(int, v)
	),

	TP_fast_assign(
		__entry->v = v;
	),

	TP_printk("v=%d", __entry->v),

	NULL, ext_fn_unreg
);

TRACE_EVENT(ext_noargs,

	TP_PROTO(int v),

	TP_ARGS(v),

	TP_STRUCT__entry(
		__field(int, v)
	),

	TP_fast_assign(
		__entry->v = v;
	),

	TP_printk("no arguments")
);

DECLARE_TRACE_CONDITION(ext_bare_cond,
	TP_PROTO(int v),
	TP_ARGS(v),
	TP_CONDITION(v > 10));

#endif /* _TRACE_EXT_EVENTS_H */

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE ext_events
#include <trace/define_trace.h>
