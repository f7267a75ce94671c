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
 * DEFINE_EVENT_FN	the same, plus an entry in "slim_event_fns": the
 *			event's reg() and unreg(), called by the registry
 *			when its tracepoint gets its first probe and loses
 *			its last one.
 * TRACE_DEFINE_ENUM	an entry in "slim_eval_maps": the enum's name and
 * TRACE_DEFINE_SIZEOF	value (or sizeof(type) and its size), which the
 *			registry writes into the print fmts of the
 *			system's events, as the kernel does.
 */
#define DECLARE_TRACE(name, proto, args)		__SLIM_END
#define DECLARE_TRACE_NOARGS(name)			__SLIM_END

/* C's own layout rules, and char counted unsigned as the kernel does. */
#define __slim_is_signed(type)						\
	(__extension__ _Generic((type)0, char: 0,			\
				default: ((type)-1 < (type)1)))

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
#define __slim_dyn(loc, item, text, is_signed, bytes)			\
	__SLIM_FIELD(item, loc##item, 4, is_signed, SLIM_FILTER_AUTO)
#define __slim_str(loc, item, text, src)				\
	__SLIM_FIELD(item, loc##item, 4, 0, SLIM_FILTER_AUTO)
#define __slim_strn(loc, item, text, src, len)				\
	__SLIM_FIELD(item, loc##item, 4, 0, SLIM_FILTER_AUTO)

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
	SLIM_HIDDEN __attribute__((__used__)) struct slim_event slim_event_##name; \
	__SLIM_EVENT_DESC(template, name, "0")
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)		\
	SLIM_HIDDEN __attribute__((__used__)) struct slim_event slim_event_##name; \
	__SLIM_EVENT_DESC(template, name, "slim_evprint_" #name " - .")

/*
 * Entries of a section are read as an array: their alignment is set, so
 * that the compiler does not pad them (gcc aligns larger objects to 32).
 */
#define __SLIM_SECTION_ENTRY(sec)					\
	__attribute__((__used__, __section__(sec), __aligned__(sizeof(void *))))

#undef __SLIM_EVENT_FNS
#define __SLIM_EVENT_FNS(template, name, reg, unreg)			\
	static const struct slim_event_fns __slim_fns_##name		\
	__SLIM_SECTION_ENTRY("slim_event_fns") =			\
		{ &slim_event_##name, reg, unreg }

/* Named by a counter: one enum may be defined by the headers of two systems. */
#undef TRACE_DEFINE_ENUM
#define TRACE_DEFINE_ENUM(a)						\
	__SLIM_EVAL_MAP(SLIM_CONCAT(__slim_eval_, __COUNTER__), #a, a)
#undef TRACE_DEFINE_SIZEOF
#define TRACE_DEFINE_SIZEOF(a)						\
	__SLIM_EVAL_MAP(SLIM_CONCAT(__slim_eval_, __COUNTER__),		\
			"sizeof(" #a ")", sizeof(a))
#define __SLIM_EVAL_MAP(var, text, value)				\
	static const struct slim_eval_map var				\
	__SLIM_SECTION_ENTRY("slim_eval_maps") =			\
		{ SLIM_STRINGIFY(TRACE_SYSTEM), text, (long long)(value) }
