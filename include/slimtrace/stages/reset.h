/* SPDX-License-Identifier: MIT */
/* Between stages: forget what the dialect's macros meant in the last one. */
#undef DECLARE_TRACE
#undef DECLARE_TRACE_NOARGS
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_PRINT
#undef TRACE_EVENT
#undef TRACE_DEFINE_ENUM
#undef TRACE_DEFINE_SIZEOF
#undef TRACE_EVENT_FLAGS
#undef TRACE_EVENT_PERF_PERM

#undef TP_STRUCT__entry
#undef __field
#undef __field_ext
#undef __field_struct
#undef __field_struct_ext
#undef __array
#undef __dynamic_array
#undef __string
#undef __string_len

#undef TP_fast_assign
#undef TP_printk
#undef __entry
#undef __get_str
#undef __get_dynamic_array
#undef __get_dynamic_array_len
#undef __assign_str
#undef __print_flags
#undef __print_symbolic
#undef __print_symbolic_u64
#undef __print_hex
#undef __print_hex_str
#undef __print_array

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
