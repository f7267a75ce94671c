/* SPDX-License-Identifier: MIT */
/*
 * Stage 6: __slim_dyn_size_<class>(dyn, args...), which measures the
 * dynamic fields before the probe reserves: it fills struct
 * slim_dyn_<class> and returns the record's size (0: too large).
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
#define __slim_dyn(loc, item, text, is_signed, bytes)			\
	__dyn->item = slim_dyn_add(&__off, bytes);
#define __slim_str(loc, item, text, src)				\
	__dyn->item##__src = (src) ? (const char *)(src) : "(null)";	\
	__dyn->item = slim_dyn_add(&__off, strlen(__dyn->item##__src) + 1);
/* "(null)" and its NUL when there is no string, as the kernel stores it. */
#define __slim_strn(loc, item, text, src, len)				\
	__dyn->item##__src = (src) ? (const char *)(src) : "(null)";	\
	__dyn->item = slim_dyn_add(&__off,				\
				   (src) ? (unsigned long)(len) + 1 : 7);

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)	\
	static inline unsigned int					\
	__slim_dyn_size_##name(struct slim_dyn_##name *__dyn, proto)	\
	{								\
		unsigned int __off = sizeof(struct slim_entry_##name);	\
									\
		(void)__dyn;						\
		tstruct							\
		return __off;						\
	}								\
	__SLIM_END
