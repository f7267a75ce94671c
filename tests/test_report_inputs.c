// SPDX-License-Identifier: MIT
/*
 * `slimtrace report` with several inputs and with filters that
 * libtraceevent's parser cannot take:
 *  - `report -i A -i B` merges the files on one timeline, as
 *    `trace-cmd report -i A -i B` does (compared with trace-cmd itself):
 *    the checked-in kernel trace beside the checked-in demo trace, and
 *    two traces this test records from two processes taking turns, so
 *    that their events must alternate;
 *  - -e and -F over several files;
 *  - -F expressions that crash libtraceevent 1.7's filter parser (the
 *    test shows they do, in a child) give a message, never a crash, and
 *    mutated expressions never crash the command.
 *
 * Runs from build/<variant>/tests; the command is ../tools/slimtrace.
 */
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <traceevent/event-parse.h>
#include <slimtrace/ctl.h>
#include <slimtrace/record.h>
#include "check.h"
#include "cmd.h"
#include "ri_events.h"

#define CLI "../tools/slimtrace"
#define TURNS 20
#ifndef MUTATIONS
#define MUTATIONS 300
#endif

static char kernel_dat[4096], demo_dat[4096];
static const char *srcdir;

static void report(struct cmd *c, const char *const args[])
{
	const char *argv[32] = { CLI, "report" };
	int i;

	for (i = 0; args[i] && i < 29; i++)
		argv[i + 2] = args[i];
	argv[i + 2] = NULL;
	cmd_run(c, "ri", argv);
}

static int count_lines(const char *text, const char *prefix)
{
	const char *p;
	int n = 0;

	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		if (!strncmp(p, prefix, strlen(prefix)))
			n++;
	return n;
}

/*
 * trace-cmd 3.1.6 prints the line after a multi-file "CPU:n [N EVENTS
 * DROPPED]" without its file's name; slimtrace names the file on every
 * line.  Give trace-cmd's line its prefix back.
 */
static char *fix_dropped_prefix(const char *text)
{
	size_t len = strlen(text), cap = len * 2 + 1, n = 0;
	char *out = malloc(cap), prefix[256] = "", buf[4096];
	const char *line = text, *end;

	while (out && *line) {
		end = strchr(line, '\n');
		end = end ? end + 1 : line + strlen(line);
		snprintf(buf, sizeof(buf), "%.*s", (int)(end - line), line);
		if (prefix[0]) {
			if (strncmp(line, prefix, strlen(prefix))) {
				memcpy(out + n, prefix, strlen(prefix));
				n += strlen(prefix);
			}
			prefix[0] = '\0';
		}
		if (strstr(buf, "EVENTS DROPPED]") && strstr(buf, ": CPU:")) {
			size_t plen = (size_t)(strstr(buf, ": CPU:") - buf) + 2;

			snprintf(prefix, sizeof(prefix), "%.*s", (int)plen, buf);
		}
		memcpy(out + n, line, end - line);
		n += end - line;
		line = end;
	}
	if (out)
		out[n] = '\0';
	return out;
}

static void compare_with_trace_cmd(const char *const ours[], const char *const theirs[])
{
	struct cmd a, b;
	char *fixed;

	report(&a, ours);
	CHECK_EQ_INT(a.code, 0);
	if (!cmd_on_path("trace-cmd")) {
		printf("NOTE: trace-cmd is not installed: multi-file reports not compared with it\n");
		cmd_free(&a);
		return;
	}
	cmd_run(&b, "tc", theirs);
	CHECK_EQ_INT(b.code, 0);
	fixed = fix_dropped_prefix(b.out);
	CHECK(count_lines(a.out, "") > 2);
	CHECK_EQ_STR(a.out, fixed);
	free(fixed);
	cmd_free(&a);
	cmd_free(&b);
}

/* The single-file report of PATH, every line prefixed as in a merge. */
static char *prefixed(const char *path, int width)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *args[] = { path, NULL };
	char *out, *o, *line, *end;
	struct cmd c;

	report(&c, args);
	out = malloc(strlen(c.out) * 2 + 4096);
	o = out;
	for (line = c.out; out && *line; line = end) {
		end = strchr(line, '\n');
		end = end ? end + 1 : line + strlen(line);
		o += sprintf(o, "%*s: %.*s", width, name, (int)(end - line), line);
	}
	if (o)
		*o = '\0';
	cmd_free(&c);
	return out;
}

