// SPDX-License-Identifier: MIT
/*
 * Text sequences and the printers built on them: the TP_printk helpers,
 * the generic raw/hex/bin record printers and the `format` file text.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slimtrace/compiler.h>
#include <slimtrace/field.h>
#include <slimtrace/event.h>
#include <slimtrace/output.h>

#include "core/symbols.h"

#define SEQ_MIN_ALLOC	256u
#define SEQ_MAX_ALLOC	(1u << 30)

/*
 * What buf points at while a sequence has no storage, so that s->buf is
 * always a valid "". Never written: every store checks size first.
 */
static char seq_empty[1];

static const char hex_digits[] = "0123456789abcdef";

SLIM_EXPORT void slim_seq_init(struct slim_seq *s, char *buf, unsigned int size)
{
	s->buf = (buf && size) ? buf : seq_empty;
	s->size = (buf && size) ? size : 0;
	s->len = 0;
	s->overflow = 0;
	s->growable = 0;
	if (s->size)
		s->buf[0] = '\0';
}

/* Storage comes with the first append, so that init cannot fail. */
SLIM_EXPORT void slim_seq_init_dynamic(struct slim_seq *s)
{
	slim_seq_init(s, NULL, 0);
	s->growable = 1;
}

SLIM_EXPORT void slim_seq_reset(struct slim_seq *s)
{
	s->len = 0;
	s->overflow = 0;
	if (s->size)
		s->buf[0] = '\0';
}

SLIM_EXPORT void slim_seq_free(struct slim_seq *s)
{
	int growable = s->growable;

	if (growable && s->size)
		free(s->buf);
	slim_seq_init(s, NULL, 0);
	s->growable = growable;
}

static int seq_error(const struct slim_seq *s)
{
	return s->growable ? -ENOMEM : -ENOSPC;
}

/* Make room for need bytes in all, the NUL included; fails quietly. */
static void seq_grow(struct slim_seq *s, size_t need)
{
	size_t want = s->size ? s->size : SEQ_MIN_ALLOC;
	char *buf;

	if (need > SEQ_MAX_ALLOC)
		return;
	while (want < need)
		want *= 2;
	if (want > SEQ_MAX_ALLOC)
		want = SEQ_MAX_ALLOC;
	buf = s->size ? realloc(s->buf, want) : malloc(want);
	if (!buf)
		return;
	if (!s->size)
		buf[0] = '\0';
	s->buf = buf;
	s->size = want;
}

/* How many of n more bytes fit, growing the sequence if it may. */
static unsigned int seq_room(struct slim_seq *s, unsigned int n)
{
	size_t need = (size_t)s->len + n + 1;
	unsigned int free_bytes;

	if (need > s->size && s->growable)
		seq_grow(s, need);
	if (!s->size)
		return 0;
	free_bytes = s->size - 1 - s->len;
	return n < free_bytes ? n : free_bytes;
}

static int seq_append(struct slim_seq *s, const void *mem, unsigned int n)
{
	unsigned int room = seq_room(s, n);

	if (room) {
		memcpy(s->buf + s->len, mem, room);
		s->len += room;
		s->buf[s->len] = '\0';
	}
	if (room < n) {
		s->overflow = 1;
		return seq_error(s);
	}
	return n > INT_MAX ? INT_MAX : (int)n;
}

static int seq_vprintf_libc(struct slim_seq *s, const char *fmt, va_list ap)
{
	unsigned int avail = s->size - s->len;	/* the NUL's byte included */
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(s->size ? s->buf + s->len : NULL, avail, fmt, cp);
	va_end(cp);
	if (n < 0) {
		if (s->size)
			s->buf[s->len] = '\0';
		return -EINVAL;
	}
	if ((unsigned int)n < avail) {
		s->len += n;
		return n;
	}
	/* Did not fit: grow and print again, or keep what fitted. */
	if (seq_room(s, n) == (unsigned int)n) {
		vsnprintf(s->buf + s->len, s->size - s->len, fmt, ap);
		s->len += n;
		return n;
	}
	/* The buffer may have grown, just not enough: fill all of it. */
	if (s->size) {
		vsnprintf(s->buf + s->len, s->size - s->len, fmt, ap);
		s->len = s->size - 1;
	}
	s->overflow = 1;
	return seq_error(s);
}

