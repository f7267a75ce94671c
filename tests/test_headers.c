// SPDX-License-Identifier: MIT
/*
 * The installed headers in every build a project may have: a trace
 * header that uses every form of the dialect (tests/data/headers/) is
 * compiled with -Wall -Wextra -Wconversion -Wsign-conversion -Wcast-qual
 * -Wshadow -Wpedantic -Werror as C99, C11 and C17, GNU and ISO, by gcc
 * and clang, with CREATE_TRACE_POINTS and without; a C++ file (g++,
 * clang++; C++11 to C++20) includes every public header and calls the
 * events; both callers run, and what they recorded is checked in the
 * trace file.  And no public header defines a macro that a kernel trace
 * header could be using as a field name (every field name of a 6.18
 * kernel's events, tests/data/kernel/field-names.txt).
 *
 * The whole matrix runs in the plain build; the sanitizer builds link and
 * run the callers with their own compiler and flags.
 */
#include <stdlib.h>
#include <unistd.h>
#include <slimtrace/event.h>
#include "check.h"

#ifndef TEST_CC
#define TEST_CC "cc"
#endif
#ifndef TEST_CXX
#define TEST_CXX "g++"
#endif
#ifndef TEST_SAN
#define TEST_SAN ""
#endif

#define STRICT "-Wall -Wextra -Wconversion -Wsign-conversion -Wcast-qual -Wshadow " \
	       "-Wpedantic -Werror"

static char src[512], tmp[64], lib[600];

/* Runs cmd; its output (stdout and stderr) in out, malloc'd. */
static int run(const char *cmd, char **out)
{
	size_t len = 0, cap = 65536, n;
	FILE *p = popen(cmd, "r");
	char *buf = malloc(cap);
	int status;

	if (!p || !buf) {
		free(buf);
		if (p)
			pclose(p);
		*out = strdup("");
		return -1;
	}
	while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 4096) {
			char *b = realloc(buf, cap * 2);

			if (!b)
				break;
			buf = b;
			cap *= 2;
		}
	}
	buf[len] = '\0';
	status = pclose(p);
	*out = buf;
	return status;
}

static int have(const char *tool)
{
	char cmd[256], *out;
	int ret;

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	ret = run(cmd, &out);
	free(out);
	return ret == 0;
}

/* Compiles one file; the compiler must say nothing at all. */
static int compile(const char *cc, const char *std, const char *file, const char *obj,
		   const char *extra)
{
	char cmd[8192], *out;
	int ret;

	snprintf(cmd, sizeof(cmd),
		 "%s -std=%s " STRICT " %s -I%s/include -I%s/include/slimtrace/compat "
		 "-I%s/tests/data/headers -c %s/tests/data/headers/%s -o %s/%s 2>&1",
		 cc, std, extra, src, src, src, src, file, tmp, obj);
	ret = run(cmd, &out);
	if (!check_report(ret == 0 && out[0] == '\0', "a strict build of the headers",
			  __FILE__, __LINE__))
		fprintf(stderr, "     %s -std=%s %s:\n%.3000s\n", cc, std, file, out);
	free(out);
	return ret == 0;
}

/* The "event: text" part of each line of a trace file. */
static char *bodies(const char *trace)
{
	char *out = calloc(1, strlen(trace) + 1), *copy = strdup(trace), *line, *save = NULL;
	const char *p;
	size_t len = 0;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || !strstr(line, "] ") || !(p = strstr(line, ": strict_")))
			continue;
		len += (size_t)sprintf(out + len, "%s\n", p + 2);
	}
	free(copy);
	return out;
}

