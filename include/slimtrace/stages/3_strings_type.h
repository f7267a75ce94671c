/* SPDX-License-Identifier: MIT */
/*
 * Stage 3: the type of the class's string blob, struct slim_strs_<class>:
 * the system name, each field's C type and name, and the print fmt, one
 * char array each, so that the field table can point into it with 16-bit
 * offsets instead of pointers (no relocations).  A DEFINE_EVENT_PRINT
 * gets its own print fmt string.
 */
#include <slimtrace/stages/print_fmt.h>

#define DECLARE_TRACE(name, proto, args)		__SLIM_END
#define DECLARE_TRACE_NOARGS(name)			__SLIM_END
#define DEFINE_EVENT(template, name, proto, args)	__SLIM_END

#define __SLIM_STR_PAIR(item, type_text)				\
	char item##__t[sizeof(type_text)];				\
	char item##__n[sizeof(#item)];
#define __field(type, item)		__SLIM_STR_PAIR(item, #type)
#define __field_ext(type, item, ft)	__SLIM_STR_PAIR(item, #type)
#define __field_struct(type, item)	__SLIM_STR_PAIR(item, #type)
#define __field_struct_ext(type, item, ft) __SLIM_STR_PAIR(item, #type)
#define __array(type, item, len)					\
	__SLIM_STR_PAIR(item, #type "[" SLIM_STRINGIFY(len) "]")
#define __slim_dyn(loc, item, text, is_signed, bytes)	__SLIM_STR_PAIR(item, text)
#define __slim_str(loc, item, text, src)		__SLIM_STR_PAIR(item, text)
#define __slim_strn(loc, item, text, src, len)		__SLIM_STR_PAIR(item, text)

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)	\
	struct slim_strs_##name {					\
		char __system[sizeof(SLIM_STRINGIFY(TRACE_SYSTEM))];	\
		tstruct							\
		char __fmt[sizeof(print)];				\
	};								\
	__SLIM_END
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)		\
	static const char __slim_fmt_##name[] = print;			\
	__SLIM_END
