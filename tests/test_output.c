// SPDX-License-Identifier: MIT
/*
 * Text sequences and the printers built on them. The expected strings of
 * the TP_printk helpers follow the kernel's trace_print_*_seq() rules
 * (see the comments in src/text/print.c); the raw printer follows trace-cmd
 * report -R (libtraceevent's tep_print_fields) without its leading space.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <slimtrace/field.h>
#include <slimtrace/output.h>

#include "check.h"
#include "kernel_tables.h"

/* Records laid out as the dialect lays them out, checked against the tables. */
struct sched_switch_rec {
	struct slim_trace_entry ent;
	char prev_comm[16];
	int32_t prev_pid;
	int32_t prev_prio;
	int64_t prev_state;
	char next_comm[16];
	int32_t next_pid;
	int32_t next_prio;
};

struct kmalloc_rec {
	struct slim_trace_entry ent;
	uint64_t call_site;
	uint64_t ptr;
	uint64_t bytes_req;
	uint64_t bytes_alloc;
	uint64_t gfp_flags;
	int32_t node;
};

struct irq_rec {
	struct slim_trace_entry ent;
	int32_t irq;
	uint32_t name;
	char data[32];
};

_Static_assert(offsetof(struct sched_switch_rec, next_prio) == 60, "sched_switch layout");
_Static_assert(sizeof(struct sched_switch_rec) == 64, "sched_switch size");
_Static_assert(offsetof(struct kmalloc_rec, node) == 48, "kmalloc layout");
_Static_assert(offsetof(struct irq_rec, name) == 12, "irq layout");

