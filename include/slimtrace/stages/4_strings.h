/* SPDX-License-Identifier: MIT */
/* Stage 4: the class's string blob itself, slim_strs_<class>. */
#include <slimtrace/stages/print_fmt.h>

#define DECLARE_TRACE(name, proto, args)		__SLIM_END
#define DECLARE_TRACE_NOARGS(name)			__SLIM_END
#define DEFINE_EVENT(template, name, proto, args)	__SLIM_END
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)	__SLIM_END

#define __field(type, item)		#type, #item,
#define __field_ext(type, item, ft)	#type, #item,
#define __field_struct(type, item)	#type, #item,
#define __field_struct_ext(type, item, ft) #type, #item,
#define __array(type, item, len)	#type "[" SLIM_STRINGIFY(len) "]", #item,
#define __slim_dyn(loc, item, text, is_signed, bytes)	text, #item,
#define __slim_str(loc, item, text, src)		text, #item,
#define __slim_strn(loc, item, text, src, len)		text, #item,

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)	\
	static const struct slim_strs_##name slim_strs_##name = {	\
		SLIM_STRINGIFY(TRACE_SYSTEM), tstruct print		\
	};								\
	__SLIM_END