/* Every line of PART is in WHOLE, in the same order. */
static int in_order(const char *whole, const char *part)
{
	const char *p = part, *w = whole, *end, *hit;
	char line[2048];

	for (; *p; p = end) {
		end = strchr(p, '\n');
		end = end ? end + 1 : p + strlen(p);
		snprintf(line, sizeof(line), "%.*s", (int)(end - p), p);
		hit = strstr(w, line);
		if (!hit)
			return 0;
		w = hit + strlen(line);
	}
	return 1;
}

static double line_time(const char *line)
{
	const char *p = strstr(line, "]");

	return p ? strtod(p + 1, NULL) : -1;
}

/* The event lines' times never go back. */
static int times_ascend(const char *text)
{
	const char *line;
	double last = 0, ts;

	for (line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (!strstr(line, "]") || strstr(line, "DROPPED]"))
			continue;
		ts = line_time(line);
		if (ts < last)
			return 0;
		last = ts;
	}
	return 1;
}

static void test_checked_in_pair(void)
{
	const char *args[] = { "-i", kernel_dat, "-i", demo_dat, NULL };
	struct cmd c;
	char *k, *d;

	compare_with_trace_cmd(args, (const char *[]){ "trace-cmd", "report", "-i", kernel_dat,
						       "-i", demo_dat, NULL });
	report(&c, args);
	CHECK_EQ_INT(c.code, 0);
	CHECK_EQ_STR(c.err, "");
	CHECK(!strncmp(c.out, "kernel-v6.dat: cpus=2\n  demo-v6.dat: cpus=1\n", 44));
	k = prefixed(kernel_dat, 13);
	d = prefixed(demo_dat, 13);
	CHECK(k && d && in_order(c.out, k) && in_order(c.out, d));
	/* Both whole, header lines included, and nothing else. */
	CHECK_EQ_INT(count_lines(c.out, ""), count_lines(k, "") + count_lines(d, ""));
	CHECK(times_ascend(c.out));
	CHECK_EQ_INT(count_lines(c.out, "kernel-v6.dat: CPU:0 [149 EVENTS DROPPED]"), 1);
	free(k);
	free(d);
	cmd_free(&c);

	/* The same file twice: equal times go to the file named first. */
	report(&c, (const char *[]){ "-i", demo_dat, "-i", demo_dat, NULL });
	CHECK_EQ_INT(c.code, 0);
	CHECK_EQ_INT(count_lines(c.out, "demo-v6.dat: "), 2 + 2 * 16);
	cmd_free(&c);
}

/* ---- two processes taking turns --------------------------------------------- */

static int turn_child(const char *path, int file, int rfd, int wfd)
{
	char token;
	int ok = 1, i;

	check_watchdog(0, 0);
	ok &= slim_ctl_write("set_event", "ritest:*") == 0;
	ok &= slim_ctl_write("trace_clock", "mono_raw") == 0;
	ok &= slim_record_start(path) == 0;
	for (i = 0; ok && i < TURNS; i++) {
		if (file == 1 && read(rfd, &token, 1) != 1)
			ok = 0;
		trace_ri_tick(file, i);
		if (write(wfd, "x", 1) != 1)
			ok = 0;
		if (file == 0 && read(rfd, &token, 1) != 1)
			ok = 0;
	}
	ok &= slim_record_stop() == 0;
	return ok;
}