/*
 * The kernel's printf and the C library's differ in one way TP_printk
 * meets: "%#x" of 0 is "0x0" in the kernel, "0" in glibc.  Formats with
 * a '#' are printed one conversion at a time so that case can be fixed.
 */
static const char *conv_end(const char *p)
{
	p += strspn(p + 1, "-+ #0'") + 1;
	p += strspn(p, "0123456789*");
	if (*p == '.')
		p += strspn(p + 1, "0123456789*") + 1;
	p += strspn(p, "hlLqjzt");
	return *p ? p : NULL;
}

static int length_of(const char *spec, const char *conv)
{
	const char *l = conv;

	while (l > spec && strchr("hlLqjzt", l[-1]))
		l--;
	if (conv - l >= 2 && l[0] == 'l')
		return 'q';		/* ll */
	if (conv - l >= 2 && l[0] == 'h')
		return 'H';		/* hh */
	return conv > l ? l[0] : 0;
}

static unsigned long long fetch_unsigned(int len, va_list *ap)
{
	switch (len) {
	case 'l': return va_arg(*ap, unsigned long);
	case 'q': case 'L': return va_arg(*ap, unsigned long long);
	case 'z': return va_arg(*ap, size_t);
	case 'j': return va_arg(*ap, uintmax_t);
	case 't': return (unsigned long long)va_arg(*ap, ptrdiff_t);
	case 'h': return (unsigned short)va_arg(*ap, unsigned int);
	case 'H': return (unsigned char)va_arg(*ap, unsigned int);
	default: return va_arg(*ap, unsigned int);
	}
}

/* One conversion, straight to the C library. */
static int seq_libc(struct slim_seq *s, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = seq_vprintf_libc(s, fmt, ap);
	va_end(ap);
	return ret;
}

/* "%#...x" of 0 the kernel's way: the prefix counts in the width. */
static int hash_hex_zero(struct slim_seq *s, const char *spec, char conv)
{
	int width = 0, left = strchr(spec, '-') != NULL, zero = 0;
	const char *p = spec + 1;
	char digits[64];

	while (strchr("-+ #0'", *p)) {
		zero |= *p == '0';
		p++;
	}
	width = atoi(p);
	snprintf(digits, sizeof(digits), "%s%0*d", conv == 'X' ? "0X" : "0x",
		 zero && !left && width > 3 ? width - 2 : 1, 0);
	return slim_seq_printf(s, left ? "%-*s" : "%*s", width, digits);
}

/*
 * The kernel's printk pointer extensions that name code: %pS "sym+off/size",
 * %ps "sym", %pB as %pS for a return address (the call is before it);
 * " [object]" follows a symbol of a shared object, as " [module]" does in
 * the kernel; no symbol prints the address as 0x%lx.  %px is the address
 * in hex, 16 digits, no prefix.
 */
static int is_ptr_ext(char c)
{
	return c == 'S' || c == 's' || c == 'B' || c == 'x';
}

