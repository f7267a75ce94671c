// SPDX-License-Identifier: MIT
/*
 * Kernel compatibility: kernel-style trace headers compile unchanged
 * with -I include/slimtrace/compat, and events whose fields equal real
 * kernel events have byte-identical field lines in their format files
 * (compared with files captured from a live kernel, tests/data/kernel).
 */
#include <stdlib.h>
#include <unistd.h>
#include <slimtrace/output.h>
#include "check.h"
#include "records.h"
#include <trace/events/sched.h>
#include <trace/events/irq.h>
#include <trace/events/kmem.h>
#include <trace/events/signal.h>
#include <trace/events/ipi.h>

static char *read_file(const char *name)
{
	const char *dir = getenv("SLIM_SRCDIR");
	char path[512];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/tests/data/kernel/formats/%s",
		 dir ? dir : "../../..", name);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		return NULL;
	}
	buf = calloc(1, 65536);
	n = (long)fread(buf, 1, 65535, f);
	buf[n > 0 ? n : 0] = '\0';
	fclose(f);
	return buf;
}

/* The part of a format text from "format:" up to "print fmt:". */
static char *field_lines(const char *text)
{
	const char *start = strstr(text, "format:\n");
	const char *end = strstr(text, "print fmt:");

	if (!start || !end || end < start)
		return strdup("");
	return strndup(start, end - start);
}

/* The print fmt line of a format text. */
static char *print_fmt_line(const char *text)
{
	const char *start = strstr(text, "print fmt:");

	return start ? strndup(start, strcspn(start, "\n")) : strdup("");
}

static void check_format_print(struct slim_event *ev, const char *file, int with_print_fmt)
{
	char *kernel = read_file(file), *ours_lines, *kernel_lines;
	struct slim_seq s;

	CHECK(kernel != NULL);
	if (!kernel)
		return;
	slim_seq_init_dynamic(&s);
	slim_format_print(&s, slim_event_name(ev), ev->event.type,
			  slim_event_fields(ev), slim_event_print_fmt(ev));
	ours_lines = field_lines(s.buf);
	kernel_lines = field_lines(kernel);
	CHECK(strlen(ours_lines) > 100);
	CHECK_EQ_STR(ours_lines, kernel_lines);
	free(ours_lines);
	free(kernel_lines);
	if (with_print_fmt) {
		ours_lines = print_fmt_line(s.buf);
		kernel_lines = print_fmt_line(kernel);
		CHECK(strlen(ours_lines) > 20);
		CHECK_EQ_STR(ours_lines, kernel_lines);
		free(ours_lines);
		free(kernel_lines);
	}
	free(kernel);
	slim_seq_free(&s);
}

static void check_format(struct slim_event *ev, const char *file)
{
	check_format_print(ev, file, 0);
}

static const char *print(const struct test_record *r, char *buf, size_t size)
{
	struct slim_event *ev = slim_event_by_id(test_record_type(r));
	struct slim_seq s, p;
	char scratch[512];

	slim_seq_init(&s, buf, size);
	slim_seq_init(&p, scratch, sizeof(scratch));
	slim_event_funcs(ev)->trace(&s, &p, ev, r->data, r->len);
	return buf;
}

static void test_formats(void)
{
	check_format(&slim_event_sched_switch, "sched_switch.format");
	check_format(&slim_event_sched_wakeup, "sched_wakeup.format");
	check_format(&slim_event_irq_handler_entry, "irq_handler_entry.format");
	check_format(&slim_event_sched_process_fork, "sched_process_fork.format");
	check_format(&slim_event_kmalloc, "kmalloc.format");
	/* A field named errno; a __cpumask.  Their print fmts are the kernel's too. */
	check_format_print(&slim_event_signal_generate, "signal_generate.format", 1);
	check_format_print(&slim_event_signal_deliver, "signal_deliver.format", 1);
	check_format_print(&slim_event_ipi_send_cpumask, "ipi_send_cpumask.format", 1);
}

static void test_systems(void)
{
	CHECK_EQ_STR(slim_event_system(&slim_event_sched_switch), "sched");
	CHECK_EQ_STR(slim_event_system(&slim_event_sched_wakeup_new), "sched");
	CHECK_EQ_STR(slim_event_system(&slim_event_irq_handler_entry), "irq");
	CHECK_EQ_STR(slim_event_system(&slim_event_kmalloc), "kmem");
	CHECK(slim_event_class(&slim_event_sched_wakeup) ==
	      slim_event_class(&slim_event_sched_wakeup_new));
}

