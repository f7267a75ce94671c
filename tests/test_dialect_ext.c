// SPDX-License-Identifier: MIT
/*
 * The dialect's kernel 6.x forms, end to end: __bitmask, __cpumask and
 * the __rel_loc fields (format lines as the kernel writes them, records,
 * printing, filters), __vstring and __string_len, TRACE_EVENT_CONDITION
 * and DEFINE_EVENT_CONDITION (the condition runs only when enabled),
 * TRACE_EVENT_FN (reg() before the first probe, unreg() after the last),
 * TRACE_DEFINE_ENUM/SIZEOF (values in the format's print fmt) and the
 * %pS family in the trace file.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <slimtrace/ctl.h>
#include <slimtrace/record.h>
#include "check.h"
#include "records.h"
#include "ext_events.h"

int ext_cond_evals;
static int reg_calls, unreg_calls, reg_result;

int ext_fn_reg(void)
{
	reg_calls++;
	return reg_result;
}

void ext_fn_unreg(void)
{
	unreg_calls++;
}

/* The field lines of an event's format file. */
static char *field_lines(const char *event)
{
	char path[128], *text, *start, *end, *lines;

	snprintf(path, sizeof(path), "events/ext/%s/format", event);
	text = slim_ctl_read(path);
	if (!text)
		return strdup("");
	start = strstr(text, "common_pid;");
	start = start ? strstr(start, "\n\n") : NULL;
	end = start ? strstr(start + 2, "\n\n") : NULL;
	lines = start && end ? strndup(start + 2, (size_t)(end - start - 1)) : strdup("");
	free(text);
	return lines;
}

static void test_formats(void)
{
	char *lines;

	lines = field_lines("ext_masks");
	CHECK_EQ_STR(lines,
		     "\tfield:unsigned int nr_bits;\toffset:8;\tsize:4;\tsigned:0;\n"
		     "\tfield:__data_loc unsigned long[] bits;\toffset:12;\tsize:4;\tsigned:0;\n"
		     "\tfield:__data_loc cpumask_t cpus;\toffset:16;\tsize:4;\tsigned:0;\n");
	free(lines);
	/* The kernel keeps a __rel_loc field's brackets after its name. */
	lines = field_lines("ext_rel");
	CHECK_EQ_STR(lines,
		     "\tfield:__rel_loc char name[];\toffset:8;\tsize:4;\tsigned:0;\n"
		     "\tfield:int v;\toffset:12;\tsize:4;\tsigned:1;\n"
		     "\tfield:__rel_loc u8 blob[];\toffset:16;\tsize:4;\tsigned:0;\n"
		     "\tfield:__rel_loc unsigned long bits[];\toffset:20;\tsize:4;\tsigned:0;\n"
		     "\tfield:__rel_loc char part[];\toffset:24;\tsize:4;\tsigned:0;\n");
	free(lines);
	lines = field_lines("ext_strings");
	CHECK_EQ_STR(lines,
		     "\tfield:__data_loc char[] part;\toffset:8;\tsize:4;\tsigned:0;\n"
		     "\tfield:__data_loc char[] msg;\toffset:12;\tsize:4;\tsigned:0;\n");
	free(lines);
	CHECK_EQ_STR(slim_event_print_fmt(&slim_event_ext_rel),
		     "\"name=%s v=%d blob=%s bits=%s part=%s\", __get_rel_str(name), "
		     "REC->v, __print_hex(__get_rel_dynamic_array(blob), REC->v > 0 ? 4 : 0), "
		     "__get_rel_bitmask(bits), __get_rel_str(part)");
	CHECK_EQ_STR(slim_event_print_fmt(&slim_event_ext_rel_len),
		     "\"len=%u blob=%s\", __get_rel_dynamic_array_len(blob), "
		     "__print_hex(__get_rel_dynamic_array(blob), __get_rel_dynamic_array_len(blob))");
	CHECK_EQ_STR(slim_event_print_fmt(&slim_event_ext_masks),
		     "\"nr=%u bits=%s cpus=%s\", REC->nr_bits, __get_bitmask(bits), "
		     "__get_cpumask(cpus)");
	/* Not the kernel's "\"no arguments\", ", which libtraceevent refuses. */
	CHECK_EQ_STR(slim_event_print_fmt(&slim_event_ext_noargs), "\"no arguments\"");
	CHECK_EQ_INT(slim_field_filter_type(slim_event_fields(&slim_event_ext_rel),
					    &slim_event_fields(&slim_event_ext_rel)->fields[0]),
		     SLIM_FILTER_RDYN_STRING);
	CHECK_EQ_INT(slim_field_filter_type(slim_event_fields(&slim_event_ext_masks),
					    &slim_event_fields(&slim_event_ext_masks)->fields[2]),
		     SLIM_FILTER_CPUMASK);
}

