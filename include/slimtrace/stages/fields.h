/* SPDX-License-Identifier: MIT */
/*
 * The dynamic fields of TP_STRUCT__entry, each written in terms of three
 * forms that every stage defines (reset.h includes this before each):
 *
 *	__slim_dyn(loc, item, type_text, is_signed, bytes)
 *	__slim_str(loc, item, type_text, src)		bytes: strlen(src) + 1
 *	__slim_strn(loc, item, type_text, src, len)	bytes: len + 1
 *
 * loc is the prefix of the 32-bit locator in the record: __data_loc_
 * (offset from the record's start) or __rel_loc_ (offset from the end
 * of the locator itself).  type_text is the kernel's, so that the format
 * files' field lines are the kernel's byte for byte.  bytes is evaluated
 * by the probe, with the event's arguments in scope.
 */
#define __dynamic_array(type, item, len)				\
	__slim_dyn(__data_loc_, item, "__data_loc " #type "[]",		\
		   __slim_is_signed(type), (unsigned long)(len) * sizeof(type))
#define __rel_dynamic_array(type, item, len)				\
	__slim_dyn(__rel_loc_, item, "__rel_loc " #type "[]",		\
		   __slim_is_signed(type), (unsigned long)(len) * sizeof(type))
#define __string(item, src)						\
	__slim_str(__data_loc_, item, "__data_loc char[]", src)
#define __rel_string(item, src)						\
	__slim_str(__rel_loc_, item, "__rel_loc char[]", src)
#define __string_len(item, src, len)					\
	__slim_strn(__data_loc_, item, "__data_loc char[]", src, len)
#define __rel_string_len(item, src, len)				\
	__slim_strn(__rel_loc_, item, "__rel_loc char[]", src, len)
/* Formatted when the event is recorded, as in the kernel: ap is a va_list *. */
#define __vstring(item, fmt, ap)					\
	__slim_dyn(__data_loc_, item, "__data_loc char[]", 0,		\
		   slim_vstr_len(fmt, ap))
/* nr_bits rounded up to whole longs, as the kernel records them. */
#define __bitmask(item, nr_bits)					\
	__slim_dyn(__data_loc_, item, "__data_loc unsigned long[]", 0,	\
		   slim_bitmask_bytes(nr_bits))
#define __rel_bitmask(item, nr_bits)					\
	__slim_dyn(__rel_loc_, item, "__rel_loc unsigned long[]", 0,	\
		   slim_bitmask_bytes(nr_bits))
/* A bitmask of the machine's possible CPUs (the kernel's nr_cpumask_bits). */
#define __cpumask(item)							\
	__slim_dyn(__data_loc_, item, "__data_loc cpumask_t", 0,	\
		   slim_bitmask_bytes(slim_cpumask_bits()))
#define __rel_cpumask(item)						\
	__slim_dyn(__rel_loc_, item, "__rel_loc cpumask_t", 0,		\
		   slim_bitmask_bytes(slim_cpumask_bits()))
#define __sockaddr(item, len)						\
	__slim_dyn(__data_loc_, item, "__data_loc u8[]", 0, (unsigned long)(len))
#define __rel_sockaddr(item, len)					\
	__slim_dyn(__rel_loc_, item, "__rel_loc u8[]", 0, (unsigned long)(len))
