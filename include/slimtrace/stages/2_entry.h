/* SPDX-License-Identifier: MIT */
/*
 * Stage 2: the record layout, struct slim_entry_<class>: the common
 * header, then the fields in order; a dynamic field is its 32-bit
 * __data_loc_<item> or __rel_loc_<item> word, and its bytes follow the
 * fixed part (__data).
 */
#define DECLARE_TRACE(name, proto, args)		__SLIM_END
#define DECLARE_TRACE_NOARGS(name)			__SLIM_END
#define DEFINE_EVENT(template, name, proto, args)	__SLIM_END
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)	__SLIM_END

/*
 * A plain char is stored unsigned: the kernel builds with -funsigned-char,
 * so its formats say signed:0 and its readers print 0..255.
 */
#define __slim_store_type(type)						\
	__typeof__(__extension__ _Generic((type)0, char: (unsigned char)0, \
					  default: (type)0))
#define __field(type, item)			__slim_store_type(type) item;
#define __field_ext(type, item, filter_type)	__slim_store_type(type) item;
#define __field_struct(type, item)		type item;
#define __field_struct_ext(type, item, filter_type) type item;
#define __array(type, item, len)		type item[len];
#define __slim_dyn(loc, item, text, is_signed, bytes)	uint32_t loc##item;
#define __slim_str(loc, item, text, src)		uint32_t loc##item;
#define __slim_strn(loc, item, text, src, len)		uint32_t loc##item;

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)	\
	struct slim_entry_##name {					\
		struct slim_trace_entry ent;				\
		tstruct							\
		char __data[];						\
	};								\
	/* Records lie 4-byte aligned in a ring, as the kernel's. */	\
	typedef struct slim_entry_##name SLIM_RECORD_ALIGN slim_rec_##name; \
	__SLIM_END