/* TRACE_DEFINE_ENUM: the names become values, except in quotes and as members. */
static void test_enums(void)
{
	char *text = slim_ctl_read("events/ext/ext_enum/format");

	CHECK_EQ_STR(slim_event_print_fmt(&slim_event_ext_enum),
		     "\"EXT_BUSY: state=%s busy=%d big=%d pair=%d n=%d\", "
		     "__print_symbolic(REC->state, { 0, \"idle\" }, { 7, \"busy\" }, "
		     "{ 12345678, \"gone\" }), REC->state == 7, REC->state == 12345678, "
		     "(int)8, REC->n");
	CHECK(text && strstr(text, "print fmt: \"EXT_BUSY: state=%s busy=%d big=%d pair=%d "
			     "n=%d\", __print_symbolic(REC->state, { 0, \"idle\" }"));
	free(text);
	/* Events without enum names keep the class's own text. */
	CHECK(slim_event_print_fmt(&slim_event_ext_cond) ==
	      slim_event_fields(&slim_event_ext_cond)->strings +
	      slim_event_class(&slim_event_ext_cond)->print_fmt);
}

/* The trace file's lines, bodies only ("event: text"), one string. */
static char *trace_bodies(void)
{
	char *trace = slim_ctl_read("trace"), *out, *line, *save = NULL, *p;
	size_t len = 0;

	out = calloc(1, trace ? strlen(trace) + 1 : 1);
	for (line = trace ? strtok_r(trace, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || !(p = strstr(line, ": ext_")))
			continue;
		len += (size_t)sprintf(out + len, "%s\n", p + 2);
	}
	free(trace);
	return out;
}

static void fire_strings(const char *s, int len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace_ext_strings(s, len, fmt, &ap);
	va_end(ap);
}

static void test_fields_recorded(void)
{
	static const unsigned char blob[] = { 0xde, 0xad, 0xbe, 0xef };
	unsigned long bits70[2] = { 0x5, 0x1 }, bits8[1] = { 0xff };
	unsigned long rel[1] = { 0x8000000000000001ul };
	struct cpumask cpus, none;
	char want[2048], groups[512] = "";
	unsigned int i, ngroups = (unsigned int)slim_bitmask_bytes(slim_cpumask_bits()) / 4;
	char *text;

	memset(&cpus, 0, sizeof(cpus));
	memset(&none, 0, sizeof(none));
	cpus.bits[0] = 0x1;
	for (i = 1; i < ngroups; i++)
		strcat(groups, "00000000,");
	slim_bufset_reset(&slim_bufset_top);
	CHECK_EQ_INT(slim_ctl_write("set_event", "ext:ext_masks ext:ext_rel ext:ext_strings "
				    "ext:ext_enum ext:ext_rel_len"), 0);
	trace_ext_masks(bits70, 70, &cpus);
	trace_ext_masks(bits8, 8, &none);
	trace_ext_rel("hello", 7, blob, 4, rel);
	trace_ext_rel(NULL, -1, blob, 0, rel);
	trace_ext_rel_len("x", 1, blob, 3, rel);
	fire_strings("abcdef", 3, "%s=%d %5.1f", "x", 42, 2.5);
	fire_strings(NULL, 3, "plain");
	trace_ext_enum(EXT_BUSY, 1);
	trace_ext_enum(EXT_GONE, 2);
	trace_ext_enum(3, 3);
	CHECK_EQ_INT(slim_ctl_write("set_event", ""), 0);
	text = trace_bodies();
	snprintf(want, sizeof(want),
		 "ext_masks: nr=70 bits=00000000,00000001,00000000,00000005 cpus=%s00000001\n"
		 "ext_masks: nr=8 bits=00000000,000000ff cpus=%s00000000\n"
		 "ext_rel: name=hello v=7 blob=de ad be ef bits=80000000,00000001 part=hel\n"
		 "ext_rel: name=(null) v=-1 blob= bits=80000000,00000001 part=(null)\n"
		 "ext_rel_len: len=3 blob=de ad be\n"
		 "ext_strings: part=abc msg=x=42   2.5\n"
		 "ext_strings: part=(null) msg=plain\n"
		 "ext_enum: EXT_BUSY: state=busy busy=1 big=0 pair=8 n=1\n"
		 "ext_enum: EXT_BUSY: state=gone busy=0 big=1 pair=8 n=2\n"
		 "ext_enum: EXT_BUSY: state=0x3 busy=0 big=0 pair=8 n=3\n",
		 groups, groups);
	CHECK_EQ_STR(text, want);
	free(text);
}