static int vprintf_wrapper(struct slim_seq *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int vprintf_wrapper(struct slim_seq *s, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = slim_seq_vprintf(s, fmt, ap);
	va_end(ap);
	return ret;
}

static void test_seq_fixed(void)
{
	char buf[16 + 8];
	struct slim_seq s;

	memset(buf, 'Z', sizeof(buf));
	slim_seq_init(&s, buf, 16);
	CHECK_EQ_STR(s.buf, "");
	CHECK_EQ_INT(slim_seq_printf(&s, "abc%d", 12), 5);
	CHECK_EQ_INT(slim_seq_puts(&s, "defgh"), 5);
	CHECK_EQ_INT(slim_seq_putc(&s, 'x'), 1);
	CHECK_EQ_INT(vprintf_wrapper(&s, "%c%c", 'y', 'z'), 2);
	CHECK_EQ_STR(buf, "abc12defghxyz");
	CHECK_EQ_INT(s.len, 13);
	CHECK_EQ_INT(s.overflow, 0);

	/* 15 bytes of text fit in 16: the rest is cut, never past size */
	CHECK_EQ_INT(slim_seq_puts(&s, "0123456789"), -ENOSPC);
	CHECK_EQ_STR(buf, "abc12defghxyz01");
	CHECK_EQ_INT(s.len, 15);
	CHECK_EQ_INT(s.overflow, 1);
	CHECK_EQ_INT(slim_seq_printf(&s, "%d", 7), -ENOSPC);
	CHECK_EQ_INT(slim_seq_putc(&s, 'q'), -ENOSPC);
	CHECK_EQ_INT(slim_seq_putmem(&s, "qq", 2), -ENOSPC);
	CHECK_EQ_STR(buf, "abc12defghxyz01");
	CHECK(memcmp(buf + 16, "ZZZZZZZZ", 8) == 0);

	slim_seq_reset(&s);
	CHECK_EQ_INT(s.len, 0);
	CHECK_EQ_INT(s.overflow, 0);
	CHECK_EQ_STR(buf, "");

	/* printf cut in the middle of its output */
	CHECK_EQ_INT(slim_seq_printf(&s, "%s-%s", "abcdefghij", "klmnopqrst"), -ENOSPC);
	CHECK_EQ_STR(buf, "abcdefghij-klmn");
	CHECK(memcmp(buf + 16, "ZZZZZZZZ", 8) == 0);

	/* bytes, NULs included */
	slim_seq_reset(&s);
	CHECK_EQ_INT(slim_seq_putmem(&s, "a\0b", 3), 3);
	CHECK_EQ_INT(s.len, 3);
	CHECK(memcmp(buf, "a\0b\0", 4) == 0);
	CHECK_EQ_INT(slim_seq_puts(&s, ""), 0);
	CHECK_EQ_INT(s.len, 3);
}

static void test_seq_empty(void)
{
	char one[1] = { 'Z' };
	struct slim_seq s;

	slim_seq_init(&s, NULL, 0);
	CHECK_EQ_STR(s.buf, "");
	CHECK_EQ_INT(slim_seq_printf(&s, "x%d", 1), -ENOSPC);
	CHECK_EQ_INT(slim_seq_puts(&s, "x"), -ENOSPC);
	CHECK_EQ_STR(s.buf, "");
	CHECK_EQ_INT(s.len, 0);
	CHECK_EQ_STR(slim_print_hex_seq(&s, "ab", 2, 0), "");

	/* room for the NUL only */
	slim_seq_init(&s, one, 1);
	CHECK_EQ_INT(one[0], '\0');
	CHECK_EQ_INT(slim_seq_putc(&s, 'a'), -ENOSPC);
	CHECK_EQ_INT(slim_seq_printf(&s, "%s", "abc"), -ENOSPC);
	CHECK_EQ_INT(one[0], '\0');
	CHECK_EQ_INT(s.len, 0);
}

static void test_seq_dynamic(void)
{
	static char big[5001];
	struct slim_seq s;
	unsigned int i;
	int ok = 1;

	slim_seq_init_dynamic(&s);
	CHECK_EQ_STR(s.buf, "");
	CHECK_EQ_INT(s.len, 0);
	for (i = 0; i < 1000; i++)
		ok &= slim_seq_printf(&s, "%09u,", i) == 10;
	CHECK(ok);
	CHECK_EQ_INT(s.len, 10000);
	CHECK_EQ_INT(s.overflow, 0);
	CHECK(strncmp(s.buf, "000000000,000000001,", 20) == 0);
	CHECK(strcmp(s.buf + 9990, "000000999,") == 0);

	memset(big, 'b', 5000);
	CHECK_EQ_INT(slim_seq_puts(&s, big), 5000);
	CHECK_EQ_INT(slim_seq_printf(&s, "%s|%s", big, big), 10001);
	CHECK_EQ_INT(s.len, 25001);
	CHECK_EQ_INT(strlen(s.buf), 25001);
	CHECK_EQ_INT(s.buf[20000], '|');

	slim_seq_reset(&s);
	CHECK_EQ_STR(s.buf, "");
	CHECK_EQ_INT(slim_seq_putmem(&s, big, 300), 300);
	CHECK_EQ_INT(s.len, 300);

	slim_seq_free(&s);
	CHECK_EQ_STR(s.buf, "");
	CHECK_EQ_INT(s.len, 0);
	/* usable again after free, and free twice is harmless */
	CHECK_EQ_INT(slim_seq_printf(&s, "%s", "again"), 5);
	CHECK_EQ_STR(s.buf, "again");
	slim_seq_free(&s);
	slim_seq_free(&s);
}

static const struct slim_print_flag task_state[] = {
	{ 0x01, "S" }, { 0x02, "D" }, { 0x04, "T" }, { 0x08, "t" },
	{ 0x10, "X" }, { 0x20, "Z" }, { 0x40, "P" }, { 0x80, "I" },
	{ 0, NULL },
};

/* Composite masks first, as the gfp tables have them. */
static const struct slim_print_flag gfp[] = {
	{ 0xcc0, "GFP_KERNEL" }, { 0xc00, "__GFP_RECLAIM" }, { 0x40, "__GFP_IO" },
	{ 0x80, "__GFP_FS" }, { 0x100, "__GFP_ZERO" },
	{ 0, NULL },
};

static void test_print_flags(void)
{
	static const struct slim_print_flag overlap[] = {
		{ 0x2, "B" }, { 0x6, "BC" }, { 0, NULL },
	};
	static const struct slim_print_flag zero_mask[] = {
		{ 0, "NONE" }, { 0x1, "A" }, { 0, NULL },
	};
	static const struct slim_print_flag_u64 wide[] = {
		{ 1ULL << 40, "HIGH" }, { 1, "LOW" }, { 0, NULL },
	};
	char buf[256];
	struct slim_seq p;

	slim_seq_init(&p, buf, sizeof(buf));
	CHECK_EQ_STR(slim_print_flags_seq(&p, "|", 0x1, task_state), "S");
	CHECK_EQ_STR(slim_print_flags_seq(&p, "|", 0x3, task_state), "S|D");
	CHECK_EQ_STR(slim_print_flags_seq(&p, "|", 0x81, task_state), "S|I");
	/* bits no entry names follow in hex, after the delimiter if names came first */
	CHECK_EQ_STR(slim_print_flags_seq(&p, "|", 0x100, task_state), "0x100");
	CHECK_EQ_STR(slim_print_flags_seq(&p, "|", 0x302, task_state), "D|0x300");
	CHECK_EQ_STR(slim_print_flags_seq(&p, "|", ~0UL, task_state),
		     "S|D|T|t|X|Z|P|I|0xffffffffffffff00");
	/* zero prints nothing at all */
	CHECK_EQ_STR(slim_print_flags_seq(&p, "|", 0, task_state), "");
	CHECK_EQ_STR(slim_print_flags_seq(&p, "|", 0, zero_mask), "");
	/* while bits are left, a mask 0 entry matches (as in the kernel) */
	CHECK_EQ_STR(slim_print_flags_seq(&p, "|", 0x1, zero_mask), "NONE|A");
	/* table order, each match clearing its bits */
	CHECK_EQ_STR(slim_print_flags_seq(&p, "|", 0xcc0, gfp), "GFP_KERNEL");
	CHECK_EQ_STR(slim_print_flags_seq(&p, "|", 0xdc0, gfp), "GFP_KERNEL|__GFP_ZERO");
	CHECK_EQ_STR(slim_print_flags_seq(&p, "|", 0xc40, gfp), "__GFP_RECLAIM|__GFP_IO");
	CHECK_EQ_STR(slim_print_flags_seq(&p, "|", 0x6, overlap), "B|0x4");
	/* other delimiters */
	CHECK_EQ_STR(slim_print_flags_seq(&p, ", ", 0x7, task_state), "S, D, T");
	CHECK_EQ_STR(slim_print_flags_seq(&p, NULL, 0x103, task_state), "SD0x100");
	CHECK_EQ_STR(slim_print_flags_seq(&p, "|", 0x5, NULL), "0x5");
	/* 64-bit tables */
	CHECK_EQ_STR(slim_print_flags_seq_u64(&p, "|", (1ULL << 40) | 1, wide), "HIGH|LOW");
	CHECK_EQ_STR(slim_print_flags_seq_u64(&p, "|", (1ULL << 63) | 1, wide),
		     "LOW|0x8000000000000000");
	CHECK_EQ_INT(p.overflow, 0);
}

static void test_print_symbolic(void)
{
	static const struct slim_print_flag syms[] = {
		{ 0, "zero" }, { 1, "one" }, { 42, "answer" }, { 5, "first" },
		{ 5, "second" }, { 3, "" }, { 0, NULL },
	};
	static const struct slim_print_flag_u64 wide[] = {
		{ 1ULL << 40, "TERA" }, { 0, NULL },
	};
	char buf[256];
	struct slim_seq p;

	slim_seq_init(&p, buf, sizeof(buf));
	CHECK_EQ_STR(slim_print_symbols_seq(&p, 42, syms), "answer");
	CHECK_EQ_STR(slim_print_symbols_seq(&p, 0, syms), "zero");
	CHECK_EQ_STR(slim_print_symbols_seq(&p, 7, syms), "0x7");
	CHECK_EQ_STR(slim_print_symbols_seq(&p, 5, syms), "first");
	/* an empty name prints nothing, which the kernel takes for no match */
	CHECK_EQ_STR(slim_print_symbols_seq(&p, 3, syms), "0x3");
	CHECK_EQ_STR(slim_print_symbols_seq(&p, ~0UL, syms), "0xffffffffffffffff");
	CHECK_EQ_STR(slim_print_symbols_seq(&p, 1, NULL), "0x1");
	CHECK_EQ_STR(slim_print_symbols_seq_u64(&p, 1ULL << 40, wide), "TERA");
	CHECK_EQ_STR(slim_print_symbols_seq_u64(&p, 1ULL << 41, wide), "0x20000000000");
	CHECK_EQ_INT(p.overflow, 0);
}

static void test_print_hex(void)
{
	static const unsigned char bytes[20] = {
		0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x0a, 0xf0, 8, 9,
		10, 11, 12, 13, 14, 15, 16, 17, 18, 0xff,
	};
	char buf[256];
	struct slim_seq p;

	slim_seq_init(&p, buf, sizeof(buf));
	CHECK_EQ_STR(slim_print_hex_seq(&p, bytes, 4, 0), "de ad be ef");
	CHECK_EQ_STR(slim_print_hex_seq(&p, bytes, 4, 1), "deadbeef");
	CHECK_EQ_STR(slim_print_hex_seq(&p, bytes, 1, 0), "de");
	CHECK_EQ_STR(slim_print_hex_seq(&p, bytes, 0, 0), "");
	CHECK_EQ_STR(slim_print_hex_seq(&p, bytes, -3, 0), "");
	CHECK_EQ_STR(slim_print_hex_seq(&p, NULL, 4, 0), "");
	/* past 16 bytes the spacing goes on (kernels before 6.4 lost one space there) */
	CHECK_EQ_STR(slim_print_hex_seq(&p, bytes, 20, 0),
		     "de ad be ef 00 01 0a f0 08 09 0a 0b 0c 0d 0e 0f 10 11 12 ff");
	CHECK_EQ_STR(slim_print_hex_seq(&p, bytes, 20, 1),
		     "deadbeef00010af008090a0b0c0d0e0f101112ff");
	CHECK_EQ_INT(p.overflow, 0);
}

static void test_print_array(void)
{
	static const uint8_t u8s[] = { 1, 2, 0xff };
	static const uint16_t u16s[] = { 0x1234, 0 };
	static const uint32_t u32s[] = { 0xdeadbeef, 7 };
	static const uint64_t u64s[] = { 1ULL << 40, ~0ULL };
	static const unsigned char odd[] = { 1, 2, 3, 4, 5, 6 };
	unsigned char unaligned[1 + 8];
	char buf[512];
	struct slim_seq p;
	uint32_t v = 0x01020304;

	slim_seq_init(&p, buf, sizeof(buf));
	CHECK_EQ_STR(slim_print_array_seq(&p, u8s, 3, 1), "{0x1,0x2,0xff}");
	CHECK_EQ_STR(slim_print_array_seq(&p, u16s, 2, 2), "{0x1234,0x0}");
	CHECK_EQ_STR(slim_print_array_seq(&p, u32s, 2, 4), "{0xdeadbeef,0x7}");
	CHECK_EQ_STR(slim_print_array_seq(&p, u64s, 2, 8), "{0x10000000000,0xffffffffffffffff}");
	CHECK_EQ_STR(slim_print_array_seq(&p, u32s, 0, 4), "{}");
	CHECK_EQ_STR(slim_print_array_seq(&p, u32s, -1, 4), "{}");
	CHECK_EQ_STR(slim_print_array_seq(&p, NULL, 2, 4), "{}");
	/* a size the kernel does not know: one complaint, then byte by byte */
	CHECK_EQ_STR(slim_print_array_seq(&p, odd, 2, 3), "{BAD SIZE:3 0x1,0x2,0x3,0x4,0x5,0x6}");
	memcpy(unaligned + 1, &v, 4);
	memcpy(unaligned + 5, &v, 4);
	CHECK_EQ_STR(slim_print_array_seq(&p, unaligned + 1, 2, 4), "{0x1020304,0x1020304}");
	CHECK_EQ_INT(p.overflow, 0);
}

/* Several helpers feeding one printf, as generated print functions do. */
static void test_shared_scratch(void)
{
	static const struct slim_print_flag syms[] = { { 9, "nine" }, { 0, NULL } };
	char pbuf[128], sbuf[128];
	struct slim_seq p, s;

	slim_seq_init(&p, pbuf, sizeof(pbuf));
	slim_seq_init(&s, sbuf, sizeof(sbuf));
	slim_seq_printf(&s, "state=%s gfp=%s sym=%s hex=%s arr=%s",
			slim_print_flags_seq(&p, "|", 0x3, task_state),
			slim_print_flags_seq(&p, "|", 0xdc0, gfp),
			slim_print_symbols_seq(&p, 9, syms),
			slim_print_hex_seq(&p, "\x01\x02", 2, 0),
			slim_print_array_seq(&p, "\x05\x06", 2, 1));
	CHECK_EQ_STR(sbuf, "state=S|D gfp=GFP_KERNEL|__GFP_ZERO sym=nine hex=01 02 arr={0x5,0x6}");

	/* reset per event: the scratch is reused from the start */
	slim_seq_reset(&p);
	CHECK_EQ_STR(slim_print_flags_seq(&p, "|", 0x4, task_state), "T");
	CHECK_EQ_INT(p.len, 2);
}

/* A full scratch sequence cuts and then yields "", never more. */
static void test_full_scratch(void)
{
	char pbuf[6 + 4];
	struct slim_seq p;
	const char *a, *b, *c;

	memset(pbuf, 'Z', sizeof(pbuf));
	slim_seq_init(&p, pbuf, 6);
	a = slim_print_hex_seq(&p, "\xab", 1, 0);	/* "ab" + NUL */
	b = slim_print_flags_seq(&p, "|", 0x3, task_state);	/* "S|D" does not fit */
	c = slim_print_symbols_seq(&p, 1, NULL);
	CHECK_EQ_STR(a, "ab");
	CHECK_EQ_STR(b, "S|");
	CHECK_EQ_STR(c, "");
	CHECK_EQ_INT(p.overflow, 1);
	CHECK_EQ_INT(p.len, 5);
	CHECK(memcmp(pbuf + 6, "ZZZZ", 4) == 0);
}

static void test_data_loc(void)
{
	unsigned char rec[32];
	unsigned int n = 99;
	const unsigned char *b;

	memset(rec, 'x', sizeof(rec));
	memcpy(rec + 16, "hello", 6);
	b = slim_data_loc_get(rec, sizeof(rec), (6u << 16) | 16, &n);
	CHECK(b == rec + 16);
	CHECK_EQ_INT(n, 6);
	/* the last bytes of the record */
	b = slim_data_loc_get(rec, sizeof(rec), (5u << 16) | 27, &n);
	CHECK(b == rec + 27);
	CHECK_EQ_INT(n, 5);
	/* one byte past the end, an offset past the end, the largest word */
	n = 99;
	CHECK_EQ_STR(slim_data_loc_get(rec, sizeof(rec), (6u << 16) | 27, &n), "");
	CHECK_EQ_INT(n, 0);
	n = 99;
	CHECK_EQ_STR(slim_data_loc_get(rec, sizeof(rec), (1u << 16) | 40, &n), "");
	CHECK_EQ_INT(n, 0);
	n = 99;
	CHECK_EQ_STR(slim_data_loc_get(rec, sizeof(rec), 0xffffffffu, &n), "");
	CHECK_EQ_INT(n, 0);
	n = 99;
	CHECK_EQ_STR(slim_data_loc_get(rec, sizeof(rec), 16, &n), "");
	CHECK_EQ_INT(n, 0);
	CHECK_EQ_STR(slim_data_loc_get(NULL, 0, (1u << 16), &n), "");
	CHECK(slim_data_loc_get(rec, sizeof(rec), (6u << 16) | 16, NULL) == rec + 16);

	CHECK_EQ_STR(slim_data_loc_str(rec, sizeof(rec), (6u << 16) | 16), "hello");
	/* no NUL inside the field: printing it would run on */
	CHECK_EQ_STR(slim_data_loc_str(rec, sizeof(rec), (5u << 16) | 16), "");
	CHECK_EQ_STR(slim_data_loc_str(rec, sizeof(rec), (4u << 16) | 28), "");
	CHECK_EQ_STR(slim_data_loc_str(rec, sizeof(rec), (9u << 16) | 28), "");
}

static void fill_sched_switch(struct sched_switch_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->ent.type = 372;
	r->ent.pid = 1;
	strcpy(r->prev_comm, "swapper/0");
	r->prev_pid = 0;
	r->prev_prio = 120;
	r->prev_state = -1;
	strcpy(r->next_comm, "kworker/1:2");
	r->next_pid = 77;
	r->next_prio = 99;
}

static void test_raw_fields(void)
{
	struct sched_switch_rec ss;
	struct kmalloc_rec km;
	struct irq_rec irq;
	char buf[512];
	struct slim_seq s;
	int ret;

	slim_seq_init(&s, buf, sizeof(buf));
	fill_sched_switch(&ss);
	ret = slim_print_raw_fields(&s, &sched_switch_table, &ss, sizeof(ss));
	CHECK_EQ_STR(buf, "prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=-1 "
		     "next_comm=kworker/1:2 next_pid=77 next_prio=99");
	CHECK_EQ_INT(ret, strlen(buf));

	/* a comm of 16 bytes has no NUL: it stops at the field's end */
	memcpy(ss.next_comm, "0123456789abcdef", 16);
	/* bytes that are not text print as an array */
	memcpy(ss.prev_comm, "a\x01", 3);
	slim_seq_reset(&s);
	slim_print_raw_fields(&s, &sched_switch_table, &ss, sizeof(ss));
	CHECK_EQ_STR(buf, "prev_comm=ARRAY[61, 01, 00, 70, 70, 65, 72, 2f, "
		     "30, 00, 00, 00, 00, 00, 00, 00] "
		     "prev_pid=0 prev_prio=120 prev_state=-1 "
		     "next_comm=0123456789abcdef next_pid=77 next_prio=99");

	memset(&km, 0, sizeof(km));
	km.call_site = 0xffffffff81234567ULL;
	km.ptr = 0xffff888000001000ULL;
	km.bytes_req = 100;
	km.bytes_alloc = 128;
	km.gfp_flags = 0xcc0;
	km.node = -1;
	slim_seq_reset(&s);
	slim_print_raw_fields(&s, &kmalloc_table, &km, sizeof(km));
	CHECK_EQ_STR(buf, "call_site=0xffffffff81234567 ptr=0xffff888000001000 bytes_req=100 "
		     "bytes_alloc=128 gfp_flags=0xcc0 node=-1");

	memset(&irq, 0, sizeof(irq));
	irq.irq = 9;
	irq.name = (5u << 16) | offsetof(struct irq_rec, data);
	memcpy(irq.data, "acpi", 5);
	slim_seq_reset(&s);
	slim_print_raw_fields(&s, &irq_handler_entry_table, &irq, 16 + 5);
	CHECK_EQ_STR(buf, "irq=9 name=acpi");

	/* corrupt records: a __data_loc past the end, a record cut short */
	slim_seq_reset(&s);
	slim_print_raw_fields(&s, &irq_handler_entry_table, &irq, 16 + 4);
	CHECK_EQ_STR(buf, "irq=9 name=<OVERFLOW>");
	irq.name = 0xffffffffu;
	slim_seq_reset(&s);
	slim_print_raw_fields(&s, &irq_handler_entry_table, &irq, sizeof(irq));
	CHECK_EQ_STR(buf, "irq=9 name=<OVERFLOW>");
	slim_seq_reset(&s);
	slim_print_raw_fields(&s, &irq_handler_entry_table, &irq, 10);
	CHECK_EQ_STR(buf, "irq=<OVERFLOW> name=<OVERFLOW>");
	slim_seq_reset(&s);
	CHECK_EQ_INT(slim_print_raw_fields(&s, NULL, &irq, sizeof(irq)), 0);
	CHECK_EQ_STR(buf, "");
}

/* Types the kernel tables above do not have. */
static void test_raw_types(void)
{
	static const char strings[] =
		"u8[4]\0"		/* 0 */
		"mac\0"			/* 6 */
		"short\0"		/* 10 */
		"sh\0"			/* 16 */
		"unsigned char\0"	/* 19 */
		"uc\0"			/* 33 */
		"__data_loc u8[]\0"	/* 36 */
		"blob\0"		/* 52 */
		"unsigned long long\0"	/* 57 */
		"ull\0"			/* 76 */
		"u64\0"			/* 80 */
		"big\0"			/* 84 */
		"u24\0"			/* 88 */
		"odd\0";		/* 92 */
	static const struct slim_field fields[] = {
		{ 0, 6, 8, 4, 0, SLIM_FILTER_AUTO },
		{ 10, 16, 12, 2, 1, SLIM_FILTER_AUTO },
		{ 19, 33, 14, 1, 0, SLIM_FILTER_AUTO },
		{ 36, 52, 16, 4, 0, SLIM_FILTER_AUTO },
		{ 57, 76, 24, 8, 0, SLIM_FILTER_AUTO },
		{ 80, 84, 32, 8, 0, SLIM_FILTER_AUTO },
		{ 88, 92, 40, 3, 0, SLIM_FILTER_AUTO },
	};
	static const struct slim_field_table t = { strings, fields, 7, 43 };
	unsigned char rec[48];
	char buf[512];
	struct slim_seq s;
	int16_t sh = -3;
	uint32_t loc = (3u << 16) | 44;
	uint64_t ull = 0xabc, big = 123456789012ULL;

	memset(rec, 0, sizeof(rec));
	memcpy(rec + 8, "\xde\xad\xbe\xef", 4);
	memcpy(rec + 12, &sh, 2);
	rec[14] = 200;
	memcpy(rec + 16, &loc, 4);
	memcpy(rec + 24, &ull, 8);
	memcpy(rec + 32, &big, 8);
	memcpy(rec + 40, "\x01\x02\x03", 3);
	memcpy(rec + 44, "\x01\xab\x10", 3);
	slim_seq_init(&s, buf, sizeof(buf));
	slim_print_raw_fields(&s, &t, rec, 47);
	CHECK_EQ_STR(buf, "mac=ARRAY[de, ad, be, ef] sh=-3 uc=200 blob=ARRAY[01, ab, 10] "
		     "ull=0xabc big=123456789012 odd=ARRAY[01, 02, 03]");
}

static void test_hex_bin_record(void)
{
	unsigned char rec[12];
	char buf[128];
	struct slim_seq s;
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(rec); i++)
		rec[i] = i;
	slim_seq_init(&s, buf, sizeof(buf));
	ret = slim_print_hex_record(&s, rec, sizeof(rec));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	CHECK_EQ_STR(buf, "0706050403020100 0b0a0908 ");
#else
	CHECK_EQ_STR(buf, "0001020304050607 08090a0b ");
#endif
	CHECK_EQ_INT(ret, strlen(buf));
	slim_seq_reset(&s);
	CHECK_EQ_INT(slim_print_hex_record(&s, rec, 0), 0);
	CHECK_EQ_STR(buf, "");

	slim_seq_reset(&s);
	ret = slim_print_bin_record(&s, rec, sizeof(rec));
	CHECK_EQ_INT(ret, sizeof(rec));
	CHECK_EQ_INT(s.len, sizeof(rec));
	CHECK(memcmp(buf, rec, sizeof(rec)) == 0);

	/* too long for the sequence: cut, flagged, an error */
	slim_seq_init(&s, buf, 8);
	CHECK_EQ_INT(slim_print_bin_record(&s, rec, sizeof(rec)), -ENOSPC);
	CHECK_EQ_INT(s.len, 7);
	CHECK(s.overflow);
	slim_seq_init(&s, buf, 8);
	CHECK_EQ_INT(slim_print_hex_record(&s, rec, sizeof(rec)), -ENOSPC);
	CHECK_EQ_INT(strlen(buf), 7);
}

