// SPDX-License-Identifier: MIT
/*
 * Field tables and the `format` file text. The tables below are written
 * by hand the way the dialect's macros lay them out (one strings blob,
 * 16-bit offsets into it), with the fields of five real kernel events;
 * the text slim_format_print makes of them must equal, byte for byte, the
 * format files captured from a running kernel in tests/data/kernel/formats/.
 *
 * The data files are found under $SLIM_SRCDIR if set, else "../../.." from
 * the working directory: tests/run.sh runs each test from build/<variant>/tests/.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slimtrace/field.h>
#include <slimtrace/output.h>

#include "check.h"
#include "kernel_tables.h"

static const char sched_process_fork_strings[] =
	"__data_loc char[]\0"	/* 0 */
	"parent_comm\0"	/* 18 */
	"pid_t\0"	/* 30 */
	"parent_pid\0"	/* 36 */
	"child_comm\0"	/* 47 */
	"child_pid\0"	/* 58 */;
static const struct slim_field sched_process_fork_fields[] = {
	{ 0, 18, 8, 4, 0, SLIM_FILTER_AUTO },	/* __data_loc char[] parent_comm */
	{ 30, 36, 12, 4, 1, SLIM_FILTER_AUTO },	/* pid_t parent_pid */
	{ 0, 47, 16, 4, 0, SLIM_FILTER_AUTO },	/* __data_loc char[] child_comm */
	{ 30, 58, 20, 4, 1, SLIM_FILTER_AUTO },	/* pid_t child_pid */
};
static const struct slim_field_table sched_process_fork_table = {
	sched_process_fork_strings, sched_process_fork_fields,
	sizeof(sched_process_fork_fields) / sizeof(sched_process_fork_fields[0]), 24,
};

static const char sched_wakeup_strings[] =
	"char[16]\0"	/* 0 */
	"comm\0"	/* 9 */
	"pid_t\0"	/* 14 */
	"pid\0"	/* 20 */
	"int\0"	/* 24 */
	"prio\0"	/* 28 */
	"target_cpu\0"	/* 33 */;
static const struct slim_field sched_wakeup_fields[] = {
	{ 0, 9, 8, 16, 0, SLIM_FILTER_AUTO },	/* char[16] comm */
	{ 14, 20, 24, 4, 1, SLIM_FILTER_AUTO },	/* pid_t pid */
	{ 24, 28, 28, 4, 1, SLIM_FILTER_AUTO },	/* int prio */
	{ 24, 33, 32, 4, 1, SLIM_FILTER_AUTO },	/* int target_cpu */
};
static const struct slim_field_table sched_wakeup_table = {
	sched_wakeup_strings, sched_wakeup_fields,
	sizeof(sched_wakeup_fields) / sizeof(sched_wakeup_fields[0]), 36,
};

struct format_case {
	const char *event;
	const struct slim_field_table *table;
};

static const struct format_case format_cases[] = {
	{ "sched_switch", &sched_switch_table },
	{ "kmalloc", &kmalloc_table },
	{ "irq_handler_entry", &irq_handler_entry_table },
	{ "sched_process_fork", &sched_process_fork_table },
	{ "sched_wakeup", &sched_wakeup_table },
};

static char *read_data_file(const char *rel)
{
	const char *dir = getenv("SLIM_SRCDIR");
	char path[4096];
	char *buf;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "../../..", rel);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open %s (set SLIM_SRCDIR to the source tree)\n", path);
		return NULL;
	}
	buf = malloc(1 << 20);
	n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
	fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

/* The value after "key" at the start of a line of text, up to the newline. */
static int line_value(const char *text, const char *key, char *out, size_t size)
{
	const char *p = strstr(text, key);
	size_t n;

	if (!p || (p != text && p[-1] != '\n'))
		return -1;
	p += strlen(key);
	n = strcspn(p, "\n");
	if (n >= size)
		return -1;
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}

static void print_first_difference(const char *got, const char *want)
{
	size_t i = 0;

	while (got[i] && got[i] == want[i])
		i++;
	fprintf(stderr, "     first difference at byte %zu:\n", i);
	fprintf(stderr, "     got  \"%.60s\"\n     want \"%.60s\"\n", got + i, want + i);
}

/*
 * Name, ID and print fmt come from the kernel's file (they are copied
 * through as they are); the layout and every field line are ours.
 */