static void test_recording(void)
{
	static struct test_record recs[16];
	char line[512];
	int n;

	slim_bufset_reset(&slim_bufset_top);
	slim_event_enable(&slim_event_sched_switch, 1);
	slim_event_enable(&slim_event_sched_process_fork, 1);
	slim_event_enable(&slim_event_irq_kernel_types, 1);
	slim_event_enable(&slim_event_kmalloc, 1);
	trace_sched_switch("prev-task-name-too-long", 10, 120, 0x2, "next", 11, 100);
	trace_sched_switch("a", 1, 2, 0, "b", 3, 4);
	trace_sched_process_fork("parent", 100, "child", 101);
	trace_irq_kernel_types(255, 65535, 4294967295u, 18446744073709551615ull,
			       -128, -32768, -2147483647 - 1, -1);
	trace_kmalloc(0xabc, NULL, 100, 128, 0x400 | 0x800 | 0x40 | 0x80 | 0x100, -1);
	n = test_records(recs, 16);
	CHECK_EQ_INT(n, 5);
	if (n != 5)
		return;
	CHECK_EQ_STR(print(&recs[0], line, sizeof(line)),
		     "prev_comm=prev-task-name- prev_pid=10 prev_prio=120 prev_state=D "
		     "==> next_comm=next next_pid=11 next_prio=100");
	CHECK_EQ_STR(print(&recs[1], line, sizeof(line)),
		     "prev_comm=a prev_pid=1 prev_prio=2 prev_state=R "
		     "==> next_comm=b next_pid=3 next_prio=4");
	CHECK_EQ_STR(print(&recs[2], line, sizeof(line)),
		     "comm=parent pid=100 child_comm=child child_pid=101");
	CHECK_EQ_STR(print(&recs[3], line, sizeof(line)),
		     "a=255 b=65535 c=4294967295 d=18446744073709551615 "
		     "e=-128 f=-32768 g=-2147483648 h=-1");
	CHECK_EQ_STR(print(&recs[4], line, sizeof(line)),
		     "call_site=abc ptr=(nil) bytes_req=100 bytes_alloc=128 "
		     "gfp_flags=GFP_KERNEL|__GFP_ZERO node=-1");
	slim_event_enable(&slim_event_sched_switch, 0);
	slim_event_enable(&slim_event_sched_process_fork, 0);
	slim_event_enable(&slim_event_irq_kernel_types, 0);
	slim_event_enable(&slim_event_kmalloc, 0);
}

static void test_errno_and_cpumask(void)
{
	static struct test_record recs[4];
	struct cpumask mask;
	char line[512], want[1024], groups[256] = "";
	unsigned int i, ngroups = (unsigned int)slim_bitmask_bytes(slim_cpumask_bits()) / 4;
	int n;

	memset(&mask, 0, sizeof(mask));
	mask.bits[0] = 0x3;
	for (i = 1; i < ngroups; i++)
		strcat(groups, "00000000,");
	slim_bufset_reset(&slim_bufset_top);
	slim_event_enable(&slim_event_signal_generate, 1);
	slim_event_enable(&slim_event_ipi_send_cpumask, 1);
	trace_signal_generate(9, -4, 128, "victim", 4321, 1, 0);
	trace_ipi_send_cpumask(&mask, 0, NULL);
	slim_event_enable(&slim_event_signal_generate, 0);
	slim_event_enable(&slim_event_ipi_send_cpumask, 0);
	n = test_records(recs, 4);
	CHECK_EQ_INT(n, 2);
	if (n != 2)
		return;
	CHECK_EQ_STR(print(&recs[0], line, sizeof(line)),
		     "sig=9 errno=-4 code=128 comm=victim pid=4321 grp=1 res=0");
	snprintf(want, sizeof(want), "cpumask=%s00000003 callsite=0x0 callback=0x0", groups);
	CHECK_EQ_STR(print(&recs[1], line, sizeof(line)), want);
}

int main(void)
{
	test_formats();
	test_systems();
	test_recording();
	test_errno_and_cpumask();
	return check_done("kernel_compat");
}
