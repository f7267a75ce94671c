// SPDX-License-Identifier: MIT
/*
 * Every viewer shows what `slimtrace report` shows.  For each trace
 * (recorded here by the test's own events: every integer size, arrays,
 * strings, two named threads; a run that loses events; the demo; and
 * the checked-in kernel and demo traces):
 *  - `convert --to ctf`, read by babeltrace2 (and babeltrace 1.5 where
 *    installed): every event's name, time, thread and field values equal
 *    the report's, nothing on babeltrace2's stderr but the discarded-event
 *    warnings, and those add up to the events the file lost;
 *  - `convert --to perfetto`, decoded by protoc with a schema written from
 *    Perfetto's field numbers (tests/viewers/perfetto_trace.proto): the
 *    same, on per-thread tracks, with --slice pairs checked;
 *  - KernelShark's library loading the trace.dat itself (tests/ks_dump,
 *    built where Debian's libkshark-dev is installed).
 * The comparisons are tests/viewers/viewers.py's; this test runs the
 * tools and checks what they say.
 *
 * Runs from build/<variant>/tests; the command is ../tools/slimtrace.
 */
#include <stdint.h>
#include <sys/stat.h>
#include "check.h"
#include "cmd.h"
#include "cv_record.h"

#define CLI "../tools/slimtrace"

static const char *srcdir;
static char viewers_py[4096], proto_dir[4096];
static int bt2_empty_string_bug, have_bt1, have_protoc, have_bt2, have_ks;

static int spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -1;
	ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* Run a command; its stdout into PATH.  The exit code. */
static int run_to(const char *path, const char *const argv[], char **err)
{
	struct cmd c;
	int code;

	cmd_run(&c, "vw", argv);
	code = c.code;
	if (spit(path, c.out))
		code = -1;
	if (err)
		*err = c.err;
	else
		free(c.err);
	free(c.out);
	return code;
}

static unsigned long long number_after(const char *text, const char *what)
{
	const char *p = strstr(text ? text : "", what);

	return p ? strtoull(p + strlen(what), NULL, 10) : ~0ULL;
}

/* What the report and stat say of FILE: its events, its losses. */
struct ref {
	unsigned long long events, lost;
};

static int reference(const char *file, struct ref *r)
{
	struct cmd c;
	int ok = 1;

	ok &= run_to("vw-ref.txt", (const char *[]){ CLI, "report", "-R", "-t", "-N", file, NULL }, NULL) == 0;
	ok &= run_to("vw-ref-info.txt", (const char *[]){ CLI, "report", "-t", file, NULL }, NULL) == 0;
	ok &= run_to("vw-formats.txt", (const char *[]){ CLI, "list", "-f", file, NULL }, NULL) == 0;
	cmd_run(&c, "vw", (const char *[]){ CLI, "stat", file, NULL });
	ok &= c.code == 0;
	r->events = number_after(c.out, "events:    ");
	r->lost = number_after(strstr(c.out, "recorded, "), "recorded, ");
	cmd_free(&c);
	return CHECK(ok) && CHECK(r->events != ~0ULL && r->lost != ~0ULL);
}

/* viewers.py MODE ... must print "OK N" with N the file's events. */
static void compare(const char *what, const char *file, const char *const args[],
		    unsigned long long events, unsigned long long *lost, unsigned long long *slices)
{
	const char *argv[12] = { "python3", viewers_py };
	char want[64];
	struct cmd c;
	int i;

	for (i = 0; args[i] && i < 9; i++)
		argv[i + 2] = args[i];
	argv[i + 2] = NULL;
	cmd_run(&c, "vw", argv);
	snprintf(want, sizeof(want), "OK %llu\n", events);
	if (!CHECK(c.code == 0 && cmd_has(c.out, want)))
		fprintf(stderr, "     %s of %s:\n%s%s", what, file, c.out, c.err);
	if (lost)
		*lost = number_after(c.out, "LOST ");
	if (slices)
		*slices = number_after(c.out, "SLICES ");
	if (cmd_has(c.out, "NOTE: "))
		printf("%s: %.*s\n", file, (int)strcspn(strstr(c.out, "NOTE: "), "\n"), strstr(c.out, "NOTE: "));
	cmd_free(&c);
}