/* A fires, then B, then A...: the merge must alternate A and B. */
static int record_turns(const char *a, const char *b)
{
	int ab[2], ba[2], status, ok = 1, i;
	pid_t pid[2];

	if (pipe(ab) || pipe(ba))
		return 0;
	fflush(NULL);
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			_exit(turn_child(i ? b : a, i, i ? ab[0] : ba[0], i ? ba[1] : ab[1]) ? 0 : 1);
	}
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	for (i = 0; i < 2; i++) {
		if (pid[i] < 0 || waitpid(pid[i], &status, 0) != pid[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			ok = 0;
	}
	return ok;
}

static void test_turns(void)
{
	const char *args[] = { "-i", "ri-a.dat", "-i", "ri-bb.dat", NULL };
	char want[64], *line, *next;
	struct cmd c;
	int i, good = 1;

	if (!CHECK(record_turns("ri-a.dat", "ri-bb.dat")))
		return;
	report(&c, args);
	CHECK_EQ_INT(c.code, 0);
	CHECK_EQ_STR(c.err, "");
	CHECK_EQ_INT(count_lines(c.out, " ri-a.dat: "), 1 + TURNS);
	CHECK_EQ_INT(count_lines(c.out, "ri-bb.dat: "), 1 + TURNS);
	for (i = 0, line = c.out; *line; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		if (!strstr(line, "ri_tick:") || strstr(line, "ri_tick:") > next)
			continue;
		snprintf(want, sizeof(want), "file=%d turn=%d\n", i % 2, i / 2);
		good &= !strncmp(line, i % 2 ? "ri-bb.dat: " : " ri-a.dat: ", 11);
		good &= (size_t)(next - line) > strlen(want) &&
			!strncmp(next - strlen(want), want, strlen(want));
		i++;
	}
	CHECK(good && i == 2 * TURNS);
	CHECK(times_ascend(c.out));
	cmd_free(&c);
	compare_with_trace_cmd(args, (const char *[]){ "trace-cmd", "report", "-i", "ri-a.dat",
						       "-i", "ri-bb.dat", NULL });
	/* Only B's events: the filter applies in every file that has the event. */
	report(&c, (const char *[]){ "-i", "ri-a.dat", "-i", "ri-bb.dat", "-F", "ri_tick: file == 1",
				     NULL });
	CHECK_EQ_INT(c.code, 0);
	CHECK_EQ_INT(count_lines(c.out, " ri-a.dat: "), 1);
	CHECK_EQ_INT(count_lines(c.out, "ri-bb.dat: "), 1 + TURNS);
	cmd_free(&c);
	unlink("ri-a.dat");
	unlink("ri-bb.dat");
}

/* ---- -e and -F over several files -------------------------------------------- */

static void test_selection(void)
{
	struct cmd c;

	report(&c, (const char *[]){ "-i", kernel_dat, "-i", demo_dat, "-e", "demo_reply", NULL });
	CHECK_EQ_INT(c.code, 0);
	CHECK_EQ_INT(count_lines(c.out, "kernel-v6.dat: "), 1);
	CHECK_EQ_INT(count_lines(c.out, "  demo-v6.dat: "), 1 + 6);
	cmd_free(&c);

	report(&c, (const char *[]){ "-i", kernel_dat, "-i", demo_dat, "-e", "sched_process_exec",
				     "-e", "demo_parse", NULL });
	CHECK_EQ_INT(c.code, 0);
	CHECK_EQ_INT(count_lines(c.out, "  demo-v6.dat: "), 1 + 4);
	CHECK(count_lines(c.out, "kernel-v6.dat: ") > 10);
	CHECK(!cmd_has(c.out, "sched_switch"));
	cmd_free(&c);

	/* Exclusion only: everything else of both files. */
	report(&c, (const char *[]){ "-i", kernel_dat, "-i", demo_dat, "-e", "!sched_switch", NULL });
	CHECK_EQ_INT(c.code, 0);
	CHECK(!cmd_has(c.out, "sched_switch:"));
	CHECK_EQ_INT(count_lines(c.out, "  demo-v6.dat: "), 1 + 16);
	cmd_free(&c);

	report(&c, (const char *[]){ "-i", kernel_dat, "-i", demo_dat, "-e", "nosuch", NULL });
	CHECK_EQ_INT(c.code, 1);
	CHECK(cmd_has(c.err, "no event in any of the files matches 'nosuch'"));
	CHECK_EQ_STR(c.out, "");
	cmd_free(&c);

	/* A filter on an event only one file has applies there... */
	report(&c, (const char *[]){ "-i", kernel_dat, "-i", demo_dat, "-F",
				     "sched_switch: prev_pid == 10756", "-F", "demo_reply: id > 100", NULL });
	CHECK_EQ_INT(c.code, 0);
	CHECK_EQ_INT(count_lines(c.out, "  demo-v6.dat: "), 1 + 2);
	CHECK_EQ_INT(count_lines(c.out, "kernel-v6.dat: ") - 1, count_lines(c.out, "kernel-v6.dat: CPU:") +
		     count_lines(c.out, "kernel-v6.dat:             bash-10756 "));
	CHECK(count_lines(c.out, "kernel-v6.dat:             bash-10756 ") > 10);
	cmd_free(&c);

	/* ...and one no file has is an error. */
	report(&c, (const char *[]){ "-i", kernel_dat, "-i", demo_dat, "-F", "nosuch: x > 1", NULL });
	CHECK_EQ_INT(c.code, 1);
	CHECK(cmd_has(c.err, "-F 'nosuch: x > 1': no event found in any of the files"));
	cmd_free(&c);

	/* Commands that read one file say so. */
	cmd_run(&c, "ri", (const char *[]){ CLI, "stat", "-i", kernel_dat, "-i", demo_dat, NULL });
	CHECK_EQ_INT(c.code, 2);
	CHECK(cmd_has(c.err, "two files") && cmd_has(c.err, "this command reads one"));
	cmd_free(&c);

	report(&c, (const char *[]){ kernel_dat, demo_dat, NULL });
	CHECK_EQ_INT(c.code, 2);
	CHECK(cmd_has(c.err, "give each file its own -i"));
	cmd_free(&c);

	report(&c, (const char *[]){ "-i", kernel_dat, "-i", "no-such.dat", NULL });
	CHECK_EQ_INT(c.code, 1);
	CHECK(cmd_has(c.err, "no-such.dat: cannot open"));
	CHECK_EQ_STR(c.out, "");
	cmd_free(&c);
}

/* ---- filters libtraceevent's parser dies on ------------------------------------ */

/* Found by mutating valid filters (a few hundred tries), libtraceevent 1.7.1. */
static const char *const crashers[] = {
	"sched_switch: prev_state &",
	"sched_switch: prev_pid >",
	"sched_switch,sched_wakeup: common_pid != ",
	"sched_switch: prev_pid > 10 && next_comm == \"bash",
	"sched_switch: prev_pid > 10 && next_comm ==== \"bash\"",
	"sched_wakeup: (pid < 100 || prio != 120) = 1",
	"sched_process_exec: filename ~ \"/usr/*\"||",
};

/* Does libtraceevent itself die parsing EXPR (or freeing what it made)? */
static int parser_dies(struct tep_handle *tep, const char *expr)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		struct tep_event_filter *f = tep_filter_alloc(tep);
		int devnull = open("/dev/null", O_WRONLY);

		check_watchdog(0, 0);
		dup2(devnull, 2);
		alarm(10);
		/* Some expressions only damage the heap: freeing shows it. */
		tep_filter_add_filter_str(f, expr);
		tep_filter_free(f);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return !WIFEXITED(status) || WEXITSTATUS(status);
}

