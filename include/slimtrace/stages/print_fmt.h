/* SPDX-License-Identifier: MIT */
/*
 * Shared by stages 3 and 4: TP_printk() as the text of the format file's
 * "print fmt:" line.  __entry reads as REC, and the helpers name
 * themselves, so that libtraceevent and trace-cmd can evaluate the text.
 */
#define __entry REC
#define __get_str(field)			__get_str(field)
#define __get_dynamic_array(field)		__get_dynamic_array(field)
#define __get_dynamic_array_len(field)		__get_dynamic_array_len(field)
#define __get_rel_str(field)			__get_rel_str(field)
#define __get_rel_dynamic_array(field)		__get_rel_dynamic_array(field)
#define __get_rel_dynamic_array_len(field)	__get_rel_dynamic_array_len(field)
#define __get_bitmask(field)			__get_bitmask(field)
#define __get_rel_bitmask(field)		__get_rel_bitmask(field)
#define __get_cpumask(field)			__get_cpumask(field)
#define __get_rel_cpumask(field)		__get_rel_cpumask(field)
#define __get_sockaddr(field)			__get_sockaddr(field)
#define __get_rel_sockaddr(field)		__get_rel_sockaddr(field)
#define __print_flags(flag, delim, ...)					\
	__print_flags(flag, delim, __VA_ARGS__)
#define __print_symbolic(value, ...)					\
	__print_symbolic(value, __VA_ARGS__)
/* As a 64-bit kernel writes it: readers know only __print_symbolic. */
#if __SIZEOF_LONG__ == 8
#define __print_symbolic_u64(value, ...)				\
	__print_symbolic(value, __VA_ARGS__)
#else
#define __print_symbolic_u64(value, ...)				\
	__print_symbolic_u64(value, __VA_ARGS__)
#endif
#define __print_hex(buf, buf_len)		__print_hex(buf, buf_len)
#define __print_hex_str(buf, buf_len)		__print_hex_str(buf, buf_len)
#define __print_array(array, count, el_size)				\
	__print_array(array, count, el_size)
/*
 * The kernel's "\"" fmt "\", " __stringify(args): the format as one
 * string (literals joined), then the arguments' text.  ISO C has no
 * named variadic parameter, so the arity picks the form.  With no
 * arguments the kernel's text would end in ", ", which libtraceevent
 * cannot parse (no kernel event has such a TP_printk): the format alone.
 */
#define TP_printk(...)							\
	SLIM_CONCAT(__SLIM_PRINT_FMT_, SLIM_MANY(__VA_ARGS__))(__VA_ARGS__)
#define __SLIM_PRINT_FMT_0(fmt)		"\"" fmt "\""
#define __SLIM_PRINT_FMT_1(fmt, ...)	"\"" fmt "\", " SLIM_STRINGIFY(__VA_ARGS__)