/* babeltrace2's stderr: only "discarded N events" warnings; their sum. */
static unsigned long long discarded(const char *err, int *other)
{
	const char *line, *end;
	unsigned long long n = 0;

	*other = 0;
	for (line = err; *line; line = end) {
		end = strchr(line, '\n');
		end = end ? end + 1 : line + strlen(line);
		if (!strncmp(line, "WARNING: Tracer discarded ", 26))
			n += strtoull(line + 26, NULL, 10);
		else
			(*other)++;
	}
	return n;
}

static void test_ctf(const char *file, const struct ref *r)
{
	char dir[] = "vw-ctf", want[128], *err;
	struct cmd c;
	int other;

	cmd_run(&c, "vw", (const char *[]){ "rm", "-rf", dir, NULL });
	cmd_free(&c);
	cmd_run(&c, "vw", (const char *[]){ CLI, "convert", "--to", "ctf", file, dir, NULL });
	CHECK_EQ_INT(c.code, 0);
	snprintf(want, sizeof(want), "CTF 1.8, %llu events in ", r->events);
	CHECK(cmd_has(c.out, want));
	snprintf(want, sizeof(want), " packets, %llu lost\n", r->lost);
	CHECK(cmd_has(c.out, want));
	cmd_free(&c);
	if (!have_bt2)
		return;
	CHECK_EQ_INT(run_to("vw-bt2.txt", (const char *[]){ "babeltrace2", "--clock-seconds", dir, NULL },
			    &err), 0);
	CHECK_EQ_INT(discarded(err, &other), r->lost);
	CHECK_EQ_INT(other, 0);
	if (other)
		fprintf(stderr, "     babeltrace2 on %s said:\n%s", file, err);
	free(err);
	compare("babeltrace2", file, (const char *[]){ "ctf", "vw-ref.txt", "vw-formats.txt", "vw-bt2.txt",
						       bt2_empty_string_bug ? "empty-string-bug" : NULL, NULL },
		r->events, NULL, NULL);
	if (!have_bt1)
		return;
	CHECK_EQ_INT(run_to("vw-bt1.txt", (const char *[]){ "babeltrace", "--clock-seconds", dir, NULL },
			    NULL), 0);
	compare("babeltrace", file, (const char *[]){ "ctf1", "vw-ref.txt", "vw-formats.txt", "vw-bt1.txt",
						      NULL }, r->events, NULL, NULL);
}

/* protoc --decode of PB into TXT: the exit code, -2 if it said anything. */
static int decode(const char *pb, const char *txt)
{
	char arg[4200];
	struct cmd c;
	int code;

	snprintf(arg, sizeof(arg), "--proto_path=%s", proto_dir);
	cmd_run(&c, "vw", (const char *[]){ "sh", "-c", "exec protoc \"$1\" --decode=perfetto.protos.Trace "
					    "perfetto_trace.proto < \"$2\"", "sh", arg, pb, NULL });
	code = c.code;
	if (spit(txt, c.out))
		code = -1;
	if (*c.err) {
		fprintf(stderr, "protoc: %s", c.err);
		if (!code)
			code = -2;
	}
	cmd_free(&c);
	return code;
}

static void test_perfetto(const char *file, const struct ref *r, const char *slice, unsigned long long want_slices)
{
	unsigned long long lost = 0, slices = 0;
	char want[128];
	struct cmd c;

	if (slice)
		cmd_run(&c, "vw", (const char *[]){ CLI, "convert", "--to", "perfetto", "--slice", slice, file,
						    "vw.pb", NULL });
	else
		cmd_run(&c, "vw", (const char *[]){ CLI, "convert", "--to", "perfetto", file, "vw.pb", NULL });
	CHECK_EQ_INT(c.code, 0);
	snprintf(want, sizeof(want), "Perfetto protobuf, %llu events on ", r->events);
	CHECK(cmd_has(c.out, want));
	CHECK_EQ_STR(c.err, "");
	cmd_free(&c);
	if (!have_protoc)
		return;
	CHECK_EQ_INT(decode("vw.pb", "vw-pb.txt"), 0);
	compare("perfetto", file, (const char *[]){ "perfetto", "vw-ref.txt", "vw-formats.txt", "vw-pb.txt",
						    slice, NULL }, r->events, &lost, &slices);
	CHECK_EQ_INT(lost, r->lost);
	CHECK_EQ_INT(slices, want_slices);
}

