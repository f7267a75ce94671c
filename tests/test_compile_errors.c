// SPDX-License-Identifier: MIT
/*
 * Misuse of the dialect fails at compile time with a message that names
 * the problem.  Each case is compiled with the compiler that built this
 * test; the compiler must refuse it and say what the case expects.
 */
#include <stdlib.h>
#include <unistd.h>
#include "check.h"

#ifndef TEST_CC
#define TEST_CC "cc"
#endif

struct bad_case {
	const char *what;
	const char *source;
	const char *expect;	/* in the compiler's message */
};

static const struct bad_case cases[] = {
	{ "TRACE_EVENT with more TP_ARGS than TP_PROTO",
	  "TRACE_EVENT(ev_arity, TP_PROTO(int a), TP_ARGS(a, b),\n"
	  "  TP_STRUCT__entry(__field(int, a)), TP_fast_assign(__entry->a = a;),\n"
	  "  TP_printk(\"a=%d\", __entry->a));\n",
	  "TP_PROTO and TP_ARGS of ev_arity differ in arity" },
	{ "DECLARE_TRACE with fewer TP_ARGS than TP_PROTO",
	  "DECLARE_TRACE(tp_arity, TP_PROTO(int a, long b), TP_ARGS(a));\n",
	  "TP_PROTO and TP_ARGS of tp_arity differ in arity" },
	{ "DEFINE_EVENT of a class nobody declared",
	  "DEFINE_EVENT(no_such_class, ev_orphan, TP_PROTO(int a), TP_ARGS(a));\n",
	  "slim_class_no_such_class" },
	{ "no TRACE_INCLUDE_PATH and no <trace/events/NAME.h>",
	  "#define TRACE_SYSTEM nosuchsys\n#define CREATE_TRACE_POINTS\n"
	  "#include <slimtrace/define_trace.h>\n",
	  "cannot find the trace header <trace/events/nosuchsys.h>" },
	{ "DEFINE_EVENT whose TP_ARGS do not fit its class",
	  "DECLARE_EVENT_CLASS(cls2, TP_PROTO(int a, int b), TP_ARGS(a, b),\n"
	  "  TP_STRUCT__entry(__field(int, a)), TP_fast_assign(__entry->a = a;),\n"
	  "  TP_printk(\"a=%d\", __entry->a));\n"
	  "DEFINE_EVENT(cls2, ev_short, TP_PROTO(int a), TP_ARGS(a));\n",
	  "__slim_iter_cls2" },
};

static int compile(const char *source, char *out, size_t size)
{
	char src[] = "/tmp/slim_bad_XXXXXX.c";
	char cmd[1024];
	FILE *f, *p;
	int fd = mkstemps(src, 2), status;
	size_t n;

	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	fprintf(f, "#include <slimtrace/tracepoint.h>\n%s", source);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s -std=gnu11 -fsyntax-only -I%s/include %s 2>&1",
		 TEST_CC, getenv("SLIM_SRCDIR") ? getenv("SLIM_SRCDIR") : "../../..", src);
	p = popen(cmd, "r");
	n = p ? fread(out, 1, size - 1, p) : 0;
	out[n] = '\0';
	status = p ? pclose(p) : -1;
	unlink(src);
	return status;
}

/* A trace header and the file that defines its events, in a folder of their own. */
static const char demo_header[] =
	"#undef TRACE_SYSTEM\n#define TRACE_SYSTEM demo\n"
	"#if !defined(_TRACE_DEMO_H) || defined(TRACE_HEADER_MULTI_READ)\n"
	"#define _TRACE_DEMO_H\n#include <slimtrace/tracepoint.h>\n"
	"TRACE_EVENT(demo_ev, TP_PROTO(int a), TP_ARGS(a),\n"
	"  TP_STRUCT__entry(__field(int, a)), TP_fast_assign(__entry->a = a;),\n"
	"  TP_printk(\"a=%d\", __entry->a));\n#endif\n"
	"#undef TRACE_INCLUDE_PATH\n#define TRACE_INCLUDE_PATH .\n"
	"#define TRACE_INCLUDE_FILE demo_events\n#include <slimtrace/define_trace.h>\n";

static int compile_dir(const char *dir, const char *extra, char *out, size_t size)
{
	char cmd[2048];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "%s -std=gnu11 -c -o /dev/null -I%s/include %s %s/events.c 2>&1",
		 TEST_CC, getenv("SLIM_SRCDIR") ? getenv("SLIM_SRCDIR") : "../../..", extra, dir);
	p = popen(cmd, "r");
	n = p ? fread(out, 1, size - 1, p) : 0;
	out[n] = '\0';
	return p ? pclose(p) : -1;
}

/*
 * TRACE_INCLUDE_PATH . needs -I. (the kernel's build adds -I$(src)):
 * without it the error names the header and says so, and with it the
 * same files compile.
 */
static void test_include_path(void)
{
	char dir[] = "/tmp/slim_incpath_XXXXXX", path[256], out[16384], flag[300];
	FILE *f;

	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof(path), "%s/demo_events.h", dir);
	f = fopen(path, "w");
	fputs(demo_header, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/events.c", dir);
	f = fopen(path, "w");
	fputs("#define CREATE_TRACE_POINTS\n#include \"demo_events.h\"\n", f);
	fclose(f);
	CHECK(compile_dir(dir, "", out, sizeof(out)) != 0);
	if (!check_report(strstr(out, "cannot find the trace header ./demo_events.h") &&
			  strstr(out, "add -I with the folder"), "TRACE_INCLUDE_PATH without -I",
			  __FILE__, __LINE__))
		fprintf(stderr, "     message:\n%s\n", out);
	/* One error, not a cascade from every pass. */
	CHECK(strstr(out, "No such file") == NULL);
	snprintf(flag, sizeof(flag), "-I%s", dir);
	CHECK_EQ_INT(compile_dir(dir, flag, out, sizeof(out)), 0);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	if (system(path))
		fprintf(stderr, "     could not remove %s\n", dir);
}

int main(void)
{
	char out[16384];
	unsigned int i;

	/* The harness itself: a correct header compiles. */
	CHECK_EQ_INT(compile("DECLARE_TRACE(tp_ok, TP_PROTO(int a), TP_ARGS(a));\n",
			     out, sizeof(out)), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int status = compile(cases[i].source, out, sizeof(out));

		if (!check_report(status != 0, cases[i].what, __FILE__, __LINE__))
			fprintf(stderr, "     compiled, but must not\n");
		if (!check_report(strstr(out, cases[i].expect) != NULL, cases[i].what,
				  __FILE__, __LINE__))
			fprintf(stderr, "     message lacks \"%s\":\n%s\n", cases[i].expect, out);
	}
	test_include_path();
	return check_done("compile_errors");
}