static int seq_symbol(struct slim_seq *s, const char *spec, va_list *ap, char ext)
{
	int star[2], nstar = 0;
	const char *q;
	uintptr_t addr;
	char text[512], width[64];
	struct slim_symbol sym;
	const char *object;
	size_t n = strcspn(spec + 1, "p");
	uintptr_t at;

	for (q = spec; *q; q++)
		if (*q == '*' && nstar < 2)
			star[nstar++] = va_arg(*ap, int);
	addr = (uintptr_t)va_arg(*ap, void *);
	at = ext == 'B' && addr ? addr - 1 : addr;

	if (ext == 'x') {
		snprintf(text, sizeof(text), "%016lx", (unsigned long)addr);
	} else if (slim_symbol_at(at, &sym)) {
		snprintf(text, sizeof(text), "0x%lx", (unsigned long)addr);
	} else {
		object = sym.object ? strrchr(sym.object, '/') : NULL;
		object = object ? object + 1 : sym.object;
		if (ext == 's')
			snprintf(text, sizeof(text), "%s", sym.name);
		else
			snprintf(text, sizeof(text), "%s+0x%lx/0x%lx", sym.name,
				 (unsigned long)(addr - sym.start), (unsigned long)sym.size);
		if (object) {
			size_t len = strlen(text);

			snprintf(text + len, sizeof(text) - len, " [%s]", object);
		}
	}
	/* The spec's flags, width and precision apply to the text, as in the kernel. */
	if (n + 3 > sizeof(width))
		return slim_seq_puts(s, text);
	snprintf(width, sizeof(width), "%%%.*ss", (int)n, spec + 1);
	if (nstar == 2)
		return seq_libc(s, width, star[0], star[1], text);
	if (nstar == 1)
		return seq_libc(s, width, star[0], text);
	return seq_libc(s, width, text);
}

static int seq_spec(struct slim_seq *s, const char *spec, va_list *ap)
{
	size_t n = strlen(spec);
	char conv = spec[n - 1];
	int len = length_of(spec, spec + n - 1), star[2], nstar = 0;
	const char *p;
	unsigned long long u = 0;

	for (p = spec; *p; p++)
		if (*p == '*' && nstar < 2)
			star[nstar++] = va_arg(*ap, int);
	if (strchr("xXuo", conv)) {
		u = fetch_unsigned(len, ap);
		if (u == 0 && strchr(spec, '#') && (conv == 'x' || conv == 'X') && !nstar)
			return hash_hex_zero(s, spec, conv);
	}
#define SPEC_PRINT(val) (nstar == 2 ? seq_libc(s, spec, star[0], star[1], val) : \
			 nstar == 1 ? seq_libc(s, spec, star[0], val) :		\
			 seq_libc(s, spec, val))
	switch (conv) {
	case 'x': case 'X': case 'u': case 'o':
		return SPEC_PRINT(u);
	case 'd': case 'i':
		if (len == 'l' || len == 'q' || len == 'L' || len == 'z' || len == 'j' || len == 't')
			return SPEC_PRINT(fetch_unsigned(len, ap));
		return SPEC_PRINT(va_arg(*ap, int));
	case 'c':
		return SPEC_PRINT(va_arg(*ap, int));
	case 's':
		return SPEC_PRINT(va_arg(*ap, const char *));
	case 'p':
		return SPEC_PRINT(va_arg(*ap, void *));
	case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
		if (len == 'L')
			return SPEC_PRINT(va_arg(*ap, long double));
		return SPEC_PRINT(va_arg(*ap, double));
	case '%':
		return slim_seq_putc(s, '%');
	default:	/* %n and unknown conversions print nothing */
		return 0;
	}
#undef SPEC_PRINT
}

/* Formats the C library cannot print: "%#" (see above), %pS and friends. */
static int needs_walk(const char *fmt)
{
	const char *p = fmt, *end;

	if (strstr(fmt, "%#"))
		return 1;
	while ((p = strchr(p, '%'))) {
		end = conv_end(p);
		if (!end)
			return 0;
		if (*end == 'p' && is_ptr_ext(end[1]))
			return 1;
		p = end + 1;
	}
	return 0;
}

SLIM_EXPORT int slim_seq_vprintf(struct slim_seq *s, const char *fmt, va_list ap)
{
	char spec[64];
	const char *p = fmt, *pct, *end;
	unsigned int start = s->len;
	va_list cp;

	if (!needs_walk(fmt))
		return seq_vprintf_libc(s, fmt, ap);
	va_copy(cp, ap);
	while ((pct = strchr(p, '%'))) {
		slim_seq_putmem(s, p, (unsigned int)(pct - p));
		end = conv_end(pct);
		if (!end || (size_t)(end - pct) + 2 > sizeof(spec)) {
			p = pct;
			break;
		}
		memcpy(spec, pct, end - pct + 1);
		spec[end - pct + 1] = '\0';
		if (*end == 'p' && is_ptr_ext(end[1])) {
			/* %pSR and %pBR: R (a return address, "reliable") changes nothing here. */
			seq_symbol(s, spec, &cp, end[1]);
			end += (end[1] == 'S' || end[1] == 'B') && end[2] == 'R' ? 2 : 1;
		} else {
			seq_spec(s, spec, &cp);
		}
		p = end + 1;
	}
	va_end(cp);
	slim_seq_puts(s, p);
	return s->overflow ? seq_error(s) : (int)(s->len - start);
}

