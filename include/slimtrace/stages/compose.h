/* SPDX-License-Identifier: MIT */
/*
 * The event forms built from others, the same in every pass: dialect.h
 * includes this for the first pass, reset.h before each stage, so that
 * each stage defines only DECLARE_EVENT_CLASS, DEFINE_EVENT and the
 * forms whose meaning it changes.  Not guarded: it is read again after
 * every undef.h.
 *
 *	TRACE_EVENT		a class and one event of the same name
 *	TRACE_EVENT_CONDITION	... whose call site tests a condition
 *	TRACE_EVENT_FN		... with reg()/unreg() functions
 *	TRACE_EVENT_FN_COND	both
 */
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)		\
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args),		\
			    PARAMS(tstruct), PARAMS(assign), PARAMS(print)); \
	DEFINE_EVENT(name, name, PARAMS(proto), PARAMS(args))
#define TRACE_EVENT_CONDITION(name, proto, args, cond, tstruct, assign, print) \
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args),		\
			    PARAMS(tstruct), PARAMS(assign), PARAMS(print)); \
	DEFINE_EVENT_CONDITION(name, name, PARAMS(proto), PARAMS(args),	\
			       PARAMS(cond))
#define TRACE_EVENT_FN(name, proto, args, tstruct, assign, print, reg, unreg) \
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args),		\
			    PARAMS(tstruct), PARAMS(assign), PARAMS(print)); \
	DEFINE_EVENT_FN(name, name, PARAMS(proto), PARAMS(args), reg, unreg)
#define TRACE_EVENT_FN_COND(name, proto, args, cond, tstruct, assign,	\
			    print, reg, unreg)				\
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args),		\
			    PARAMS(tstruct), PARAMS(assign), PARAMS(print)); \
	__SLIM_EVENT_FN_COND(name, name, PARAMS(proto), PARAMS(args),	\
			     PARAMS(cond), reg, unreg)
/* The kernel has no DEFINE_EVENT_FN_COND; TRACE_EVENT_FN_COND needs one. */

/* Kernel helpers with no user-space meaning: accepted, generate nothing. */
#define TRACE_EVENT_FLAGS(event, flag)
#define TRACE_EVENT_PERF_PERM(event, ...)
