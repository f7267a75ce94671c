/* SPDX-License-Identifier: MIT */
/*
 * test_headers: a trace header that uses every form of the dialect, with
 * code of its own that a strict build accepts, so that any warning comes
 * from slimtrace's headers.  Built as C99, C11 and C17 (GNU and ISO) with
 * -Wall -Wextra -Wconversion -Wsign-conversion -Wcast-qual -Wshadow
 * -Wpedantic -Werror, and called from C++.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM strict

#if !defined(_TRACE_STRICT_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_STRICT_EVENTS_H

#include <slimtrace/tracepoint.h>

#ifndef STRICT_EVENTS_HELPERS
#define STRICT_EVENTS_HELPERS
enum strict_mode { STRICT_OFF = 0, STRICT_ON = 3 };
struct strict_pair { int a, b; };
SLIM_BEGIN_DECLS
int strict_reg(void);
void strict_unreg(void);
SLIM_END_DECLS
#endif

TRACE_DEFINE_ENUM(STRICT_ON);
TRACE_DEFINE_SIZEOF(struct strict_pair);

DECLARE_TRACE(strict_bare, TP_PROTO(int a, const char *s), TP_ARGS(a, s));
DECLARE_TRACE_NOARGS(strict_noargs);
DECLARE_TRACE_CONDITION(strict_bare_cond, TP_PROTO(int a), TP_ARGS(a), TP_CONDITION(a > 0));

TRACE_EVENT(strict_all,
	TP_PROTO(char c, unsigned char u, short s, long l, unsigned long long q,
		 const char *name, const unsigned char *blob, unsigned int blob_len,
		 const unsigned long *bits, const void *mask),
	TP_ARGS(c, u, s, l, q, name, blob, blob_len, bits, mask),
	TP_STRUCT__entry(
		__field(char, c)
		__field(unsigned char, u)
		__field_ext(short, s, SLIM_FILTER_OTHER)
		__field(long, l)
		__field(unsigned long long, q)
		__array(char, tag, 4)
		__string(name, name)
		__string_len(part, name, 2)
		__dynamic_array(unsigned char, blob, blob_len)
		__bitmask(bits, 64)
		__cpumask(cpus)
		__rel_string(rname, name)
		__rel_dynamic_array(unsigned char, rblob, blob_len)
		__rel_bitmask(rbits, 64)
	),
	TP_fast_assign(
		__entry->c = (unsigned char)c;
		__entry->u = u;
		__entry->s = s;
		__entry->l = l;
		__entry->q = q;
		memcpy(__entry->tag, "tag", 4);
		__assign_str(name);
		__assign_str(part, name);
		memcpy(__get_dynamic_array(blob), blob, blob_len);
		__assign_bitmask(bits, bits, 64);
		__assign_cpumask(cpus, mask);
		__assign_rel_str(rname);
		memcpy(__get_rel_dynamic_array(rblob), blob, blob_len);
		__assign_rel_bitmask(rbits, bits, 64);
	),
	TP_printk("c=%d u=%u s=%d l=%ld q=%llu tag=%s name=%s part=%s blob=%s bits=%s "
		  "cpus=%s rname=%s rblob=%s rbits=%s mode=%s",
		  __entry->c, __entry->u, __entry->s, __entry->l, __entry->q,
		  __entry->tag, __get_str(name), __get_str(part),
		  __print_hex(__get_dynamic_array(blob), __get_dynamic_array_len(blob)),
		  __get_bitmask(bits), __get_cpumask(cpus), __get_rel_str(rname),
		  __print_hex_str(__get_rel_dynamic_array(rblob),
				  __get_rel_dynamic_array_len(rblob)),
		  __get_rel_bitmask(rbits),
		  __print_symbolic(__entry->u, { STRICT_OFF, "off" }, { STRICT_ON, "on" }))
);

DECLARE_EVENT_CLASS(strict_class,
	TP_PROTO(int a, unsigned long flags),
	TP_ARGS(a, flags),
	TP_STRUCT__entry(
		__field(int, a)
		__field(unsigned long, flags)
	),
	TP_fast_assign(
		__entry->a = a;
		__entry->flags = flags;
	),
	TP_printk("a=%d flags=%s size=%d", __entry->a,
		  __print_flags(__entry->flags, "|", { 1, "ONE" }, { 2, "TWO" }),
		  (int)sizeof(struct strict_pair))
);

DEFINE_EVENT(strict_class, strict_first, TP_PROTO(int a, unsigned long flags),
	     TP_ARGS(a, flags));
DEFINE_EVENT_PRINT(strict_class, strict_print, TP_PROTO(int a, unsigned long flags),
		   TP_ARGS(a, flags), TP_printk("printed a=%d", __entry->a));
DEFINE_EVENT_CONDITION(strict_class, strict_cond, TP_PROTO(int a, unsigned long flags),
		       TP_ARGS(a, flags), TP_CONDITION(a % 2 == 0));
DEFINE_EVENT_FN(strict_class, strict_fn, TP_PROTO(int a, unsigned long flags),
		TP_ARGS(a, flags), strict_reg, strict_unreg);

TRACE_EVENT_CONDITION(strict_tcond,
	TP_PROTO(int a),
	TP_ARGS(a),
	TP_CONDITION(a != 0),
	TP_STRUCT__entry(__field(int, a)),
	TP_fast_assign(__entry->a = a;),
	TP_printk("a=%d", __entry->a)
);

TRACE_EVENT_FN(strict_tfn,
	TP_PROTO(int a),
	TP_ARGS(a),
	TP_STRUCT__entry(__field(int, a)),
	TP_fast_assign(__entry->a = a;),
	TP_printk("no args"),
	strict_reg, NULL
);

TRACE_EVENT(strict_vstr,
	TP_PROTO(const char *fmt, slim_va_list *ap),
	TP_ARGS(fmt, ap),
	TP_STRUCT__entry(__vstring(msg, fmt, ap)),
	TP_fast_assign(__assign_vstr(msg, fmt, ap);),
	TP_printk("msg=%s", __get_str(msg))
);

#endif /* _TRACE_STRICT_EVENTS_H */

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE strict_events
#include <slimtrace/define_trace.h>
