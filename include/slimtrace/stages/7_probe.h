/* SPDX-License-Identifier: MIT */
/*
 * Stage 7: the class's probe, __slim_probe_<class>(args..., event).
 *
 * It sizes the dynamic fields (stage 6), then for each target of the
 * event (each instance where it is enabled, each consumer) reserves a
 * record, stores each dynamic field's __data_loc word, runs
 * TP_fast_assign on the record and commits; the commit runs that
 * target's filter first when it has one.  One probe serves every event
 * of the class: the event arrives as the probe's data (seed patch 3).
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
#define __dynamic_array(type, item, len) __entry->__data_loc_##item = __dyn.item;
#define __string(item, src)		__entry->__data_loc_##item = __dyn.item;
#define __string_len(item, src, len)	__entry->__data_loc_##item = __dyn.item;

/* In TP_fast_assign: __entry is the record being written. */
#define __get_dynamic_array(field)					\
	((void *)((char *)__entry + slim_data_loc_offset(__entry->__data_loc_##field)))
#define __get_dynamic_array_len(field)					\
	slim_data_loc_len(__entry->__data_loc_##field)
#define __get_str(field)	((char *)__get_dynamic_array(field))
/* Both the kernel's forms: __assign_str(dst) and __assign_str(dst, src). */
#define __assign_str(dst, ...)						\
	slim_assign_str(__get_str(dst), __dyn.dst##__src,		\
			__get_dynamic_array_len(dst))
#define TP_fast_assign(args...)	args

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)	\
	static void __slim_probe_##name(proto, void *__data)		\
	{								\
		struct slim_event *__ev = (struct slim_event *)__data;	\
		struct slim_dyn_##name __dyn;				\
		struct slim_reserve __r;				\
		struct slim_entry_##name *__entry;			\
		unsigned int __size = __slim_dyn_size_##name(&__dyn, args); \
									\
		for (__entry = (struct slim_entry_##name *)		\
			slim_event_reserve(&__r, __ev, __size); __entry; \
		     __entry = (struct slim_entry_##name *)		\
			slim_event_commit_next(&__r)) {			\
			tstruct						\
			{ assign; }					\
		}							\
	}								\
	__SLIM_END