SLIM_EXPORT int slim_seq_printf(struct slim_seq *s, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = slim_seq_vprintf(s, fmt, ap);
	va_end(ap);
	return ret;
}

SLIM_EXPORT int slim_seq_puts(struct slim_seq *s, const char *str)
{
	size_t n = strlen(str);

	if (n > UINT_MAX) {
		s->overflow = 1;
		return seq_error(s);
	}
	return seq_append(s, str, n);
}

SLIM_EXPORT int slim_seq_putc(struct slim_seq *s, char c)
{
	return seq_append(s, &c, 1);
}

SLIM_EXPORT int slim_seq_putmem(struct slim_seq *s, const void *mem, unsigned int len)
{
	return seq_append(s, mem, len);
}

/*
 * Close a helper's text with a NUL so that the next helper on the same
 * scratch sequence starts a new string, and return the text. The pointer
 * is taken last: a growable sequence may have moved.
 */
static const char *helper_text(struct slim_seq *p, unsigned int start)
{
	slim_seq_putc(p, '\0');
	return p->buf + start;
}

/* One entry of either flag table type, read the same way. */
struct flag_entry {
	unsigned long long mask;
	const char *name;
};

typedef int (*flag_reader)(const void *names, unsigned int i, struct flag_entry *e);

static int read_flag(const void *names, unsigned int i, struct flag_entry *e)
{
	const struct slim_print_flag *f = (const struct slim_print_flag *)names + i;

	e->mask = f->mask;
	e->name = f->name;
	return e->name != NULL;
}

static int read_flag_u64(const void *names, unsigned int i, struct flag_entry *e)
{
	const struct slim_print_flag_u64 *f = (const struct slim_print_flag_u64 *)names + i;

	e->mask = f->mask;
	e->name = f->name;
	return e->name != NULL;
}

/*
 * The kernel's __print_flags: names of the entries whose bits are all set,
 * in table order, each clearing its bits; what no entry claimed follows as
 * hex. The scan stops once no bit is left, so flags == 0 prints nothing,
 * even if an entry has mask 0 (while flags != 0, a mask 0 entry matches).
 */
static const char *print_flags(struct slim_seq *p, const char *delim,
			       unsigned long long flags, const void *names,
			       flag_reader read)
{
	unsigned int start = p->len;
	struct flag_entry e;
	unsigned int i;
	int first = 1;

	for (i = 0; names && flags && read(names, i, &e); i++) {
		if ((flags & e.mask) != e.mask)
			continue;
		flags &= ~e.mask;
		if (!first && delim)
			slim_seq_puts(p, delim);
		first = 0;
		slim_seq_puts(p, e.name);
	}
	if (flags) {
		if (!first && delim)
			slim_seq_puts(p, delim);
		slim_seq_printf(p, "0x%llx", flags);
	}
	return helper_text(p, start);
}

/*
 * The kernel's __print_symbolic: the first entry equal to val, else val
 * in hex. As in the kernel, an entry whose name is "" counts as no match
 * (the hex form is printed when the match appended nothing).
 */
static const char *print_symbols(struct slim_seq *p, unsigned long long val,
				 const void *names, flag_reader read)
{
	unsigned int start = p->len;
	struct flag_entry e;
	unsigned int i;

	for (i = 0; names && read(names, i, &e); i++) {
		if (e.mask == val) {
			slim_seq_puts(p, e.name);
			break;
		}
	}
	if (p->len == start)
		slim_seq_printf(p, "0x%llx", val);
	return helper_text(p, start);
}