static void check_format(const struct format_case *c)
{
	static char print_fmt[64 * 1024];
	static char out[128 * 1024];
	char rel[256], id[32];
	struct slim_seq s;
	char *want;
	int ret;

	snprintf(rel, sizeof(rel), "tests/data/kernel/formats/%s.format", c->event);
	want = read_data_file(rel);
	if (!CHECK(want != NULL))
		return;
	CHECK(line_value(want, "ID: ", id, sizeof(id)) == 0);
	CHECK(line_value(want, "print fmt: ", print_fmt, sizeof(print_fmt)) == 0);

	slim_seq_init(&s, out, sizeof(out));
	ret = slim_format_print(&s, c->event, atoi(id), c->table, print_fmt);
	CHECK_EQ_INT(ret, strlen(want));
	CHECK_EQ_INT(s.len, strlen(want));
	if (!CHECK(strcmp(out, want) == 0)) {
		fprintf(stderr, "     format of %s differs from the kernel's\n", c->event);
		print_first_difference(out, want);
	}
	free(want);
}

/* An event with no fields of its own: common fields, two blank lines. */
static void check_format_no_fields(void)
{
	char out[1024];
	struct slim_seq s;

	slim_seq_init(&s, out, sizeof(out));
	slim_format_print(&s, "ping", 7, NULL, "\"\"");
	CHECK_EQ_STR(out,
		"name: ping\nID: 7\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n\nprint fmt: \"\"\n");
}

/* Array and dynamic-field type texts: brackets move after the name, or not. */
static void check_format_type_texts(void)
{
	static const char strings[] =
		"u8[6]\0"		/* 0 */
		"mac\0"			/* 6 */
		"int[2][3]\0"		/* 10 */
		"grid\0"		/* 20 */
		"__data_loc u32[]\0"	/* 25 */
		"vals\0"		/* 42 */
		"char[]\0"		/* 47 */
		"buf\0";		/* 54 */
	static const struct slim_field fields[] = {
		{ 0, 6, 8, 6, 0, SLIM_FILTER_AUTO },
		{ 10, 20, 16, 24, 1, SLIM_FILTER_AUTO },
		{ 25, 42, 40, 4, 0, SLIM_FILTER_AUTO },
		{ 47, 54, 44, 0, 0, SLIM_FILTER_AUTO },
	};
	static const struct slim_field_table t = { strings, fields, 4, 44 };
	char out[2048];
	struct slim_seq s;

	slim_seq_init(&s, out, sizeof(out));
	slim_format_print(&s, "x", 1, &t, "\"\"");
	CHECK(strstr(out, "\n\n\tfield:u8 mac[6];\toffset:8;\tsize:6;\tsigned:0;\n"));
	CHECK(strstr(out, "\n\tfield:int grid[2][3];\toffset:16;\tsize:24;\tsigned:1;\n"));
	CHECK(strstr(out, "\n\tfield:__data_loc u32[] vals;\toffset:40;\tsize:4;\tsigned:0;\n"));
	CHECK(strstr(out, "\n\tfield:char buf[];\toffset:44;\tsize:0;\tsigned:0;\n\n"));
}

/* A format text that does not fit a fixed sequence is cut, and says so. */
static void check_format_overflow(void)
{
	char out[64 + 8];
	struct slim_seq s;
	int ret;

	memset(out, 'Z', sizeof(out));
	slim_seq_init(&s, out, 64);
	ret = slim_format_print(&s, "sched_switch", 1, &sched_switch_table, "\"\"");
	CHECK(ret < 0);
	CHECK(s.overflow);
	CHECK_EQ_INT(s.len, 63);
	CHECK_EQ_INT(out[63], '\0');
	CHECK_EQ_INT(out[64], 'Z');
	CHECK(strncmp(out, "name: sched_switch\nID: 1\nformat:\n\tfield:", 40) == 0);
}

static void check_common_fields(void)
{
	const struct slim_field_table *t = &slim_common_fields;
	static const char *const names[] = {
		"common_type", "common_flags", "common_preempt_count", "common_pid",
	};
	static const unsigned int offsets[] = {
		offsetof(struct slim_trace_entry, type),
		offsetof(struct slim_trace_entry, flags),
		offsetof(struct slim_trace_entry, preempt_count),
		offsetof(struct slim_trace_entry, pid),
	};
	static const unsigned int sizes[] = {
		sizeof(((struct slim_trace_entry *)0)->type),
		sizeof(((struct slim_trace_entry *)0)->flags),
		sizeof(((struct slim_trace_entry *)0)->preempt_count),
		sizeof(((struct slim_trace_entry *)0)->pid),
	};
	unsigned int i;

	CHECK_EQ_INT(t->nr_fields, SLIM_COMMON_FIELDS);
	CHECK_EQ_INT(t->size, sizeof(struct slim_trace_entry));
	for (i = 0; i < SLIM_COMMON_FIELDS && i < t->nr_fields; i++) {
		CHECK_EQ_STR(slim_field_name(t, &t->fields[i]), names[i]);
		CHECK_EQ_INT(t->fields[i].offset, offsets[i]);
		CHECK_EQ_INT(t->fields[i].size, sizes[i]);
		CHECK_EQ_INT(slim_field_filter_type(t, &t->fields[i]), SLIM_FILTER_OTHER);
	}
	CHECK_EQ_INT(t->fields[3].is_signed, 1);
	CHECK_EQ_INT(t->fields[0].is_signed, 0);
}

