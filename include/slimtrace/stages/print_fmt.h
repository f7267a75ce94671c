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
#define __print_flags(flag, delim, flag_array...)			\
	__print_flags(flag, delim, flag_array)
#define __print_symbolic(value, symbol_array...)			\
	__print_symbolic(value, symbol_array)
/* As a 64-bit kernel writes it: readers know only __print_symbolic. */
#if __SIZEOF_LONG__ == 8
#define __print_symbolic_u64(value, symbol_array...)			\
	__print_symbolic(value, symbol_array)
#else
#define __print_symbolic_u64(value, symbol_array...)			\
	__print_symbolic_u64(value, symbol_array)
#endif
#define __print_hex(buf, buf_len)		__print_hex(buf, buf_len)
#define __print_hex_str(buf, buf_len)		__print_hex_str(buf, buf_len)
#define __print_array(array, count, el_size)				\
	__print_array(array, count, el_size)
#define TP_printk(fmt, args...)	"\"" fmt "\", " SLIM_STRINGIFY(args)