static struct tep_handle *kernel_formats(void)
{
	struct tep_handle *tep = tep_alloc();
	const char *names[] = { "sched_switch", "sched_wakeup", "sched_process_exec" };
	struct cmd c;
	size_t i;

	for (i = 0; tep && i < sizeof(names) / sizeof(names[0]); i++) {
		cmd_run(&c, "ri", (const char *[]){ CLI, "list", "-f", "-e", names[i], kernel_dat, NULL });
		CHECK_EQ_INT(c.code, 0);
		if (!strncmp(c.out, "system: sched\n", 14))
			CHECK_EQ_INT(tep_parse_event(tep, c.out + 14, strlen(c.out + 14), "sched"), 0);
		cmd_free(&c);
	}
	return tep;
}

static void test_crashers(void)
{
	struct tep_handle *tep = kernel_formats();
	char want[256];
	struct cmd c;
	size_t i;
	int dies = 0;

	for (i = 0; i < sizeof(crashers) / sizeof(crashers[0]); i++) {
		if (parser_dies(tep, crashers[i]) == 1)
			dies++;
		else
			printf("NOTE: libtraceevent parses \"%s\" without dying\n", crashers[i]);
		report(&c, (const char *[]){ "-F", crashers[i], kernel_dat, NULL });
		CHECK_EQ_INT(c.code, 1);
		snprintf(want, sizeof(want), "slimtrace: report: -F '%s': ", crashers[i]);
		if (!CHECK(cmd_has(c.err, want)))
			fprintf(stderr, "     stderr: %s\n", c.err);
		CHECK_EQ_STR(c.out, "");
		cmd_free(&c);
	}
	if (dies < (int)(sizeof(crashers) / sizeof(crashers[0])))
		printf("NOTE: libtraceevent survives %d of the %zu expressions that crashed 1.7.1\n",
		       (int)(sizeof(crashers) / sizeof(crashers[0])) - dies,
		       sizeof(crashers) / sizeof(crashers[0]));
	if (tep)
		tep_free(tep);

	/* The message says what happened; a good filter beside it still works. */
	report(&c, (const char *[]){ "-F", "sched_wakeup: pid == 15", "-F", crashers[0], kernel_dat, NULL });
	CHECK_EQ_INT(c.code, 1);
	/* A sanitizer's runtime turns the signal into an exit status. */
	CHECK(cmd_has(c.err, "libtraceevent's filter parser crashes on it") ||
	      cmd_has(c.err, "libtraceevent's filter parser dies on it") || cmd_has(c.err, "rror"));
	cmd_free(&c);
	report(&c, (const char *[]){ "-F", "sched_wakeup: pid == 15", kernel_dat, NULL });
	CHECK_EQ_INT(c.code, 0);
	CHECK_EQ_INT(count_lines(c.out, ""), 1 + 1 + 8);	/* cpus=, DROPPED, 8 wakeups */
	cmd_free(&c);
}