/*
 * Sequences share no state: threads each using their own, empty and
 * growable ones included, must be clean under TSan. The threads only
 * count mismatches; the checks run in main.
 */
static void *seq_thread(void *arg)
{
	static const unsigned char bytes[] = { 1, 2, 3 };
	unsigned long bad = 0;
	struct slim_seq e, d, f;
	char fbuf[64];
	int i;

	(void)arg;
	for (i = 0; i < 2000; i++) {
		slim_seq_init(&e, NULL, 0);
		slim_seq_printf(&e, "%d", i);
		bad += e.buf[0] != '\0';
		slim_seq_init_dynamic(&d);
		slim_seq_printf(&d, "%d", i);
		bad += (unsigned int)atoi(d.buf) != (unsigned int)i;
		slim_seq_free(&d);
		slim_seq_init(&f, fbuf, sizeof(fbuf));
		bad += strcmp(slim_print_hex_seq(&f, bytes, 3, 1), "010203") != 0;
		bad += strcmp(slim_print_flags_seq(&f, "|", 0x3, task_state), "S|D") != 0;
	}
	return (void *)bad;
}

static void test_threads(void)
{
	pthread_t th[4];
	void *bad;
	int i;

	for (i = 0; i < 4; i++)
		CHECK_EQ_INT(pthread_create(&th[i], NULL, seq_thread, NULL), 0);
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], &bad);
		CHECK_EQ_INT((unsigned long)bad, 0);
	}
}