/* The losses the pages carry: the report's EVENTS DROPPED lines. */
static unsigned long long dropped_lines(const char *path)
{
	char *text = cmd_slurp(path, NULL), *p;
	unsigned long long n = 0;

	for (p = text; p && (p = strstr(p, " [")); p++)
		if (strstr(p, " EVENTS DROPPED]") == p + 2 + strspn(p + 2, "0123456789"))
			n += strtoull(p + 2, NULL, 10);
	free(text);
	return n;
}

/*
 * KernelShark shows the pages' counts of lost events (its missed_events
 * entries); losses only the statistics know, after the last page, it
 * cannot show.
 */
static void test_kernelshark(const char *file, const struct ref *r)
{
	unsigned long long lost = 0, pages = dropped_lines("vw-ref-info.txt");

	if (!have_ks)
		return;
	CHECK_EQ_INT(run_to("vw-ks.txt", (const char *[]){ "./ks_dump", file, NULL }, NULL), 0);
	compare("kernelshark", file, (const char *[]){ "kshark", "vw-ref-info.txt", "vw-ks.txt", NULL },
		r->events, &lost, NULL);
	CHECK_EQ_INT(lost, pages);
	CHECK(pages <= r->lost);
}

static void test_file(const char *file, const char *slice, unsigned long long slices)
{
	struct ref r;

	if (!reference(file, &r))
		return;
	test_ctf(file, &r);
	test_perfetto(file, &r, NULL, 0);
	if (slice)
		test_perfetto(file, &r, slice, slices);
	test_kernelshark(file, &r);
}

/* ---- what convert refuses ------------------------------------------------------ */

static void expect(const char *const argv[], int code, const char *msg)
{
	struct cmd c;

	cmd_run(&c, "vw", argv);
	CHECK_EQ_INT(c.code, code);
	if (!CHECK(cmd_has(c.err, msg)))
		fprintf(stderr, "     want \"%s\" in: %s", msg, c.err);
	cmd_free(&c);
}