/* The kernel's filter takes __rel_loc strings as strings and cpumasks as sets. */
static void test_filters(void)
{
	static const unsigned char blob[] = { 1 };
	unsigned long bits[1] = { 0 };
	struct cpumask c0, c01, none;
	char *text;

	memset(&c0, 0, sizeof(c0));
	memset(&none, 0, sizeof(none));
	c0.bits[0] = 0x1;
	c01 = c0;
	c01.bits[0] |= slim_cpumask_bits() > 1 ? 0x2 : 0;
	slim_bufset_reset(&slim_bufset_top);
	CHECK_EQ_INT(slim_ctl_write("events/ext/ext_rel/filter",
				    "name == \"keep\" || part ~ \"ab*\""), 0);
	CHECK_EQ_INT(slim_ctl_write("events/ext/ext_masks/filter", "cpus == CPUS{0}"), 0);
	CHECK_EQ_INT(slim_ctl_write("set_event", "ext:ext_rel ext:ext_masks"), 0);
	trace_ext_rel("keep", 1, blob, 1, bits);
	trace_ext_rel("drop", 2, blob, 1, bits);
	trace_ext_rel("abc", 3, blob, 1, bits);
	trace_ext_masks(bits, 8, &c0);
	trace_ext_masks(bits, 9, &none);
	trace_ext_masks(bits, 10, &c01);
	CHECK_EQ_INT(slim_ctl_write("events/ext/ext_masks/filter", "cpus & CPUS{0}"), 0);
	trace_ext_masks(bits, 11, &c0);
	trace_ext_masks(bits, 12, &none);
	trace_ext_masks(bits, 13, &c01);
	CHECK_EQ_INT(slim_ctl_write("events/ext/ext_masks/filter", "cpus != CPUS{0}"), 0);
	trace_ext_masks(bits, 14, &c0);
	trace_ext_masks(bits, 15, &none);
	CHECK_EQ_INT(slim_ctl_write("set_event", ""), 0);
	text = trace_bodies();
	CHECK(strstr(text, "ext_rel: name=keep v=1") != NULL);
	CHECK(strstr(text, "name=drop") == NULL);
	CHECK(strstr(text, "ext_rel: name=abc v=3") != NULL);
	CHECK(strstr(text, "nr=8 ") != NULL);
	CHECK(strstr(text, "nr=9 ") == NULL);
	/* {0, 1} is not {0}; on a one-CPU machine it is. */
	CHECK((strstr(text, "nr=10 ") == NULL) == (slim_cpumask_bits() > 1));
	CHECK(strstr(text, "nr=11 ") != NULL);
	CHECK(strstr(text, "nr=12 ") == NULL);
	CHECK(strstr(text, "nr=13 ") != NULL);
	CHECK(strstr(text, "nr=14 ") == NULL);
	CHECK(strstr(text, "nr=15 ") != NULL);
	free(text);
	/* As the kernel refuses them. */
	CHECK_EQ_INT(slim_ctl_write("events/ext/ext_masks/filter", "cpus < CPUS{0}"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_write("events/ext/ext_masks/filter", "cpus == \"x\""), -EINVAL);
	CHECK_EQ_INT(slim_ctl_write("events/ext/ext_rel/filter", "name > \"x\""), -EINVAL);
	CHECK_EQ_INT(slim_ctl_write("events/ext/ext_rel/filter", "name == 1"), -EINVAL);
	/* A numeric compare of a cpumask reads its locator word, as the kernel's does. */
	CHECK_EQ_INT(slim_ctl_write("events/ext/ext_masks/filter", "cpus == 3"), 0);
	CHECK_EQ_INT(slim_ctl_write("events/ext/ext_masks/filter", "0"), 0);
	CHECK_EQ_INT(slim_ctl_write("events/ext/ext_rel/filter", "0"), 0);
}

static void test_conditions(void)
{
	char *text;
	int bare = 0;

	slim_bufset_reset(&slim_bufset_top);
	ext_cond_evals = 0;
	/* Disabled: the condition is not even evaluated. */
	trace_ext_cond(5);
	CHECK_EQ_INT(ext_cond_evals, 0);
	CHECK_EQ_INT(slim_ctl_write("set_event", "ext:ext_cond ext:ext_class_cond "
				    "ext:ext_fn_cond"), 0);
	trace_ext_cond(5);
	trace_ext_cond(-1);
	CHECK_EQ_INT(ext_cond_evals, 2);
	trace_ext_class_cond(1);
	trace_ext_class_cond(2);
	trace_ext_fn_cond(3);
	trace_ext_fn_cond(4);
	CHECK_EQ_INT(slim_ctl_write("set_event", ""), 0);
	text = trace_bodies();
	CHECK_EQ_STR(text, "ext_cond: v=5\next_class_cond: class v=2\next_fn_cond: v=4\n");
	free(text);
	(void)bare;
}

static int bare_hits;

static void bare_probe(int v, void *data)
{
	(void)data;
	bare_hits += v;
}

static void fn_probe(int v, void *data)
{
	(void)v;
	(void)data;
}

static void test_bare_condition(void)
{
	CHECK_EQ_INT(register_trace_ext_bare_cond_data(bare_probe, NULL), 0);
	trace_ext_bare_cond(5);
	trace_ext_bare_cond(11);
	CHECK_EQ_INT(bare_hits, 11);
	CHECK_EQ_INT(unregister_trace_ext_bare_cond_data(bare_probe, NULL), 0);
}

/* reg() before the tracepoint's first probe, unreg() after its last. */
static void test_fn(void)
{
	reg_calls = unreg_calls = reg_result = 0;
	CHECK_EQ_INT(slim_event_enable(&slim_event_ext_fn, 1), 0);
	CHECK_EQ_INT(reg_calls, 1);
	CHECK_EQ_INT(register_trace_ext_fn_data(fn_probe, NULL), 0);
	CHECK_EQ_INT(reg_calls, 1);
	CHECK_EQ_INT(slim_event_enable(&slim_event_ext_fn, 0), 0);
	CHECK_EQ_INT(unreg_calls, 0);
	CHECK_EQ_INT(unregister_trace_ext_fn_data(fn_probe, NULL), 0);
	CHECK_EQ_INT(unreg_calls, 1);
	/* A refusing reg() refuses the enable, and nothing is attached. */
	reg_result = -EBUSY;
	CHECK_EQ_INT(slim_event_enable(&slim_event_ext_fn, 1), -EBUSY);
	CHECK(!(slim_event_ext_fn.flags & SLIM_EVENT_FL_ENABLED));
	CHECK(!trace_ext_fn_enabled());
	CHECK_EQ_INT(slim_ctl_write("events/ext/ext_fn/enable", "1"), -EBUSY);
	CHECK_EQ_INT(reg_calls, 3);
	CHECK_EQ_INT(unreg_calls, 1);
	reg_result = 0;
	/* DEFINE_EVENT_FN with no unreg(); TRACE_EVENT_FN_COND with no reg(). */
	CHECK_EQ_INT(slim_event_enable(&slim_event_ext_class_fn, 1), 0);
	CHECK_EQ_INT(slim_event_enable(&slim_event_ext_class_fn, 0), 0);
	CHECK_EQ_INT(reg_calls, 4);
	CHECK_EQ_INT(unreg_calls, 1);
	CHECK_EQ_INT(slim_event_enable(&slim_event_ext_fn_cond, 1), 0);
	CHECK_EQ_INT(slim_event_enable(&slim_event_ext_fn_cond, 0), 0);
	CHECK_EQ_INT(reg_calls, 4);
	CHECK_EQ_INT(unreg_calls, 2);
	/* Events of the same class without functions call none. */
	CHECK_EQ_INT(slim_event_enable(&slim_event_ext_class_cond, 1), 0);
	CHECK_EQ_INT(slim_event_enable(&slim_event_ext_class_cond, 0), 0);
	CHECK_EQ_INT(reg_calls, 4);
	CHECK_EQ_INT(unreg_calls, 2);
}

/* Exported (the test links with -rdynamic), so that dladdr() knows it. */
void ext_sym_target(int *p);
void ext_sym_target(int *p)
{
	*p += 1;
}

static void ext_hidden(int *p)
{
	*p += 2;
}

static void test_symbols(void)
{
	const ElfW(Sym) *ent = NULL;
	const char *fn = (const char *)(uintptr_t)ext_sym_target;
	const char *hidden = (const char *)(uintptr_t)ext_hidden;
	const char *libc_fn = (const char *)(uintptr_t)dlsym(RTLD_DEFAULT, "strtok_r");
	Dl_info info;
	char want[1024];
	unsigned long size = 0, libc_size = 0, hidden_size = 0;
	const char *libc_name = "", *hidden_at;
	char *text;
	int x = 0;

	ext_sym_target(&x);
	ext_hidden(&x);
	if (dladdr1(fn, &info, (void **)&ent, RTLD_DL_SYMENT) && ent)
		size = ent->st_size;
	ent = NULL;
	/* strtok_r is an alias: the dynamic linker names one of them. */
	if (libc_fn && dladdr1(libc_fn, &info, (void **)&ent, RTLD_DL_SYMENT) && ent) {
		libc_size = ent->st_size;
		libc_name = info.dli_sname;
	}
	CHECK(size > 0 && libc_size > 0);
	slim_bufset_reset(&slim_bufset_top);
	CHECK_EQ_INT(slim_ctl_write("set_event", "ext:ext_syms"), 0);
	trace_ext_syms(fn, fn + 2);
	trace_ext_syms(hidden, NULL);
	trace_ext_syms(libc_fn, libc_fn + 1);
	CHECK_EQ_INT(slim_ctl_write("set_event", ""), 0);
	text = trace_bodies();
	/*
	 * The static one is in the program's .symtab only, which the
	 * dynamic linker does not read: its size is the file's (taken from
	 * the text, checked to be there).
	 */
	hidden_at = text ? strstr(text, "\next_syms: S=ext_hidden+0x0/0x") : NULL;
	CHECK(hidden_at && sscanf(hidden_at, "\next_syms: S=ext_hidden+0x0/0x%lx",
				  &hidden_size) == 1 && hidden_size > 0);
	snprintf(want, sizeof(want),
		 "ext_syms: S=ext_sym_target+0x0/0x%lx s=ext_sym_target "
		 "B=ext_sym_target+0x2/0x%lx x=%016lx\n"
		 "ext_syms: S=ext_hidden+0x0/0x%lx s=ext_hidden B=0x0 x=%016lx\n"
		 "ext_syms: S=%s+0x0/0x%lx [%s] s=%s [%s] "
		 "B=%s+0x1/0x%lx [%s] x=%016lx\n",
		 size, size, (unsigned long)(uintptr_t)fn,
		 hidden_size, (unsigned long)(uintptr_t)hidden,
		 libc_name, libc_size, "libc.so.6", libc_name, "libc.so.6",
		 libc_name, libc_size, "libc.so.6",
		 (unsigned long)(uintptr_t)libc_fn);
	CHECK_EQ_STR(text, want);
	free(text);
}

/* Runs a command; its standard output, malloc'd ("" if it could not run). */
static char *output_of(const char *cmd, int *status)
{
	size_t len = 0, cap = 1 << 16, n;
	char *buf = malloc(cap);
	FILE *p;

	fflush(NULL);
	p = popen(cmd, "r");
	while (p && buf && (n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 1024) {
			char *b = realloc(buf, cap *= 2);

			if (!b)
				break;
			buf = b;
		}
	}
	if (buf)
		buf[len] = '\0';
	*status = p ? pclose(p) : -1;
	return buf ? buf : strdup("");
}

/* trace-cmd pads the event name: "name:   text" reads as "name: text". */
static void squeeze(char *text)
{
	char *r = text, *w = text;

	while (*r) {
		*w++ = *r;
		if (*r++ == ':' && *r == ' ')
			while (r[1] == ' ')
				r++;
	}
	*w = '\0';
}

static void check_report_lines(const char *tool, char *out)
{
	static const char *const want[] = {
		"ext_masks: nr=70 bits=00000000,00000001,00000000,00000005 cpus=0\n",
		"ext_masks: nr=8 bits=00000000,000000ff cpus=\n",
		"ext_rel: name=hello v=7 blob=de ad be ef bits=80000000,00000001 part=hel\n",
		"ext_rel: name=(null) v=0 blob= bits=80000000,00000001 part=(null)\n",
		"ext_strings: part=abc msg=x=42\n",
		"ext_enum: EXT_BUSY: state=gone busy=0 big=1 pair=8 n=2\n",
	};
	unsigned int i;

	squeeze(out);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (!check_report(strstr(out, want[i]) != NULL, "the reader prints the record",
				  __FILE__, __LINE__))
			fprintf(stderr, "     %s lacks \"%s\" in:\n%.3000s\n", tool, want[i], out);
	}
}