/* One field of the given type text, for filter type checks. */
static enum slim_filter_type filter_of(const char *type, uint8_t preset)
{
	static char strings[128];
	struct slim_field f = { 0, 0, 8, 4, 0, preset };
	struct slim_field_table t = { strings, &f, 1, 12 };

	snprintf(strings, sizeof(strings), "%s", type);
	return slim_field_filter_type(&t, &f);
}

static void check_filter_types(void)
{
	CHECK_EQ_INT(filter_of("__data_loc char[]", 0), SLIM_FILTER_DYN_STRING);
	CHECK_EQ_INT(filter_of("__data_loc unsigned char[]", 0), SLIM_FILTER_DYN_STRING);
	CHECK_EQ_INT(filter_of("__data_loc u8[]", 0), SLIM_FILTER_OTHER);
	CHECK_EQ_INT(filter_of("__data_loc u32[]", 0), SLIM_FILTER_OTHER);
	CHECK_EQ_INT(filter_of("char[16]", 0), SLIM_FILTER_STATIC_STRING);
	CHECK_EQ_INT(filter_of("unsigned char[6]", 0), SLIM_FILTER_STATIC_STRING);
	CHECK_EQ_INT(filter_of("u8[6]", 0), SLIM_FILTER_OTHER);
	CHECK_EQ_INT(filter_of("int[4]", 0), SLIM_FILTER_OTHER);
	CHECK_EQ_INT(filter_of("char *", 0), SLIM_FILTER_PTR_STRING);
	CHECK_EQ_INT(filter_of("const char *", 0), SLIM_FILTER_PTR_STRING);
	CHECK_EQ_INT(filter_of("const void *", 0), SLIM_FILTER_OTHER);
	CHECK_EQ_INT(filter_of("char", 0), SLIM_FILTER_OTHER);
	CHECK_EQ_INT(filter_of("unsigned long", 0), SLIM_FILTER_OTHER);
	/* a type set by the class is kept as it is */
	CHECK_EQ_INT(filter_of("int", SLIM_FILTER_CPU), SLIM_FILTER_CPU);
	CHECK_EQ_INT(filter_of("char[16]", SLIM_FILTER_COMM), SLIM_FILTER_COMM);
	CHECK_EQ_INT(filter_of("char[16]", SLIM_FILTER_OTHER), SLIM_FILTER_OTHER);

	/* the real tables */
	CHECK_EQ_INT(slim_field_filter_type(&sched_switch_table, &sched_switch_fields[0]),
		     SLIM_FILTER_STATIC_STRING);
	CHECK_EQ_INT(slim_field_filter_type(&sched_switch_table, &sched_switch_fields[3]),
		     SLIM_FILTER_OTHER);
	CHECK_EQ_INT(slim_field_filter_type(&irq_handler_entry_table,
					    &irq_handler_entry_fields[1]),
		     SLIM_FILTER_DYN_STRING);
	CHECK_EQ_INT(slim_field_filter_type(&kmalloc_table, &kmalloc_fields[1]),
		     SLIM_FILTER_OTHER);
}

static void check_find(void)
{
	const struct slim_field *f;

	f = slim_field_find(&sched_switch_table, "next_pid");
	CHECK(f == &sched_switch_fields[5]);
	f = slim_field_find(&sched_switch_table, "prev_comm");
	CHECK(f == &sched_switch_fields[0]);
	CHECK(slim_field_find(&sched_switch_table, "next_pi") == NULL);
	CHECK(slim_field_find(&sched_switch_table, "next_pid2") == NULL);
	CHECK(slim_field_find(&sched_switch_table, "") == NULL);
	/* a type text is not a name */
	CHECK(slim_field_find(&sched_switch_table, "pid_t") == NULL);
	/* common fields live in their own table */
	CHECK(slim_field_find(&sched_switch_table, "common_pid") == NULL);
	f = slim_field_find(&slim_common_fields, "common_pid");
	CHECK(f && f->offset == 4 && f->size == 4);
	f = slim_field_find(&irq_handler_entry_table, "name");
	CHECK(f && f->offset == 12 && f->size == 4);
	CHECK(slim_field_find(NULL, "irq") == NULL);
	CHECK(slim_field_find(&irq_handler_entry_table, NULL) == NULL);
}

int main(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(format_cases) / sizeof(format_cases[0]); i++)
		check_format(&format_cases[i]);
	check_format_no_fields();
	check_format_type_texts();
	check_format_overflow();
	check_common_fields();
	check_filter_types();
	check_find();
	return check_done("fields");
}
