/* A trace header in the kernel's dialect that uses every macro slimtrace supports. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sample

#if !defined(_TRACE_SAMPLE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SAMPLE_H

#include <slimtrace/tracepoint.h>

#define SAMPLE_NAME_LEN 8

DECLARE_TRACE(sample_bare, TP_PROTO(int a, const char *s), TP_ARGS(a, s));
DECLARE_TRACE_NOARGS(sample_noargs);

TRACE_EVENT(sample_all,
	TP_PROTO(int a, long b, unsigned char c, const char *name,
		 const void *blob, int blob_len, unsigned long flags,
		 int state),
	TP_ARGS(a, b, c, name, blob, blob_len, flags, state),
	TP_STRUCT__entry(
		__field(int, a)
		__field_ext(long, b, SLIM_FILTER_OTHER)
		__field(unsigned char, c)
		__array(char, tag, SAMPLE_NAME_LEN)
		__string(name, name)
		__dynamic_array(unsigned char, blob, blob_len)
		__field(unsigned long, flags)
		__field(int, state)
	),
	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
		__entry->c = c;
		memset(__entry->tag, 0, SAMPLE_NAME_LEN);
		memcpy(__entry->tag, "tagged", 6);
		__assign_str(name, name);
		memcpy(__get_dynamic_array(blob), blob, blob_len);
		__entry->flags = flags;
		__entry->state = state;
	),
	TP_printk("a=%d b=%ld c=%u tag=%s name=%s blob=%s len=%u flags=%s state=%s",
		  __entry->a, __entry->b, __entry->c, __entry->tag,
		  __get_str(name),
		  __print_hex(__get_dynamic_array(blob),
			      __get_dynamic_array_len(blob)),
		  __get_dynamic_array_len(blob),
		  __print_flags(__entry->flags, "|",
				{ 0x1, "READ" }, { 0x2, "WRITE" }, { 0x4, "EXEC" }),
		  __print_symbolic(__entry->state,
				   { 0, "IDLE" }, { 1, "RUNNING" }, { 2, "DEAD" }))
);

DECLARE_EVENT_CLASS(sample_pair,
	TP_PROTO(int a, long b),
	TP_ARGS(a, b),
	TP_STRUCT__entry(
		__field(int, a)
		__field(long, b)
	),
	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
	),
	TP_printk("a=%d b=%ld", __entry->a, __entry->b)
);

DEFINE_EVENT(sample_pair, sample_first, TP_PROTO(int a, long b), TP_ARGS(a, b));
DEFINE_EVENT(sample_pair, sample_second, TP_PROTO(int a, long b), TP_ARGS(a, b));
DEFINE_EVENT_PRINT(sample_pair, sample_custom,
	TP_PROTO(int a, long b), TP_ARGS(a, b),
	TP_printk("custom sum=%ld", __entry->a + __entry->b));

#endif /* _TRACE_SAMPLE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE sample_events
#include <slimtrace/define_trace.h>