/* The kernel's printf: "%#x" of 0 is "0x0" (glibc prints "0"). */
static void test_alt_hex_zero(void)
{
	char buf[128];
	struct slim_seq s;

	slim_seq_init(&s, buf, sizeof(buf));
	slim_seq_printf(&s, "[%#x][%#X][%#lx][%#08x][%-#6x][%#x][%d %s %c%%]",
			0, 0, 0UL, 0, 0, 26, -5, "str", 'q');
	CHECK_EQ_STR(buf, "[0x0][0X0][0x0][0x000000][0x0   ][0x1a][-5 str q%]");
	slim_seq_reset(&s);
	slim_seq_printf(&s, "%#x|%lld|%zu|%#llx|%5.1f", 0, -3LL, (size_t)7, 0ULL, 2.25);
	CHECK_EQ_STR(buf, "0x0|-3|7|0x0|  2.2");
}

int main(void)
{
	test_alt_hex_zero();
	test_seq_fixed();
	test_seq_empty();
	test_seq_dynamic();
	test_print_flags();
	test_print_symbolic();
	test_print_hex();
	test_print_array();
	test_shared_scratch();
	test_full_scratch();
	test_data_loc();
	test_raw_fields();
	test_raw_types();
	test_hex_bin_record();
	test_threads();
	return check_done("output");
}
