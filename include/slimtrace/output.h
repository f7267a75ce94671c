/* SPDX-License-Identifier: MIT */
/*
 * Text output: sequences (the kernel's trace_seq), the helpers that
 * TP_printk arguments expand to (__print_flags, __print_symbolic,
 * __print_hex, __print_array), generic raw/hex/bin record printers and
 * the text of an event's `format` file.
 *
 * Everything here runs on the read side; nothing is called while an event
 * is recorded.
 */
#ifndef SLIMTRACE_OUTPUT_H
#define SLIMTRACE_OUTPUT_H

#include <stdint.h>

#include <slimtrace/compiler.h>

SLIM_BEGIN_DECLS
#include <slimtrace/field.h>

/*
 * A text sequence. Invariant: buf always holds a NUL-terminated string of
 * len bytes (len < size), so s->buf can be used as text at any moment.
 *
 * A fixed sequence (slim_seq_init) never writes past size: text that does
 * not fit is truncated, ->overflow is set and the call returns -ENOSPC.
 * A growable sequence (slim_seq_init_dynamic) reallocates instead; it only
 * overflows when memory runs out (-ENOMEM).
 *
 * Appended bytes may include NULs (slim_seq_putc(s, 0), slim_seq_putmem):
 * the print helpers below end their text with one so that several of them
 * can share a scratch sequence, each result staying a separate string.
 */
struct slim_seq {
	char *buf;
	unsigned int len;
	unsigned int size;
	int overflow;
	int growable;
};

SLIM_EXPORT void slim_seq_init(struct slim_seq *s, char *buf, unsigned int size);
SLIM_EXPORT void slim_seq_init_dynamic(struct slim_seq *s);
SLIM_EXPORT void slim_seq_reset(struct slim_seq *s);
SLIM_EXPORT void slim_seq_free(struct slim_seq *s);

/* Each returns the bytes appended, or a negative errno if not all fitted. */
SLIM_EXPORT int slim_seq_printf(struct slim_seq *s, const char *fmt, ...)
	__attribute__((__format__(__printf__, 2, 3)));
SLIM_EXPORT int slim_seq_vprintf(struct slim_seq *s, const char *fmt, slim_va_list ap)
	__attribute__((__format__(__printf__, 2, 0)));
SLIM_EXPORT int slim_seq_puts(struct slim_seq *s, const char *str);
SLIM_EXPORT int slim_seq_putc(struct slim_seq *s, char c);
SLIM_EXPORT int slim_seq_putmem(struct slim_seq *s, const void *mem, unsigned int len);

/* One {mask, "name"} pair of __print_flags / __print_symbolic; name NULL ends a table. */
struct slim_print_flag {
	unsigned long mask;
	const char *name;
};

struct slim_print_flag_u64 {
	unsigned long long mask;
	const char *name;
};

/*
 * The TP_printk helpers. Each appends its text plus a NUL to the scratch
 * sequence p and returns that text, for use as a %s argument. The result
 * stays valid until p is reset; on a growable p only until the next append
 * (it may move), so generated code uses a fixed p. A full p yields "".
 */
SLIM_EXPORT const char *slim_print_flags_seq(struct slim_seq *p, const char *delim,
					     unsigned long flags,
					     const struct slim_print_flag *names);
SLIM_EXPORT const char *slim_print_flags_seq_u64(struct slim_seq *p, const char *delim,
						 unsigned long long flags,
						 const struct slim_print_flag_u64 *names);
SLIM_EXPORT const char *slim_print_symbols_seq(struct slim_seq *p, unsigned long val,
					       const struct slim_print_flag *names);
SLIM_EXPORT const char *slim_print_symbols_seq_u64(struct slim_seq *p, unsigned long long val,
						   const struct slim_print_flag_u64 *names);
SLIM_EXPORT const char *slim_print_hex_seq(struct slim_seq *p, const void *buf, int len,
					   int concatenate);
SLIM_EXPORT const char *slim_print_array_seq(struct slim_seq *p, const void *buf, int count,
					     unsigned int el_size);
/*
 * __get_bitmask / __get_cpumask: the kernel's %*pb of a bitmask of
 * bytes * 8 bits (an array of longs in host order), hex digits in
 * comma-separated 32-bit groups, the most significant first.
 */
SLIM_EXPORT const char *slim_print_bitmask_seq(struct slim_seq *p, const void *mask,
					       unsigned int bytes);

/*
 * The bytes of a dynamic field (__string, __dynamic_array) of a record of
 * rec_len bytes. A __data_loc word that points outside the record gives ""
 * and *dlen = 0: a corrupt record must never crash a reader. dlen may be NULL.
 */
SLIM_EXPORT const void *slim_data_loc_get(const void *rec, unsigned int rec_len,
					  uint32_t loc, unsigned int *dlen);

/*
 * A __string field as text (__get_str): as slim_data_loc_get, but also ""
 * when the bytes hold no NUL, so that printing with %s stays in the record.
 */
SLIM_EXPORT const char *slim_data_loc_str(const void *rec, unsigned int rec_len,
					  uint32_t loc);

/*
 * Generic printers for a class's raw, hex and binary slots. None of them
 * ends the line: like a class's TP_printk output, the caller adds "\n".
 *
 * raw: "name=value name=value ..." for every field of t (not the common
 * ones), in the style of trace-cmd report -R: signed numbers in decimal,
 * pointers and unsigned long(s) as 0x hex, other unsigned numbers in
 * decimal, char arrays and strings as text, other arrays and strings that
 * are not printable as ARRAY[de, ad, ...]. A field outside the record
 * prints <OVERFLOW>.
 *
 * hex: the record in chunks of up to 8 bytes, each chunk as one number in
 * host byte order followed by a space (the kernel's `hex` option prints
 * fields the same way).
 *
 * bin: the record's bytes as they are.
 */
SLIM_EXPORT int slim_print_raw_fields(struct slim_seq *s, const struct slim_field_table *t,
				      const void *rec, unsigned int len);
SLIM_EXPORT int slim_print_hex_record(struct slim_seq *s, const void *rec, unsigned int len);
SLIM_EXPORT int slim_print_bin_record(struct slim_seq *s, const void *rec, unsigned int len);

/*
 * The text of events/<sys>/<name>/format, byte for byte the kernel's
 * layout: name, ID, the common fields, a blank line, t's fields, a blank
 * line and "print fmt: " print_fmt. t may be NULL (no fields of its own).
 */
SLIM_EXPORT int slim_format_print(struct slim_seq *s, const char *name, int id,
				  const struct slim_field_table *t, const char *print_fmt);

SLIM_END_DECLS

#endif /* SLIMTRACE_OUTPUT_H */
