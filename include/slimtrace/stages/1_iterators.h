/* SPDX-License-Identifier: MIT */
/*
 * Stage 1: tracepoints and iterators.
 *
 * DECLARE_TRACE	the tracepoint, its "slim_tracepoints" entry and
 *			its iterator __slim_iter_tp_<name>()
 * DECLARE_EVENT_CLASS	the class's iterator __slim_iter_<class>(), which
 *			every event of the class calls
 * DEFINE_EVENT		nothing yet (stage 8)
 */
#define DECLARE_TRACE(name, proto, args)				\
	__SLIM_DEFINE_TRACE_BODY(name, PARAMS(proto), PARAMS(args))	\
	__SLIM_END
#define DECLARE_TRACE_NOARGS(name)					\
	__SLIM_DEFINE_TRACE_NOARGS_BODY(name)				\
	__SLIM_END
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)	\
	__SLIM_DEFINE_ITER(__slim_iter_##name, PARAMS(proto), PARAMS(args)) \
	__SLIM_END
#define DEFINE_EVENT(template, name, proto, args)	__SLIM_END
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)	__SLIM_END