static void test_refusals(const char *kernel)
{
	struct cmd c;
	char *text;
	size_t len;

	expect((const char *[]){ CLI, "convert", "--to", "ctf", "--file-version", "6", kernel, "x", NULL }, 2,
	       "--file-version and --compression are for --to trace.dat");
	expect((const char *[]){ CLI, "convert", "-e", "sched:*", kernel, "x", NULL }, 2,
	       "-e is for --to ctf and --to perfetto");
	expect((const char *[]){ CLI, "convert", "--to", "json", kernel, "x", NULL }, 2,
	       "--to 'json': no such output format (formats: trace.dat, ctf, perfetto)");
	expect((const char *[]){ CLI, "convert", "--to", "ctf", kernel, NULL }, 2,
	       "wanted IN and OUT (a new (or empty) directory)");
	expect((const char *[]){ CLI, "convert", "--to", "ctf", "--slice", "a,b", kernel, "x", NULL }, 2,
	       "--slice is for --to perfetto");
	expect((const char *[]){ CLI, "convert", "--to", "perfetto", "--slice", "a", kernel, "x", NULL }, 2,
	       "expected START_EVENT,END_EVENT[,KEY_FIELD]");
	expect((const char *[]){ CLI, "convert", "--to", "perfetto", "--slice", "sched_switch,nosuch",
				 kernel, "vw-x.pb", NULL }, 1, "no event in");
	expect((const char *[]){ CLI, "convert", "--to", "perfetto", "--slice", "sched_switch,sched_wakeup,nokey",
				 kernel, "vw-x.pb", NULL }, 1, "sched:sched_switch has no field 'nokey'");
	expect((const char *[]){ CLI, "convert", "--to", "ctf", "-e", "nosuch", kernel, "vw-x", NULL }, 1,
	       "no event in the file matches 'nosuch'");
	expect((const char *[]){ CLI, "convert", "--to", "ctf", "no-such.dat", "vw-x", NULL }, 1,
	       "no-such.dat: cannot open");
	expect((const char *[]){ CLI, "convert", "--to", "perfetto", kernel, "/nonexistent-dir/x.pb", NULL }, 1,
	       "cannot create");
	/* A directory in use is not overwritten. */
	mkdir("vw-full", 0755);
	spit("vw-full/keep", "x");
	expect((const char *[]){ CLI, "convert", "--to", "ctf", kernel, "vw-full", NULL }, 1,
	       "the directory is not empty");
	CHECK(access("vw-full/keep", F_OK) == 0 && access("vw-full/metadata", F_OK) != 0);
	unlink("vw-full/keep");
	rmdir("vw-full");

	/* A truncated file: the reader's message, exit 1, no crash. */
	text = cmd_slurp(kernel, &len);
	if (CHECK(text && len > 12000)) {
		FILE *f = fopen("vw-cut.dat", "wb");

		CHECK(f && fwrite(text, 1, 12000, f) == 12000);
		if (f)
			fclose(f);
		expect((const char *[]){ CLI, "convert", "--to", "perfetto", "vw-cut.dat", "vw-x.pb", NULL }, 1,
		       "vw-cut.dat: ");
		cmd_run(&c, "vw", (const char *[]){ "rm", "-rf", "vw-x", NULL });
		cmd_free(&c);
		expect((const char *[]){ CLI, "convert", "--to", "ctf", "vw-cut.dat", "vw-x", NULL }, 1,
		       "vw-cut.dat: ");
		unlink("vw-cut.dat");
	}
	free(text);
	unlink("vw-x.pb");
	cmd_run(&c, "vw", (const char *[]){ "rm", "-rf", "vw-x", NULL });
	cmd_free(&c);
}

/* -e: only the events asked for, in both formats. */
static void test_selection(const char *file)
{
	struct cmd c;
	char want[64];
	unsigned long long n;

	cmd_run(&c, "vw", (const char *[]){ CLI, "stat", "-e", "cv_ints", file, NULL });
	n = number_after(c.out, "events:    ");
	cmd_free(&c);
	CHECK(n > 0 && n != ~0ULL);
	cmd_run(&c, "vw", (const char *[]){ "rm", "-rf", "vw-sel", NULL });
	cmd_free(&c);
	cmd_run(&c, "vw", (const char *[]){ CLI, "convert", "--to", "ctf", "-e", "cv_ints", file, "vw-sel", NULL });
	CHECK_EQ_INT(c.code, 0);
	snprintf(want, sizeof(want), "CTF 1.8, %llu events in ", n);
	CHECK(cmd_has(c.out, want));
	cmd_free(&c);
	if (have_bt2) {
		cmd_run(&c, "vw", (const char *[]){ "babeltrace2", "vw-sel", NULL });
		CHECK_EQ_INT(c.code, 0);
		CHECK(!cmd_has(c.out, "cv_arrays") && cmd_has(c.out, "cv_ints"));
		cmd_free(&c);
	}
	cmd_run(&c, "vw", (const char *[]){ "rm", "-rf", "vw-sel", NULL });
	cmd_free(&c);
}

/* A counter clock: CTF cannot say its rate; convert says what it wrote. */
static void test_counter_clock(void)
{
	struct cmd c;

	cmd_run(&c, "vw", (const char *[]){ CLI, "record", "-q", "-C", "tsc", "-o", "vw-tsc.dat", "--",
					    "../examples/demo", NULL });
	CHECK_EQ_INT(c.code, 0);
	cmd_free(&c);
	if (access("vw-tsc.dat", R_OK))
		return;
	cmd_run(&c, "vw", (const char *[]){ "rm", "-rf", "vw-tsc", NULL });
	cmd_free(&c);
	cmd_run(&c, "vw", (const char *[]){ CLI, "convert", "--to", "ctf", "vw-tsc.dat", "vw-tsc", NULL });
	CHECK_EQ_INT(c.code, 0);
	CHECK(cmd_has(c.err, "counts ticks at a rate") && cmd_has(c.err, "cycles are the raw counter"));
	cmd_free(&c);
	if (have_bt2) {
		cmd_run(&c, "vw", (const char *[]){ "babeltrace2", "--clock-cycles", "vw-tsc", NULL });
		CHECK_EQ_INT(c.code, 0);
		CHECK_EQ_STR(c.err, "");
		CHECK(cmd_has(c.out, "demo:demo_request"));
		cmd_free(&c);
	}
	cmd_run(&c, "vw", (const char *[]){ "rm", "-rf", "vw-tsc", "vw-tsc.dat", NULL });
	cmd_free(&c);
}

