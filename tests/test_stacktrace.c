// SPDX-License-Identifier: MIT
/*
 * The stacktrace trigger: its forms and read-back texts, removal,
 * refusals in error_log; stacktrace:2 fired from several threads records
 * exactly two ftrace:user_stack records, each in the firing thread's
 * buffer right after its event, whose callers include the test's own
 * function; the trace file's "<user stack trace>" lines; an instance's
 * trigger writes into the instance.  ftrace:user_stack has an id but
 * is nowhere to be listed, enabled, globbed or attached to.  A recording
 * carries its format in the ftrace section: trace-cmd report and
 * slimtrace report read it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <slimtrace/ctl.h>
#include <slimtrace/record.h>
#include "buffers/buffer.h"
#include "check.h"
#include "cmd.h"
#include "core/symbols.h"
#include "ctl_read.h"
#include "records.h"
#include "ring/ring_buffer.h"
#include "sample_events.h"
#include "session/instance.h"
#include "trigger/user_stack.h"

#define THREADS		4
#define PER_THREAD	200
#define TRIG		"events/sample/sample_first/trigger"
#define EMPTY		"# Available triggers:\n" \
			"# traceon traceoff snapshot stacktrace enable_event disable_event\n"

/* ---- records of a buffer set ------------------------------------------- */

static struct test_record recs[4 * THREADS * PER_THREAD + 64];

/* Every record now in bs, buffer by buffer, oldest first; how many. */
static int records_of(struct slim_bufset *bs)
{
	return test_records_of(bs, recs, (int)(sizeof(recs) / sizeof(recs[0])));
}

static int type_of(const struct test_record *r)
{
	return test_record_type(r);
}

/* ---- firing from several threads --------------------------------------- */

static pthread_barrier_t start;

/*
 * The function the stack records must name (global, so that -rdynamic
 * exports it).  The trigger fires inside trace_sample_first(), called
 * here.  cold: the compiler would otherwise move the tracepoint's
 * unlikely call into a stack_fire.cold part, which has no dynamic symbol.
 */
__attribute__((noinline, cold)) void stack_fire(int a, long b)
{
	trace_sample_first(a, b);
	__asm__ volatile("" ::: "memory");	/* not a tail call: this frame stays */
}

static void *firer(void *arg)
{
	long i, id = (long)(intptr_t)arg;

	pthread_barrier_wait(&start);
	for (i = 0; i < PER_THREAD; i++)
		stack_fire(1, id * 1000 + i);
	return NULL;
}

static void fire_threads(void)
{
	pthread_t th[THREADS];
	long i;

	pthread_barrier_init(&start, NULL, THREADS);
	for (i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, firer, (void *)(intptr_t)i);
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);
}

/* A return address in stack_fire (linked -rdynamic: the dynamic linker knows it). */
static int in_stack_fire(unsigned long ip)
{
	struct slim_symbol sym;

	return ip && slim_symbol_at(ip - 1, &sym) == 0 && strcmp(sym.name, "stack_fire") == 0;
}

/*
 * stacktrace:2 from THREADS threads: exactly two stack records, each in
 * its thread's buffer right after the event that fired it, naming
 * stack_fire; tgid the process, pid the thread.
 */
static void test_threads(const char *prefix, struct slim_bufset *bs)
{
	char path[128];
	int n, i, stacks = 0, events = 0, found = 0, us_id;

	snprintf(path, sizeof(path), "%sevents/sample/sample_first/enable", prefix);
	CHECK_EQ_INT(slim_ctl_write(path, "1"), 0);
	snprintf(path, sizeof(path), "%strace", prefix);
	CHECK_EQ_INT(slim_ctl_write(path, ""), 0);
	snprintf(path, sizeof(path), "%s" TRIG, prefix);
	CHECK_EQ_INT(slim_ctl_write(path, "stacktrace:2 if a == 1"), 0);
	CHECK(slim_user_stack_event() != NULL);
	us_id = slim_user_stack_event() ? slim_user_stack_event()->event.type : -1;
	CHECK(us_id > 0);
	fire_threads();
	CHECK_EQ_STR(rd(path), "stacktrace:count=0 if a == 1\n");
	n = records_of(bs);
	CHECK(n <= (int)(sizeof(recs) / sizeof(recs[0])));
	for (i = 0; i < n && i < (int)(sizeof(recs) / sizeof(recs[0])); i++) {
		const struct slim_user_stack_entry *u = (const void *)recs[i].data;
		int k;

		if (type_of(&recs[i]) != us_id) {
			events++;
			continue;
		}
		stacks++;
		CHECK_EQ_INT(recs[i].len, sizeof(*u));
		CHECK_EQ_INT(u->tgid, getpid());
		/* Right after its event, in the same buffer, of the same thread. */
		CHECK(i > 0 && type_of(&recs[i - 1]) != us_id &&
		      recs[i - 1].buffer == recs[i].buffer &&
		      ((const struct slim_trace_entry *)recs[i - 1].data)->pid == u->ent.pid);
		for (k = 0; k < SLIM_USER_STACK_ENTRIES; k++)
			found += in_stack_fire(u->caller[k]);
		CHECK(u->caller[0] != 0);
	}
	CHECK_EQ_INT(stacks, 2);
	CHECK_EQ_INT(events, THREADS * PER_THREAD);
	CHECK_EQ_INT(found, 2);
	/* The trace file prints them as the kernel does, with the symbols it knows. */
	snprintf(path, sizeof(path), "%strace", prefix);
	CHECK_EQ_INT(count(rd(path), ": <user stack trace>\n => "), 2);
	CHECK_EQ_INT(count(rd(path), "\n => stack_fire+0x"), 2);
	CHECK(strstr(rd(path), "user_stack:") == NULL);
	snprintf(path, sizeof(path), "%s" TRIG, prefix);
	CHECK_EQ_INT(slim_ctl_write(path, ""), 0);
	snprintf(path, sizeof(path), "%sevents/sample/sample_first/enable", prefix);
	CHECK_EQ_INT(slim_ctl_write(path, "0"), 0);
}