/*
 * The readers of trace.dat (slimtrace report and trace-cmd, both with
 * libtraceevent) read the new fields: locators, bitmasks (libtraceevent
 * prints a cpumask as a CPU list), vstrings, enum values in the formats.
 */
static void test_readers(void)
{
	static const unsigned char blob[] = { 0xde, 0xad, 0xbe, 0xef };
	unsigned long bits70[2] = { 0x5, 0x1 }, bits8[1] = { 0xff };
	unsigned long rel[1] = { 0x8000000000000001ul };
	struct cpumask cpus, none;
	char *out;
	int status;

	memset(&cpus, 0, sizeof(cpus));
	memset(&none, 0, sizeof(none));
	cpus.bits[0] = 0x1;
	unlink("ext.dat");
	CHECK_EQ_INT(slim_record_start("ext.dat"), 0);
	CHECK_EQ_INT(slim_ctl_write("set_event", "ext:ext_masks ext:ext_rel ext:ext_strings "
				    "ext:ext_enum"), 0);
	trace_ext_masks(bits70, 70, &cpus);
	trace_ext_masks(bits8, 8, &none);
	trace_ext_rel("hello", 7, blob, 4, rel);
	trace_ext_rel(NULL, 0, blob, 0, rel);
	fire_strings("abcdef", 3, "%s=%d", "x", 42);
	trace_ext_enum(EXT_GONE, 2);
	CHECK_EQ_INT(slim_ctl_write("set_event", ""), 0);
	CHECK_EQ_INT(slim_record_stop(), 0);
	out = output_of("../tools/slimtrace report ext.dat", &status);
	CHECK_EQ_INT(status, 0);
	check_report_lines("slimtrace report", out);
	free(out);
	out = output_of("trace-cmd report -i ext.dat 2>/dev/null", &status);
	CHECK_EQ_INT(status, 0);
	check_report_lines("trace-cmd report", out);
	free(out);
	unlink("ext.dat");
}

int main(void)
{
	check_watchdog("dialect_ext", 60);
	test_formats();
	test_enums();
	test_fields_recorded();
	test_filters();
	test_conditions();
	test_bare_condition();
	test_fn();
	test_symbols();
	test_readers();
	return check_done("dialect_ext");
}
