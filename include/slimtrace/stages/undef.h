/* SPDX-License-Identifier: MIT */
/* Forget what the dialect's macros meant in the last stage. */
#undef DECLARE_TRACE
#undef DECLARE_TRACE_NOARGS
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_PRINT
#undef TRACE_EVENT
#undef TRACE_DEFINE_ENUM
#undef TRACE_DEFINE_SIZEOF
#undef TRACE_EVENT_FLAGS
#undef TRACE_EVENT_PERF_PERM

#undef TP_STRUCT__entry
#undef __field
#undef __field_ext
#undef __field_struct
#undef __field_struct_ext
#undef __array
#undef __dynamic_array
#undef __string
#undef __string_len

#undef TP_fast_assign
#undef TP_printk
#undef __entry
#undef __get_str
#undef __get_dynamic_array
#undef __get_dynamic_array_len
#undef __assign_str
#undef __print_flags
#undef __print_symbolic
#undef __print_symbolic_u64
#undef __print_hex
#undef __print_hex_str
#undef __print_array

