/* SPDX-License-Identifier: MIT */
/*
 * Stage 5: struct slim_dyn_<class>, where the probe keeps what it worked
 * out about the dynamic fields before reserving: each one's __data_loc
 * word, and for strings the source it measured (so that __assign_str()
 * copies exactly what was measured, whichever form it is called in).
 */
#define DECLARE_TRACE(name, proto, args)		__SLIM_END
#define DECLARE_TRACE_NOARGS(name)			__SLIM_END
#define DEFINE_EVENT(template, name, proto, args)	__SLIM_END
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)	__SLIM_END

#define __field(type, item)
#define __field_ext(type, item, ft)
#define __field_struct(type, item)
#define __field_struct_ext(type, item, ft)
#define __array(type, item, len)
#define __slim_dyn(loc, item, text, is_signed, bytes)	uint32_t item;
#define __slim_str(loc, item, text, src)		\
	uint32_t item; const char *item##__src;
#define __slim_strn(loc, item, text, src, len)		\
	uint32_t item; const char *item##__src;

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)	\
	struct slim_dyn_##name {					\
		int __unused;						\
		tstruct							\
	};								\
	__SLIM_END
