/* SPDX-License-Identifier: MIT */
/* Kernel-style header: kmalloc's fields. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kmem

#if !defined(_TRACE_KMEM_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_KMEM_H

#include <linux/types.h>
#include <linux/tracepoint.h>

TRACE_EVENT(kmalloc,

	TP_PROTO(unsigned long call_site, const void *ptr, size_t bytes_req,
		 size_t bytes_alloc, unsigned long gfp_flags, int node),

	TP_ARGS(call_site, ptr, bytes_req, bytes_alloc, gfp_flags, node),

	TP_STRUCT__entry(
		__field(	unsigned long,	call_site	)
		__field(	const void *,	ptr		)
		__field(	size_t,		bytes_req	)
		__field(	size_t,		bytes_alloc	)
		__field(	unsigned long,	gfp_flags	)
		__field(	int,		node		)
	),

	TP_fast_assign(
		__entry->call_site	= call_site;
		__entry->ptr		= ptr;
		__entry->bytes_req	= bytes_req;
		__entry->bytes_alloc	= bytes_alloc;
		__entry->gfp_flags	= gfp_flags;
		__entry->node		= node;
	),

	TP_printk("call_site=%lx ptr=%p bytes_req=%zu bytes_alloc=%zu gfp_flags=%s node=%d",
		__entry->call_site, __entry->ptr, __entry->bytes_req,
		__entry->bytes_alloc,
		__print_flags(__entry->gfp_flags, "|",
			{ 0x400 | 0x800 | 0x40 | 0x80, "GFP_KERNEL" },
			{ 0x20 | 0x800, "GFP_ATOMIC" },
			{ 0x100, "__GFP_ZERO" }),
		__entry->node)
);

#endif /* _TRACE_KMEM_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