/* ---- forms, removal, refusals ------------------------------------------ */

static void test_forms(void)
{
	CHECK_EQ_STR(rd(TRIG), EMPTY);
	CHECK_EQ_INT(slim_ctl_write(TRIG, "stacktrace"), 0);
	CHECK_EQ_STR(rd(TRIG), "stacktrace:unlimited\n");
	/* One stacktrace per event file: a second is a duplicate, whatever its count. */
	CHECK_EQ_INT(slim_ctl_append(TRIG, "stacktrace:3"), -EEXIST);
	CHECK_EQ_INT(slim_ctl_append(TRIG, "traceon"), 0);
	CHECK_EQ_STR(rd(TRIG), "traceon:unlimited\nstacktrace:unlimited\n");
	CHECK_EQ_INT(slim_ctl_append(TRIG, "!stacktrace"), 0);
	CHECK_EQ_STR(rd(TRIG), "traceon:unlimited\n");
	/* Removing what is not there says nothing, as the kernel. */
	CHECK_EQ_INT(slim_ctl_append(TRIG, "!stacktrace"), 0);
	CHECK_EQ_INT(slim_ctl_write(TRIG, "stacktrace:3 if a == 1"), 0);
	CHECK_EQ_STR(rd(TRIG), "stacktrace:count=3 if a == 1\n");
	CHECK_EQ_INT(slim_ctl_append(TRIG, "!stacktrace:3 if a == 1"), 0);
	CHECK_EQ_STR(rd(TRIG), EMPTY);
	CHECK_EQ_INT(slim_ctl_write(TRIG, "stacktrace:0"), 0);
	CHECK_EQ_STR(rd(TRIG), "stacktrace:count=0\n");
	CHECK_EQ_INT(slim_ctl_write(TRIG, ""), 0);
	CHECK_EQ_STR(rd(TRIG), EMPTY);
}

