/* SPDX-License-Identifier: MIT */
/*
 * Stage 8: the printers, __slim_print_<class>() and, for each
 * DEFINE_EVENT_PRINT, __slim_print_ev_<event>() with the override object
 * slim_evprint_<event> that stage 9 points the event at.
 *
 * They format a record with TP_printk() on the read side.  Dynamic
 * fields are reached through bounds-checked helpers: a record read back
 * from a damaged file must not crash its reader.  __print_flags() and
 * friends write into the scratch sequence __p and hand back the text.
 */
#include <slimtrace/output.h>

#define DECLARE_TRACE(name, proto, args)		__SLIM_END
#define DECLARE_TRACE_NOARGS(name)			__SLIM_END
#define DEFINE_EVENT(template, name, proto, args)	__SLIM_END

#define __get_dynamic_array(field)					\
	slim_dyn_ptr(__entry, __len, __entry->__data_loc_##field)
#define __get_dynamic_array_len(field)					\
	slim_dyn_len(__entry, __len, __entry->__data_loc_##field)
#define __get_str(field)						\
	slim_data_loc_str(__entry, __len, __entry->__data_loc_##field)
/* A __rel_loc word, made record-relative: the same checks then apply. */
#define __slim_rel(field)						\
	slim_rel_to_data_loc(__entry->__rel_loc_##field, (unsigned int)	\
		(offsetof(__typeof__(*__entry), __rel_loc_##field) + 4))
#define __get_rel_dynamic_array(field)	slim_dyn_ptr(__entry, __len, __slim_rel(field))
#define __get_rel_dynamic_array_len(field) slim_dyn_len(__entry, __len, __slim_rel(field))
#define __get_rel_str(field)	slim_data_loc_str(__entry, __len, __slim_rel(field))
/* The kernel's %*pb: hex in 32-bit groups, most significant first. */
#define __get_bitmask(field)						\
	slim_print_bitmask_seq(__p, __get_dynamic_array(field),		\
			       __get_dynamic_array_len(field))
#define __get_cpumask(field)	__get_bitmask(field)
#define __get_rel_bitmask(field)					\
	slim_print_bitmask_seq(__p, __get_rel_dynamic_array(field),	\
			       __get_rel_dynamic_array_len(field))
#define __get_rel_cpumask(field) __get_rel_bitmask(field)
#define __get_sockaddr(field)						\
	((const struct sockaddr *)__get_dynamic_array(field))
#define __get_rel_sockaddr(field)					\
	((const struct sockaddr *)__get_rel_dynamic_array(field))
/* The casts are the kernel's prototypes': they keep -Wsign-conversion quiet. */
#define __print_flags(flag, delim, ...)					\
	slim_print_flags_seq(__p, delim, (unsigned long)(flag),	\
		(const struct slim_print_flag[]){ __VA_ARGS__, { 0, NULL } })
#define __print_symbolic(value, ...)					\
	slim_print_symbols_seq(__p, (unsigned long)(value),		\
		(const struct slim_print_flag[]){ __VA_ARGS__, { 0, NULL } })
#define __print_symbolic_u64(value, ...)				\
	slim_print_symbols_seq_u64(__p, (unsigned long long)(value),	\
		(const struct slim_print_flag_u64[]){ __VA_ARGS__, { 0, NULL } })
#define __print_hex(buf, buf_len)					\
	slim_print_hex_seq(__p, buf, (int)(buf_len), 0)
#define __print_hex_str(buf, buf_len)					\
	slim_print_hex_seq(__p, buf, (int)(buf_len), 1)
#define __print_array(array, count, el_size)				\
	slim_print_array_seq(__p, array, (int)(count), (unsigned int)(el_size))
#define TP_printk(...)	__VA_ARGS__

#define __SLIM_DEFINE_PRINTER(fn, entry_type, print)			\
	static int fn(struct slim_seq *__s, struct slim_seq *__p,	\
		      const struct slim_event *__ev,			\
		      const void *__rec, unsigned int __len)		\
	{								\
		const entry_type *__entry =				\
			(const entry_type *)__rec;			\
									\
		(void)__p;						\
		(void)__ev;						\
		if (__len < sizeof(*__entry))				\
			return slim_seq_puts(__s, "[truncated record]"); \
		return slim_seq_printf(__s, print);			\
	}

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)	\
	__SLIM_DEFINE_PRINTER(__slim_print_##name, slim_rec_##name,	\
			      PARAMS(print))				\
	__SLIM_END
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)		\
	__SLIM_DEFINE_PRINTER(__slim_print_ev_##name, slim_rec_##template, \
			      PARAMS(print))				\
	SLIM_HIDDEN const struct slim_event_print slim_evprint_##name = { \
		.print_fmt = __slim_fmt_##name,				\
		.trace = __slim_print_ev_##name,			\
	};								\
	__SLIM_END