SLIM_EXPORT const char *slim_print_flags_seq(struct slim_seq *p, const char *delim,
					     unsigned long flags,
					     const struct slim_print_flag *names)
{
	/* widened to 64 bits: 0x%llx of it is the kernel's 0x%lx */
	return print_flags(p, delim, flags, names, read_flag);
}

SLIM_EXPORT const char *slim_print_flags_seq_u64(struct slim_seq *p, const char *delim,
						 unsigned long long flags,
						 const struct slim_print_flag_u64 *names)
{
	return print_flags(p, delim, flags, names, read_flag_u64);
}

SLIM_EXPORT const char *slim_print_symbols_seq(struct slim_seq *p, unsigned long val,
					       const struct slim_print_flag *names)
{
	return print_symbols(p, val, names, read_flag);
}

SLIM_EXPORT const char *slim_print_symbols_seq_u64(struct slim_seq *p, unsigned long long val,
						   const struct slim_print_flag_u64 *names)
{
	return print_symbols(p, val, names, read_flag_u64);
}

static void put_hex_byte(struct slim_seq *s, unsigned char b)
{
	char two[2] = { hex_digits[b >> 4], hex_digits[b & 0xf] };

	slim_seq_putmem(s, two, 2);
}

/* __print_hex: "de ad be ef"; __print_hex_str: "deadbeef". */
SLIM_EXPORT const char *slim_print_hex_seq(struct slim_seq *p, const void *buf, int len,
					   int concatenate)
{
	const unsigned char *b = buf;
	unsigned int start = p->len;
	int i;

	for (i = 0; b && i < len; i++) {
		if (i && !concatenate)
			slim_seq_putc(p, ' ');
		put_hex_byte(p, b[i]);
	}
	return helper_text(p, start);
}


static long long load_int(const unsigned char *ptr, unsigned int size)
{
	unsigned long long v = slim_load_uint(ptr, size);

	switch (size) {
	case 1:
		return (int8_t)v;
	case 2:
		return (int16_t)v;
	case 4:
		return (int32_t)v;
	default:
		return (int64_t)v;
	}
}

/*
 * __print_array: "{0x1,0x2}", each element in hex by its size. As in the
 * kernel, an element size other than 1, 2, 4 or 8 prints "BAD SIZE:N 0x.."
 * and the rest of the bytes one by one.
 */
SLIM_EXPORT const char *slim_print_array_seq(struct slim_seq *p, const void *buf, int count,
					     unsigned int el_size)
{
	const unsigned char *b = buf;
	unsigned int start = p->len;
	size_t total = 0, pos = 0;

	if (b && count > 0)
		total = (size_t)count * el_size;
	slim_seq_putc(p, '{');
	while (pos < total) {
		if (el_size == 1 || el_size == 2 || el_size == 4 || el_size == 8) {
			slim_seq_printf(p, "%s0x%llx", pos ? "," : "",
					(unsigned long long)slim_load_uint(b + pos, el_size));
		} else {
			slim_seq_printf(p, "BAD SIZE:%u 0x%x", el_size, (unsigned int)b[pos]);
			el_size = 1;
		}
		pos += el_size;
	}
	slim_seq_putc(p, '}');
	return helper_text(p, start);
}

/*
 * The kernel's bitmap_string(): groups of 32 bits from the most
 * significant, separated by commas, each as zero-padded hex, the first
 * group only as wide as the bits it has.
 */
SLIM_EXPORT const char *slim_print_bitmask_seq(struct slim_seq *p, const void *mask,
					       unsigned int bytes)
{
	const unsigned char *b = mask;
	unsigned int start = p->len;
	unsigned long long nr_bits = (unsigned long long)bytes * 8;
	long long i;

	if (!b || !bytes)
		return helper_text(p, start);
	for (i = (long long)((nr_bits + 31) / 32 * 32) - 32; i >= 0; i -= 32) {
		unsigned int width = nr_bits - (unsigned long long)i < 32 ?
				     (unsigned int)(nr_bits - (unsigned long long)i) : 32;
		unsigned long val = 0, bit;

		for (bit = 0; bit < width; bit++)
			val |= (unsigned long)slim_bitmask_test(b, bytes, (unsigned int)i +
								(unsigned int)bit) << bit;
		slim_seq_printf(p, "%s%0*lx", p->len == start ? "" : ",",
				(int)((width + 3) / 4), val);
	}
	return helper_text(p, start);
}

