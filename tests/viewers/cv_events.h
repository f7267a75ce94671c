/*
 * Events for tests/test_viewers.c: every integer size and signedness, a
 * pointer, fixed and dynamic arrays, strings, and a request's start and
 * end for slices.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM cvtest

#if !defined(_TRACE_CV_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_CV_EVENTS_H

#include <stdint.h>
#include <string.h>
#include <slimtrace/tracepoint.h>

#define CV_NR_FIXED	4

TRACE_EVENT(cv_ints,
	TP_PROTO(uint8_t a, int8_t b, uint16_t c, int16_t d, uint32_t e, int32_t f,
		 uint64_t g, int64_t h, const void *p),
	TP_ARGS(a, b, c, d, e, f, g, h, p),
	TP_STRUCT__entry(
		__field(uint8_t, a)
		__field(int8_t, b)
		__field(uint16_t, c)
		__field(int16_t, d)
		__field(uint32_t, e)
		__field(int32_t, f)
		__field(uint64_t, g)
		__field(int64_t, h)
		__field(const void *, p)
	),
	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
		__entry->c = c;
		__entry->d = d;
		__entry->e = e;
		__entry->f = f;
		__entry->g = g;
		__entry->h = h;
		__entry->p = p;
	),
	TP_printk("a=%u b=%d c=%u d=%d e=%u f=%d g=%llu h=%lld p=%p", __entry->a, __entry->b,
		  __entry->c, __entry->d, __entry->e, __entry->f,
		  (unsigned long long)__entry->g, (long long)__entry->h, __entry->p)
);

TRACE_EVENT(cv_arrays,
	TP_PROTO(const int *fixed, const uint16_t *dyn, int n, const char *name, const char *tag),
	TP_ARGS(fixed, dyn, n, name, tag),
	TP_STRUCT__entry(
		__array(int, fixed, CV_NR_FIXED)
		__dynamic_array(uint16_t, dyn, n)
		__string(name, name)
		__array(char, tag, 8)
	),
	TP_fast_assign(
		memcpy(__entry->fixed, fixed, sizeof(__entry->fixed));
		memcpy(__get_dynamic_array(dyn), dyn, n * sizeof(*dyn));
		__assign_str(name, name);
		strncpy(__entry->tag, tag, sizeof(__entry->tag) - 1);
		__entry->tag[sizeof(__entry->tag) - 1] = '\0';
	),
	TP_printk("fixed=%s dyn=%s name=%s tag=%s",
		  __print_array(__entry->fixed, CV_NR_FIXED, 4),
		  __print_array(__get_dynamic_array(dyn), __get_dynamic_array_len(dyn) / 2, 2),
		  __get_str(name), __entry->tag)
);

TRACE_EVENT(cv_start,
	TP_PROTO(int id, const char *what),
	TP_ARGS(id, what),
	TP_STRUCT__entry(
		__field(int, id)
		__string(what, what)
	),
	TP_fast_assign(
		__entry->id = id;
		__assign_str(what, what);
	),
	TP_printk("id=%d what=%s", __entry->id, __get_str(what))
);

TRACE_EVENT(cv_end,
	TP_PROTO(int id, int status),
	TP_ARGS(id, status),
	TP_STRUCT__entry(
		__field(int, id)
		__field(int, status)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->status = status;
	),
	TP_printk("id=%d status=%d", __entry->id, __entry->status)
);

#endif /* _TRACE_CV_EVENTS_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE cv_events
#include <slimtrace/define_trace.h>
