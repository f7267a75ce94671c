/* SPDX-License-Identifier: MIT */
/* Kernel-style header: irq_handler_entry's fields, plus the kernel integer types. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM irq

#if !defined(_TRACE_IRQ_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_IRQ_H

#include <linux/tracepoint.h>

TRACE_EVENT(irq_handler_entry,

	TP_PROTO(int irq, const char *name),

	TP_ARGS(irq, name),

	TP_STRUCT__entry(
		__field(	int,	irq		)
		__string(	name,	name		)
	),

	TP_fast_assign(
		__entry->irq = irq;
		__assign_str(name);
	),

	TP_printk("irq=%d name=%s", __entry->irq, __get_str(name))
);

TRACE_EVENT(irq_kernel_types,

	TP_PROTO(u8 a, u16 b, u32 c, u64 d, s8 e, s16 f, s32 g, s64 h),

	TP_ARGS(a, b, c, d, e, f, g, h),

	TP_STRUCT__entry(
		__field(u8, a)
		__field(u16, b)
		__field(u32, c)
		__field(u64, d)
		__field(s8, e)
		__field(s16, f)
		__field(s32, g)
		__field_ext(s64, h, FILTER_OTHER)
	),

	TP_fast_assign(
		__entry->a = a; __entry->b = b; __entry->c = c; __entry->d = d;
		__entry->e = e; __entry->f = f; __entry->g = g; __entry->h = h;
	),

	TP_printk("a=%u b=%u c=%u d=%llu e=%d f=%d g=%d h=%lld",
		  __entry->a, __entry->b, __entry->c,
		  (unsigned long long)__entry->d, __entry->e, __entry->f,
		  __entry->g, (long long)__entry->h)
);

#endif /* _TRACE_IRQ_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