SLIM_EXPORT const void *slim_data_loc_get(const void *rec, unsigned int rec_len,
					  uint32_t loc, unsigned int *dlen)
{
	uint32_t off = slim_data_loc_offset(loc);
	uint32_t n = slim_data_loc_len(loc);

	if (!rec || !n || off > rec_len || n > rec_len - off) {
		if (dlen)
			*dlen = 0;
		return "";
	}
	if (dlen)
		*dlen = n;
	return (const unsigned char *)rec + off;
}

SLIM_EXPORT const char *slim_data_loc_str(const void *rec, unsigned int rec_len, uint32_t loc)
{
	unsigned int n;
	const char *str = slim_data_loc_get(rec, rec_len, loc, &n);

	if (!memchr(str, '\0', n))
		return "";
	return str;
}

/* Printers of whole records return what they appended, or the seq's error. */
static int seq_result(const struct slim_seq *s, unsigned int start)
{
	if (s->overflow)
		return seq_error(s);
	return (int)(s->len - start);
}

static int is_text_byte(unsigned char c)
{
	return (c >= 0x20 && c < 0x7f) || (c >= '\t' && c <= '\r');
}

static void put_byte_array(struct slim_seq *s, const unsigned char *b, unsigned int n)
{
	unsigned int i;

	slim_seq_puts(s, "ARRAY[");
	for (i = 0; i < n; i++) {
		if (i)
			slim_seq_puts(s, ", ");
		put_hex_byte(s, b[i]);
	}
	slim_seq_putc(s, ']');
}

/* Text up to the first NUL within n bytes; bytes that are not text go as an array. */
static void put_text(struct slim_seq *s, const unsigned char *b, unsigned int n)
{
	const unsigned char *nul = memchr(b, '\0', n);
	unsigned int text = nul ? (unsigned int)(nul - b) : n;
	unsigned int i;

	for (i = 0; i < text; i++) {
		if (!is_text_byte(b[i])) {
			put_byte_array(s, b, n);
			return;
		}
	}
	slim_seq_putmem(s, b, text);
}

static void put_number(struct slim_seq *s, const char *type, const unsigned char *b,
		       unsigned int size, int is_signed)
{
	if (strchr(type, '*'))
		slim_seq_printf(s, "0x%llx", (unsigned long long)slim_load_uint(b, size));
	else if (is_signed)
		slim_seq_printf(s, "%lld", load_int(b, size));
	else if (strstr(type, "long"))
		slim_seq_printf(s, "0x%llx", (unsigned long long)slim_load_uint(b, size));
	else
		slim_seq_printf(s, "%llu", (unsigned long long)slim_load_uint(b, size));
}

static void put_dynamic(struct slim_seq *s, const struct slim_field_table *t,
			const struct slim_field *f, const unsigned char *rec,
			unsigned int len)
{
	uint32_t loc = (uint32_t)slim_load_uint(rec + f->offset, 4);
	uint32_t want = slim_data_loc_len(loc);
	enum slim_filter_type ft = slim_field_filter_type(t, f);
	const unsigned char *b;
	unsigned int n;

	if (!strncmp(slim_field_type(t, f), "__rel_loc", 9))
		loc = slim_rel_to_data_loc(loc, (unsigned int)f->offset + 4);
	b = slim_data_loc_get(rec, len, loc, &n);
	if (n != want)
		slim_seq_puts(s, "<OVERFLOW>");
	else if (ft == SLIM_FILTER_DYN_STRING || ft == SLIM_FILTER_RDYN_STRING)
		put_text(s, b, n);
	else
		put_byte_array(s, b, n);
}

