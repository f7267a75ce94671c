/* SPDX-License-Identifier: MIT */
/*
 * Stage 9: the class and the events.
 *
 * DECLARE_EVENT_CLASS	slim_class_<class>(), which returns the class: a
 *			constant holding the field table, the probe and
 *			the printer.  It is a function only to give the
 *			table a scope where the record and string types
 *			have fixed names; it computes nothing.
 * DEFINE_EVENT		the event's writable half, slim_event_<name>
 *			(zeroes: .bss), and its constant half in the
 *			"slim_events" section: offsets to the event, its
 *			name and its class.  No function, no relocation.
 * DEFINE_EVENT_PRINT	the same, plus an offset to slim_evprint_<name>.
 */
#define DECLARE_TRACE(name, proto, args)		__SLIM_END
#define DECLARE_TRACE_NOARGS(name)			__SLIM_END

/* C's own layout rules, and char counted unsigned as the kernel does. */
#define __slim_is_signed(type)						\
	_Generic((type)0, char: 0, default: ((type)-1 < (type)1))

#define __SLIM_FIELD(item, member, size, is_signed, filter_type)	\
	{ offsetof(__slim_strs_t, item##__t),				\
	  offsetof(__slim_strs_t, item##__n),				\
	  offsetof(__slim_entry_t, member), (size), (is_signed),	\
	  (filter_type) },
#define __field(type, item)						\
	__SLIM_FIELD(item, item, sizeof(type), __slim_is_signed(type),	\
		     SLIM_FILTER_AUTO)
#define __field_ext(type, item, ft)					\
	__SLIM_FIELD(item, item, sizeof(type), __slim_is_signed(type), ft)
#define __field_struct(type, item)					\
	__SLIM_FIELD(item, item, sizeof(type), 0, SLIM_FILTER_OTHER)
#define __field_struct_ext(type, item, ft)				\
	__SLIM_FIELD(item, item, sizeof(type), 0, ft)
#define __array(type, item, len)					\
	__SLIM_FIELD(item, item, sizeof(type) * (len),			\
		     __slim_is_signed(type), SLIM_FILTER_AUTO)
#define __dynamic_array(type, item, len)				\
	__SLIM_FIELD(item, __data_loc_##item, 4, __slim_is_signed(type), \
		     SLIM_FILTER_AUTO)
#define __string(item, src)						\
	__SLIM_FIELD(item, __data_loc_##item, 4, 0, SLIM_FILTER_AUTO)
#define __string_len(item, src, len)	__string(item, src)

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)	\
	SLIM_HIDDEN const struct slim_event_class *slim_class_##name(void) \
	{								\
		typedef struct slim_entry_##name __slim_entry_t;	\
		typedef struct slim_strs_##name __slim_strs_t;		\
		static const struct slim_field fields[] = { tstruct };	\
		static const struct slim_event_class class = {		\
			.fields = {					\
				.strings = (const char *)&slim_strs_##name, \
				.fields = fields,			\
				.nr_fields = sizeof(fields) / sizeof(fields[0]), \
				.size = sizeof(__slim_entry_t),		\
			},						\
			.print_fmt = offsetof(__slim_strs_t, __fmt),	\
			.probe = (slim_probe_func)__slim_probe_##name,	\
			.funcs = { .trace = __slim_print_##name },	\
		};							\
									\
		return &class;						\
	}								\
	__SLIM_END

#define DEFINE_EVENT(template, name, proto, args)			\
	SLIM_HIDDEN __attribute__((used)) struct slim_event slim_event_##name; \
	__SLIM_EVENT_DESC(template, name, "0")
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)		\
	SLIM_HIDDEN __attribute__((used)) struct slim_event slim_event_##name; \
	__SLIM_EVENT_DESC(template, name, "slim_evprint_" #name " - .")
