/* SPDX-License-Identifier: MIT */
/* Between stages: forget the last stage's meanings, set the shared ones. */
#include <slimtrace/stages/undef.h>
#include <slimtrace/stages/compose.h>
#include <slimtrace/stages/fields.h>

/*
 * What a stage does not define itself.  A condition only matters at the
 * call site (the first pass); reg()/unreg() only to stage 9.
 */
#define DECLARE_TRACE_CONDITION(name, proto, args, cond)		\
	DECLARE_TRACE(name, PARAMS(proto), PARAMS(args))
#define DEFINE_EVENT_CONDITION(template, name, proto, args, cond)	\
	DEFINE_EVENT(template, name, PARAMS(proto), PARAMS(args))
#define DEFINE_EVENT_FN(template, name, proto, args, reg, unreg)	\
	DEFINE_EVENT(template, name, PARAMS(proto), PARAMS(args));	\
	__SLIM_EVENT_FNS(template, name, reg, unreg)
#define __SLIM_EVENT_FN_COND(template, name, proto, args, cond, reg, unreg) \
	DEFINE_EVENT_FN(template, name, PARAMS(proto), PARAMS(args), reg, unreg)
#define __SLIM_EVENT_FNS(template, name, reg, unreg)	__SLIM_END
#define TRACE_DEFINE_ENUM(a)		__SLIM_END
#define TRACE_DEFINE_SIZEOF(a)		__SLIM_END
#define TP_STRUCT__entry(...)		__VA_ARGS__