static void put_field(struct slim_seq *s, const struct slim_field_table *t,
		      const struct slim_field *f, const unsigned char *rec,
		      unsigned int len)
{
	const char *type = slim_field_type(t, f);
	const unsigned char *b = rec + f->offset;

	if ((unsigned int)f->offset + f->size > len) {
		slim_seq_puts(s, "<OVERFLOW>");
		return;
	}
	if ((!strncmp(type, "__data_loc", 10) || !strncmp(type, "__rel_loc", 9)) &&
	    f->size == 4) {
		put_dynamic(s, t, f, rec, len);
		return;
	}
	if (slim_field_filter_type(t, f) == SLIM_FILTER_STATIC_STRING) {
		put_text(s, b, f->size);
		return;
	}
	if (strchr(type, '[') || (f->size != 1 && f->size != 2 &&
				  f->size != 4 && f->size != 8)) {
		put_byte_array(s, b, f->size);
		return;
	}
	put_number(s, type, b, f->size, f->is_signed);
}

SLIM_EXPORT int slim_print_raw_fields(struct slim_seq *s, const struct slim_field_table *t,
				      const void *rec, unsigned int len)
{
	unsigned int start = s->len;
	unsigned int i;

	for (i = 0; t && rec && i < t->nr_fields; i++) {
		const struct slim_field *f = &t->fields[i];

		slim_seq_printf(s, "%s%s=", i ? " " : "", slim_field_name(t, f));
		put_field(s, t, f, rec, len);
	}
	return seq_result(s, start);
}

SLIM_EXPORT int slim_print_hex_record(struct slim_seq *s, const void *rec, unsigned int len)
{
	const unsigned char *b = rec;
	unsigned int start = s->len;
	unsigned int pos, n, i;

	for (pos = 0; b && pos < len; pos += n) {
		n = len - pos < 8 ? len - pos : 8;
		for (i = 0; i < n; i++) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			put_hex_byte(s, b[pos + n - 1 - i]);
#else
			put_hex_byte(s, b[pos + i]);
#endif
		}
		slim_seq_putc(s, ' ');
	}
	return seq_result(s, start);
}

SLIM_EXPORT int slim_print_bin_record(struct slim_seq *s, const void *rec, unsigned int len)
{
	unsigned int start = s->len;

	if (rec)
		slim_seq_putmem(s, rec, len);
	return seq_result(s, start);
}

/*
 * One line of the format file. An array's type text is "char[16]" and its
 * line reads "char name[16]"; a __data_loc type keeps its brackets before
 * the name ("__data_loc char[] name"), as the kernel prints them.
 */
static void format_field(struct slim_seq *s, const struct slim_field_table *t,
			 const struct slim_field *f)
{
	const char *type = slim_field_type(t, f);
	const char *name = slim_field_name(t, f);
	const char *bracket = strchr(type, '[');

	/* Only __data_loc: the kernel prints "__rel_loc char name[]". */
	if (!strncmp(type, "__data_loc", 10))
		bracket = NULL;
	if (bracket)
		slim_seq_printf(s, "\tfield:%.*s %s%s;", (int)(bracket - type), type,
				name, bracket);
	else
		slim_seq_printf(s, "\tfield:%s %s;", type, name);
	slim_seq_printf(s, "\toffset:%u;\tsize:%u;\tsigned:%d;\n", f->offset, f->size,
			f->is_signed ? 1 : 0);
}

static void format_fields(struct slim_seq *s, const struct slim_field_table *t)
{
	unsigned int i;

	for (i = 0; t && i < t->nr_fields; i++)
		format_field(s, t, &t->fields[i]);
}

SLIM_EXPORT int slim_format_print(struct slim_seq *s, const char *name, int id,
				  const struct slim_field_table *t, const char *print_fmt)
{
	unsigned int start = s->len;

	slim_seq_printf(s, "name: %s\nID: %d\nformat:\n", name ? name : "", id);
	format_fields(s, &slim_common_fields);
	slim_seq_putc(s, '\n');
	format_fields(s, t);
	slim_seq_printf(s, "\nprint fmt: %s\n", print_fmt ? print_fmt : "");
	return seq_result(s, start);
}