/* Mutated filters: a message or a report, never a signal or a sanitizer. */
static void test_mutations(void)
{
	static const char *const seeds[] = {
		"sched_switch: prev_pid > 10 && next_comm == \"bash\"",
		"sched_wakeup: (pid < 100 || prio != 120) && !(target_cpu == 1)",
		"sched_switch,sched_wakeup: common_pid != 0",
		"sched_process_exec: filename ~ \"/usr/*\"",
		"sched_wakeup: comm == \"seq\" || comm ~ \"kw*\"",
	};
	static const char *const toks[] = { "(", ")", "!", "&", "|", "=", "<", ">", "~", "\"", "*",
					    ",", ":", "'", " ", "&&", "||", "==", "!=", "prev_pid",
					    "comm", "0x", "-", "1", "\\" };
	unsigned int seed = 12345;
	char expr[512];
	struct cmd c;
	int i, k, bad = 0;

	for (i = 0; i < MUTATIONS; i++) {
		size_t len, p, q;

		snprintf(expr, sizeof(expr), "%s", seeds[rand_r(&seed) % 5]);
		for (k = 0; k < 1 + rand_r(&seed) % 4; k++) {
			len = strlen(expr);
			p = rand_r(&seed) % (len + 1);
			switch (rand_r(&seed) % 3) {
			case 0:
				if (len)
					memmove(expr + (p < len ? p : len - 1), expr + (p < len ? p : len - 1) + 1,
						len - (p < len ? p : len - 1));
				break;
			case 1: {
				const char *t = toks[rand_r(&seed) % (sizeof(toks) / sizeof(toks[0]))];

				if (len + strlen(t) < sizeof(expr)) {
					memmove(expr + p + strlen(t), expr + p, len - p + 1);
					memcpy(expr + p, t, strlen(t));
				}
				break;
			}
			default:
				q = p + rand_r(&seed) % (len - p + 1);
				memmove(expr + p, expr + q, len - q + 1);
			}
		}
		report(&c, (const char *[]){ "-N", "-F", expr, kernel_dat, NULL });
		if (c.code != 0 && c.code != 1) {
			fprintf(stderr, "FAIL: report -F '%s' exited %d\n%s", expr, c.code, c.err);
			bad++;
		}
		cmd_free(&c);
	}
	CHECK_EQ_INT(bad, 0);
}

int main(void)
{
	srcdir = getenv("SLIM_SRCDIR") ? getenv("SLIM_SRCDIR") : "../../..";
	check_watchdog("report_inputs", 500);
	snprintf(kernel_dat, sizeof(kernel_dat), "%s/tests/cli/kernel-v6.dat", srcdir);
	snprintf(demo_dat, sizeof(demo_dat), "%s/tests/interop/demo-v6.dat", srcdir);
	if (!CHECK(access(CLI, X_OK) == 0) || !CHECK(access(kernel_dat, R_OK) == 0))
		return check_done("report_inputs");
	cmd_sanitizer_exit_codes(srcdir);
	test_checked_in_pair();
	test_turns();
	test_selection();
	test_crashers();
	test_mutations();
	return check_done("report_inputs");
}
