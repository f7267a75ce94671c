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
#define __print_flags(flag, delim, flag_array...)			\
	slim_print_flags_seq(__p, delim, flag,				\
		(const struct slim_print_flag[]){ flag_array, { 0, NULL } })
#define __print_symbolic(value, symbol_array...)			\
	slim_print_symbols_seq(__p, value,				\
		(const struct slim_print_flag[]){ symbol_array, { 0, NULL } })
#define __print_symbolic_u64(value, symbol_array...)			\
	slim_print_symbols_seq_u64(__p, value,				\
		(const struct slim_print_flag_u64[]){ symbol_array, { 0, NULL } })
#define __print_hex(buf, buf_len)	slim_print_hex_seq(__p, buf, buf_len, 0)
#define __print_hex_str(buf, buf_len)	slim_print_hex_seq(__p, buf, buf_len, 1)
#define __print_array(array, count, el_size)				\
	slim_print_array_seq(__p, array, count, el_size)
#define TP_printk(fmt, args...)	fmt, ##args

#define __SLIM_DEFINE_PRINTER(fn, entry_type, print)			\
	static int fn(struct slim_seq *__s, struct slim_seq *__p,	\
		      const struct slim_event *__ev,			\
		      const void *__rec, unsigned int __len)		\
	{								\
		const struct entry_type *__entry =			\
			(const struct entry_type *)__rec;		\
									\
		(void)__p;						\
		(void)__ev;						\
		if (__len < sizeof(*__entry))				\
			return slim_seq_puts(__s, "[truncated record]"); \
		return slim_seq_printf(__s, print);			\
	}

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)	\
	__SLIM_DEFINE_PRINTER(__slim_print_##name, slim_entry_##name,	\
			      PARAMS(print))				\
	__SLIM_END
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)		\
	__SLIM_DEFINE_PRINTER(__slim_print_ev_##name, slim_entry_##template, \
			      PARAMS(print))				\
	SLIM_HIDDEN const struct slim_event_print slim_evprint_##name = { \
		.print_fmt = __slim_fmt_##name,				\
		.trace = __slim_print_ev_##name,			\
	};								\
	__SLIM_END