static void check_output(const char *who, const char *out)
{
	char want[2048], groups[512] = "";
	unsigned int i, ngroups = (unsigned int)slim_bitmask_bytes(slim_cpumask_bits()) / 4;
	char *got = bodies(out);

	for (i = 1; i < ngroups; i++)
		strcat(groups, "00000000,");
	snprintf(want, sizeof(want),
		 "strict_all: c=65 u=3 s=-2 l=-40000 q=1099511627776 tag=tag name=named "
		 "part=na blob=de ad bits=80000000,00000001 cpus=%s00000001 rname=named "
		 "rblob=dead rbits=80000000,00000001 mode=on\n"
		 "strict_first: a=1 flags=ONE|TWO size=8\n"
		 "strict_print: printed a=2\n"
		 "strict_cond: a=4 flags= size=8\n"
		 "strict_fn: a=5 flags=TWO size=8\n"
		 "strict_tcond: a=6\n"
		 "strict_tfn: no args\n"
		 "strict_vstr: msg=v-8\n", groups);
	if (!check_report(!strcmp(got, want), "the caller's events are in the trace file",
			  __FILE__, __LINE__))
		fprintf(stderr, "     %s:\n     got:\n%s     want:\n%s", who, got, want);
	/* TRACE_DEFINE_SIZEOF, from the C file, in the C++ caller's process too. */
	if (!check_report(strstr(out, "{ 2, \"TWO\" }), (int)8\n") != NULL,
			  "the format shows TRACE_DEFINE_SIZEOF's value", __FILE__, __LINE__))
		fprintf(stderr, "     %s:\n%.2000s\n", who, out);
	free(got);
}

/* Links the C definitions with a caller and runs it. */
static void link_and_run(const char *cc, const char *caller_obj, const char *who)
{
	char cmd[8192], *out;
	int ret;

	snprintf(cmd, sizeof(cmd), "%s %s -o %s/prog %s/%s %s/def.o %s -lpthread -ldl 2>&1",
		 cc, TEST_SAN, tmp, tmp, caller_obj, tmp, lib);
	ret = run(cmd, &out);
	if (!check_report(ret == 0, "the caller links", __FILE__, __LINE__))
		fprintf(stderr, "     %s\n%.2000s\n", cmd, out);
	free(out);
	if (ret)
		return;
	snprintf(cmd, sizeof(cmd), "%s/prog", tmp);
	ret = run(cmd, &out);
	if (!check_report(ret == 0, "the caller runs", __FILE__, __LINE__))
		fprintf(stderr, "     %s: exit %d\n%.2000s\n", who, ret, out);
	else
		check_output(who, out);
	free(out);
}

/* Variables: the compilers the build used are compared at run time. */
static const char *build_cc = TEST_CC, *build_cxx = TEST_CXX;

static void test_c(int full)
{
	static const char *const stds[] = { "c99", "gnu99", "c11", "gnu11", "c17", "gnu17" };
	const char *ccs[3] = { TEST_CC, NULL, NULL };
	unsigned int i, j;
	int nccs = 1;

	if (full && have("gcc") && strcmp(build_cc, "gcc"))
		ccs[nccs++] = "gcc";
	if (full && have("clang-19") && !strstr(build_cc, "clang"))
		ccs[nccs++] = "clang-19";
	for (i = 0; full && i < (unsigned int)nccs; i++) {
		for (j = 0; j < sizeof(stds) / sizeof(stds[0]); j++) {
			compile(ccs[i], stds[j], "strict_def.c", "def.o", "");
			compile(ccs[i], stds[j], "strict_use.c", "use.o", "");
		}
	}
	/* The build's own compiler and flags make the objects that run. */
	if (compile(TEST_CC, "gnu11", "strict_def.c", "def.o", TEST_SAN) &&
	    compile(TEST_CC, "gnu11", "strict_use.c", "use.o", TEST_SAN))
		link_and_run(TEST_CC, "use.o", "C caller");
}

static void test_cxx(int full)
{
	static const char *const stds[] = { "c++11", "c++14", "c++17", "c++20", "gnu++17" };
	const char *cxxs[2] = { TEST_CXX, NULL };
	unsigned int i, j;
	int ncxx = 1;

	if (!have(TEST_CXX)) {
		check_report(0, "a C++ compiler (" TEST_CXX ")", __FILE__, __LINE__);
		return;
	}
	if (full && have("clang++-19") && !strstr(build_cxx, "clang"))
		cxxs[ncxx++] = "clang++-19";
	/* The definitions are C: C++ gets an error that says so. */
	if (full) {
		char cmd[4096], *out;
		int ret;

		snprintf(cmd, sizeof(cmd), "%s -std=c++17 -x c++ -I%s/include "
			 "-I%s/include/slimtrace/compat -I%s/tests/data/headers -fsyntax-only "
			 "%s/tests/data/headers/strict_def.c 2>&1", TEST_CXX, src, src, src, src);
		ret = run(cmd, &out);
		if (!check_report(ret != 0 && strstr(out, "define CREATE_TRACE_POINTS in a C file"),
				  "CREATE_TRACE_POINTS in C++ is refused", __FILE__, __LINE__))
			fprintf(stderr, "%.2000s\n", out);
		free(out);
	}
	for (i = 0; i < (unsigned int)ncxx; i++) {
		for (j = 0; full && j < sizeof(stds) / sizeof(stds[0]); j++)
			compile(cxxs[i], stds[j], "strict_use.cpp", "usexx.o", "");
		if (compile(cxxs[i], "c++17", "strict_use.cpp", "usexx.o", TEST_SAN))
			link_and_run(cxxs[i], "usexx.o", cxxs[i]);
	}
}

