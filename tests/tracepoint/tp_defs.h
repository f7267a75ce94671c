/* Bare tracepoints for test_tracepoint: the kernel's DECLARE_TRACE forms. */
#ifndef TP_DEFS_H
#define TP_DEFS_H
#include <slimtrace/tracepoint.h>

DECLARE_TRACE(tp_two, TP_PROTO(int a, long b), TP_ARGS(a, b));
DECLARE_TRACE_NOARGS(tp_none);
#endif
