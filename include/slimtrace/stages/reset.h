/* SPDX-License-Identifier: MIT */
/* Between stages: forget the last stage's meanings, set the shared ones. */
#include <slimtrace/stages/undef.h>

/* In every stage: TRACE_EVENT is a class with one event of its own name. */
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)		\
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args),		\
			    PARAMS(tstruct), PARAMS(assign), PARAMS(print)); \
	DEFINE_EVENT(name, name, PARAMS(proto), PARAMS(args))
#define TRACE_DEFINE_ENUM(a)
#define TRACE_DEFINE_SIZEOF(a)
#define TRACE_EVENT_FLAGS(event, flag)
#define TRACE_EVENT_PERF_PERM(event, expr...)
#define TP_STRUCT__entry(args...)	args