/* The names of the field-names.txt list: one string of "\nname\n" entries. */
static char *field_names(unsigned int *count)
{
	char path[600], name[256], *all;
	size_t len = 1, cap = 1 << 16;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/data/kernel/field-names.txt", src);
	f = fopen(path, "r");
	all = calloc(1, cap);
	*count = 0;
	if (!f || !all) {
		if (f)
			fclose(f);
		return all;
	}
	all[0] = '\n';
	while (fscanf(f, "%255s", name) == 1) {
		if (len + strlen(name) + 2 >= cap) {
			char *b = realloc(all, cap * 2);

			if (!b)
				break;
			all = b;
			cap *= 2;
		}
		len += (size_t)sprintf(all + len, "%s\n", name);
		(*count)++;
	}
	fclose(f);
	return all;
}

/* No public header may turn a kernel field name into something else. */
static void test_macro_names(void)
{
	static const char *const modes[] = { "", "-D_GNU_SOURCE" };
	char cmd[8192], key[300], *out, *line, *next, *names;
	unsigned int i, count, found;

	names = field_names(&count);
	/* tests/data/kernel: 1795 names from 2323 events. */
	CHECK(count >= 1700);
	for (i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd),
			 "printf '#include <slimtrace/tracepoint.h>\\n#include <slimtrace/ctl.h>\\n"
			 "#include <slimtrace/output.h>\\n#include <slimtrace/record.h>\\n"
			 "#include <linux/tracepoint.h>\\n#define CREATE_TRACE_POINTS\\n"
			 "#include \"strict_events.h\"\\n' | %s %s -E -dM -I%s/include "
			 "-I%s/include/slimtrace/compat -I%s/tests/data/headers -x c - 2>&1",
			 TEST_CC, modes[i], src, src, src);
		if (!check_report(run(cmd, &out) == 0 && strstr(out, "#define SLIM_NARGS"),
				  "the headers preprocess", __FILE__, __LINE__)) {
			fprintf(stderr, "%.2000s\n", out);
			free(out);
			continue;
		}
		found = 0;
		for (line = out; line && *line; line = next) {
			size_t n;

			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			if (strncmp(line, "#define ", 8))
				continue;
			n = strcspn(line + 8, " (");
			if (n + 3 > sizeof(key))
				continue;
			snprintf(key, sizeof(key), "\n%.*s\n", (int)n, line + 8);
			if (strstr(names, key)) {
				check_report(0, "no macro named as a kernel field", __FILE__, __LINE__);
				fprintf(stderr, "     %s (%s)\n", line, modes[i][0] ? modes[i] : "no -D");
				found++;
			}
		}
		CHECK_EQ_INT(found, 0);
		free(out);
	}
	free(names);
}

int main(void)
{
	const char *dir = getenv("SLIM_SRCDIR");
	const char *build = getenv("SLIM_TEST_BUILD");
	int full = !build || !strcmp(build, "plain");
	char *real, *here;

	check_watchdog("headers", 500);
	real = realpath(dir ? dir : "../../..", NULL);
	here = realpath("..", NULL);
	if (!real || !here)
		return 1;
	snprintf(src, sizeof(src), "%s", real);
	snprintf(lib, sizeof(lib), "%s/libslimtrace.a", here);
	free(real);
	free(here);
	snprintf(tmp, sizeof(tmp), "/tmp/slim_headers_XXXXXX");
	if (!mkdtemp(tmp))
		return 1;
	test_macro_names();
	test_c(full);
	test_cxx(full);
	{
		char cmd[128], *out;

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
		run(cmd, &out);
		free(out);
	}
	return check_done("headers");
}