static void find_tools(void)
{
	struct cmd c;

	have_bt2 = cmd_on_path("babeltrace2");
	have_bt1 = cmd_on_path("babeltrace");
	have_protoc = cmd_on_path("protoc");
	have_ks = access("ks_dump", X_OK) == 0;
	if (!have_bt2)
		printf("NOTE: babeltrace2 is not installed: CTF output not read back\n");
	if (!have_bt1)
		printf("NOTE: babeltrace (1.5) is not installed: CTF read by babeltrace2 only\n");
	if (!have_protoc)
		printf("NOTE: protoc is not installed: Perfetto output not decoded\n");
	if (!have_ks)
		printf("NOTE: KernelShark's libkshark-dev is not installed: KernelShark not exercised\n");
	if (have_bt2) {
		cmd_run(&c, "vw", (const char *[]){ "babeltrace2", "--version", NULL });
		/* 2.0.0 to 2.0.4 show an empty string as an earlier event's. */
		bt2_empty_string_bug = cmd_has(c.out, "Babeltrace 2.0.") &&
			strchr("01234", strstr(c.out, "Babeltrace 2.0.")[15]);
		cmd_free(&c);
	}
}

int main(void)
{
	char kernel[4096], demo[4096];
	struct cmd c;

	srcdir = getenv("SLIM_SRCDIR") ? getenv("SLIM_SRCDIR") : "../../..";
	check_watchdog("viewers", 500);
	snprintf(kernel, sizeof(kernel), "%s/tests/cli/kernel-v6.dat", srcdir);
	snprintf(demo, sizeof(demo), "%s/tests/interop/demo-v6.dat", srcdir);
	snprintf(viewers_py, sizeof(viewers_py), "%s/tests/viewers/viewers.py", srcdir);
	snprintf(proto_dir, sizeof(proto_dir), "%s/tests/viewers", srcdir);
	if (!CHECK(access(CLI, X_OK) == 0) || !CHECK(access(kernel, R_OK) == 0))
		return check_done("viewers");
	cmd_sanitizer_exit_codes(srcdir);
	find_tools();
	CHECK_EQ_INT(cv_record("vw-cv.dat", 0), 0);
	CHECK_EQ_INT(cv_record("vw-lossy.dat", 1), 0);
	cmd_run(&c, "vw", (const char *[]){ CLI, "record", "-q", "-o", "vw-demo.dat", "--", "../examples/demo",
					    NULL });
	CHECK_EQ_INT(c.code, 0);
	cmd_free(&c);

	/* 2 threads x 4 requests; the demo: 2 x 3, each with its reply. */
	test_file("vw-cv.dat", "cv_start,cv_end,id", 8);
	test_file("vw-cv.dat", "cv_start,cv_end", 8);
	test_file("vw-lossy.dat", NULL, 0);
	test_file("vw-demo.dat", "demo_request,demo_reply,id", 6);
	test_file(kernel, NULL, 0);
	test_file(demo, "demo:demo_request,demo:demo_reply,id", 6);
	test_selection("vw-cv.dat");
	test_refusals(kernel);
	test_counter_clock();

	cmd_run(&c, "vw", (const char *[]){ "rm", "-rf", "vw-ctf", "vw.pb", "vw-cv.dat", "vw-lossy.dat",
					    "vw-demo.dat", NULL });
	cmd_free(&c);
	return check_done("viewers");
}