static void test_refusals(void)
{
	CHECK_EQ_INT(slim_ctl_write("error_log", ""), 0);
	CHECK_EQ_INT(slim_ctl_write(TRIG, "stacktrace:x"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_write(TRIG, "stacktrace:-2"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_write(TRIG, "stacktrace:1:2"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_write(TRIG, "stacktrace iff a == 1"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_write(TRIG, "stacktrace if nope == 1"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_write(TRIG, "stacktrace if a =="), -EINVAL);
	CHECK_EQ_STR(rd(TRIG), EMPTY);
	CHECK(strstr(rd("error_log"), "event trigger: error: Invalid trigger\n"
				      "  Command: stacktrace:x\n") != NULL);
	CHECK(strstr(rd("error_log"), "  Command: stacktrace:1:2\n") != NULL);
	CHECK(strstr(rd("error_log"), "  Command: stacktrace iff a == 1\n") != NULL);
	CHECK(strstr(rd("error_log"), "event filter parse error: error: Field not found\n"
				      "  Command: nope == 1\n") != NULL);
	/* The user stack event is no trigger's target either. */
	CHECK_EQ_INT(slim_ctl_write(TRIG, "enable_event:ftrace:user_stack"), -EINVAL);
	CHECK(strstr(rd("error_log"), "event trigger: error: Invalid event or command\n"
				      "  Command: enable_event:ftrace:user_stack\n") != NULL);
}

/* ---- hidden, yet with an id ------------------------------------------- */

static int saw_user_stack;

static int look(struct slim_event *ev, void *arg)
{
	(void)arg;
	saw_user_stack |= strcmp(slim_event_system(ev), "ftrace") == 0;
	return 0;
}

static void test_hidden(void)
{
	const struct slim_event *us = slim_user_stack_event();
	char *list;

	CHECK(us != NULL);
	if (!us)
		return;
	/* Registered: an id, its name, its class; the kernel's layout. */
	CHECK(slim_event_by_id(us->event.type) == us);
	CHECK_EQ_STR(slim_event_name(us), "user_stack");
	CHECK_EQ_STR(slim_event_system(us), "ftrace");
	CHECK(strstr(slim_event_print_fmt(us), "\"\\t=> %ps\\n") == slim_event_print_fmt(us));
	/* Found nowhere a user looks. */
	CHECK(slim_event_find("ftrace", "user_stack") == NULL);
	CHECK(slim_event_find(NULL, "user_stack") == NULL);
	CHECK(slim_tracepoint_find("user_stack") == NULL);
	slim_event_for_each(look, NULL);
	CHECK(!saw_user_stack);
	CHECK(strstr(rd("available_events"), "ftrace") == NULL);
	CHECK(strstr(rd("available_events"), "sample:sample_first\n") != NULL);
	CHECK_EQ_INT(slim_ctl_write("set_event", "ftrace:*"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_write("set_event", "user_stack"), -EINVAL);
	CHECK_EQ_INT(slim_ctl_write("set_event", "*:*"), 0);
	CHECK(strstr(rd("set_event"), "ftrace") == NULL);
	CHECK_EQ_STR(rd("events/enable"), "1\n");
	CHECK_EQ_INT(slim_ctl_write("events/enable", "0"), 0);
	CHECK_EQ_STR(rd("events/enable"), "0\n");
	CHECK_EQ_INT(slim_ctl_write("events/enable", "1"), 0);
	CHECK_EQ_STR(rd("events/enable"), "1\n");
	CHECK_EQ_INT(slim_ctl_write("set_event", ""), 0);
	CHECK_EQ_STR(rd("events/enable"), "0\n");
	list = slim_ctl_list("events");
	CHECK(list && strstr(list, "sample/\n") && !strstr(list, "ftrace"));
	free(list);
	CHECK(slim_ctl_list("events/ftrace") == NULL);
	CHECK(slim_ctl_read("events/ftrace/user_stack/enable") == NULL);
	CHECK_EQ_INT(slim_ctl_write("events/ftrace/user_stack/enable", "1"), -ENOENT);
	CHECK_EQ_INT(slim_ctl_write("events/ftrace/enable", "1"), -ENOENT);
	CHECK(slim_ctl_read("events/ftrace/user_stack/format") == NULL);
	/* Its name is taken all the same: no second format under it. */
	CHECK_EQ_INT(slim_ctl_append("dynamic_events", "u:ftrace/user_stack u32 x"), -EEXIST);
	CHECK(strstr(rd("error_log"), "Given group/event name is already used by another event")
	      != NULL);
	CHECK_EQ_INT(slim_ctl_append("dynamic_events", "u:ftrace/other u32 x"), 0);
	CHECK_EQ_INT(slim_ctl_write("dynamic_events", ""), 0);
}

/* ---- tracing off, and an instance -------------------------------------- */

static void test_tracing_off(void)
{
	CHECK_EQ_INT(slim_ctl_write("trace", ""), 0);
	CHECK_EQ_INT(slim_ctl_write(TRIG, "stacktrace:2"), 0);
	CHECK_EQ_INT(slim_ctl_write("tracing_on", "0"), 0);
	stack_fire(5, 5);
	/* Fired, so counted, though nothing could be recorded. */
	CHECK_EQ_STR(rd(TRIG), "stacktrace:count=1\n");
	CHECK_EQ_INT(slim_ctl_write("tracing_on", "1"), 0);
	CHECK_EQ_INT(records_of(&slim_bufset_top), 0);
	stack_fire(6, 6);
	CHECK_EQ_INT(count(rd("trace"), "<user stack trace>"), 1);
	CHECK_EQ_INT(slim_ctl_write(TRIG, ""), 0);
	CHECK_EQ_INT(slim_ctl_write("trace", ""), 0);
}

/* ---- in a recording, read by trace-cmd and slimtrace ------------------- */

static void test_recorded(void)
{
	const char *const tc[] = { "trace-cmd", "report", "-i", "stack.dat", NULL };
	const char *const st[] = { "../tools/slimtrace", "report", "stack.dat", NULL };
	struct cmd c;

	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable", "1"), 0);
	CHECK_EQ_INT(slim_ctl_write(TRIG, "stacktrace:1"), 0);
	CHECK_EQ_INT(slim_record_start("stack.dat"), 0);
	stack_fire(9, 9);
	CHECK_EQ_INT(slim_record_stop(), 0);
	CHECK_EQ_INT(slim_ctl_write(TRIG, ""), 0);
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/enable", "0"), 0);

	cmd_run(&c, "stack_tc", tc);
	CHECK_EQ_INT(c.code, 0);
	CHECK_EQ_STR(c.err, "");
	CHECK(strstr(c.out, "sample_first:") != NULL);
	/* The kernel's print fmt: one "=> " line per caller. */
	CHECK(strstr(c.out, "user_stack:") != NULL && strstr(c.out, "\t=> ") != NULL);
	/*
	 * Named from the recording's kallsyms section: the first frame is
	 * the probe (none of the library's), static, so named from the
	 * program's .symtab; then its caller.
	 */
	CHECK(strstr(c.out, "user_stack:           \t=> __slim_probe_sample_pair\n") != NULL);
	CHECK(strstr(c.out, "\t=> stack_fire\n") != NULL);
	if (check_failed)
		fprintf(stderr, "trace-cmd report:\n%s\n", c.out);
	cmd_free(&c);

	cmd_run(&c, "stack_st", st);
	CHECK_EQ_INT(c.code, 0);
	CHECK(strstr(c.out, "user_stack:") != NULL);
	/* The recorder's kallsyms section names the test's function. */
	CHECK(strstr(c.out, "=> stack_fire\n") != NULL);
	if (!strstr(c.out, "=> stack_fire"))
		fprintf(stderr, "slimtrace report:\n%s\nstderr: %s\n", c.out, c.err);
	cmd_free(&c);
	unlink("stack.dat");
}

/* ---- symbols the dynamic linker does not know ------------------------ */

/* Static: only the program's .symtab has it. */
static __attribute__((noinline)) int local_marker(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

/*
 * A static function is named from the file's symbol table: by address
 * (the trace's stacks, %pS) and by name (a filter's .function), as the
 * kernel's kallsyms names its static functions.
 */
static void test_local_symbols(void)
{
	uintptr_t at = (uintptr_t)local_marker;
	struct slim_symbol sym;
	char expr[64];

	CHECK_EQ_INT(local_marker(1), 2);
	if (CHECK(slim_symbol_at(at + 1, &sym) == 0)) {
		CHECK_EQ_STR(sym.name, "local_marker");
		CHECK(sym.start == at && sym.size > 1);
		CHECK(sym.object == NULL);
	}
	CHECK_EQ_INT(slim_symbol_named("local_marker", &sym), 0);
	CHECK(sym.start == at);
	/* An exported one still comes from the dynamic table, with its object. */
	CHECK_EQ_INT(slim_symbol_named("__libc_start_main", &sym), 0);
	CHECK(sym.object != NULL && strstr(sym.object, "libc.so"));
	CHECK_EQ_INT(slim_symbol_named("no_such_function_here", &sym), -ENOENT);
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/filter",
				    "b.function == local_marker"), 0);
	snprintf(expr, sizeof(expr), "b.function == 0x%lx", (unsigned long)at + 1);
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/filter", expr), 0);
	CHECK_EQ_INT(slim_ctl_write("events/sample/sample_first/filter", "0"), 0);
	/* The trace names the probe, static, in the stack. */
	CHECK_EQ_INT(slim_ctl_write(TRIG, "stacktrace:1"), 0);
	stack_fire(3, 3);
	CHECK(strstr(rd("trace"), "<user stack trace>\n => __slim_probe_sample_pair+0x") != NULL);
	CHECK_EQ_INT(slim_ctl_write(TRIG, ""), 0);
	CHECK_EQ_INT(slim_ctl_write("trace", ""), 0);
}

int main(void)
{
	struct slim_instance *inst;

	check_watchdog("stacktrace", 120);
	/* Nothing of the event before the first stacktrace trigger. */
	CHECK(slim_user_stack_event() == NULL);
	test_forms();
	test_refusals();
	test_hidden();
	test_threads("", &slim_bufset_top);
	test_tracing_off();
	CHECK_EQ_INT(slim_ctl_mkdir("instances/st"), 0);
	inst = slim_instance_find("st");
	CHECK(inst != NULL);
	if (inst) {
		test_threads("instances/st/", inst->bufs);
		/* Into the instance's buffers only. */
		CHECK(strstr(rd("trace"), "<user stack trace>") == NULL);
	}
	CHECK_EQ_INT(slim_ctl_rmdir("instances/st"), 0);
	test_local_symbols();
	test_recorded();
	return check_done("stacktrace");
}
