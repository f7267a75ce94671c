/* SPDX-License-Identifier: MIT */
/*
 * test_headers: the calls, shared by the C and the C++ caller; every
 * public header; prints the trace file.  Included once, by a file that
 * has included strict_events.h and <stdio.h>.
 */
#include <slimtrace/compiler.h>
#include <slimtrace/ctl.h>
#include <slimtrace/event.h>
#include <slimtrace/field.h>
#include <slimtrace/output.h>
#include <slimtrace/rcu.h>
#include <slimtrace/record.h>
#include <slimtrace/tracepoint.h>

static int strict_hits;

static void strict_probe(int a, const char *s, void *data)
{
	(void)s;
	strict_hits += a + *(const int *)data;
}

static void strict_fire_vstr(const char *fmt, ...)
{
	slim_va_list ap;

	__builtin_va_start(ap, fmt);
	trace_strict_vstr(fmt, &ap);
	__builtin_va_end(ap);
}

static int strict_run(void)
{
	static const unsigned char blob[] = { 0xde, 0xad };
	static const unsigned long bits[1] = { 0x8000000000000001ul };
	unsigned long cpus[16] = { 0x1 };
	int one = 1;
	char *text;

	if (slim_ctl_write("set_event", "strict:*") ||
	    register_trace_strict_bare_data(strict_probe, &one))
		return 1;
	trace_strict_all('A', 3, -2, -40000, 1ull << 40, "named", blob, 2, bits, cpus);
	trace_strict_first(1, 3);
	trace_strict_print(2, 0);
	trace_strict_cond(3, 0);
	trace_strict_cond(4, 0);
	trace_strict_fn(5, 2);
	trace_strict_tcond(0);
	trace_strict_tcond(6);
	trace_strict_tfn(7);
	strict_fire_vstr("%s-%d", "v", 8);
	trace_strict_bare(10, "x");
	trace_strict_noargs();
	trace_strict_bare_cond(-1);
	if (slim_ctl_write("set_event", "") ||
	    unregister_trace_strict_bare_data(strict_probe, &one) || strict_hits != 11)
		return 2;
	text = slim_ctl_read("trace");
	if (!text)
		return 3;
	fputs(text, stdout);
	free(text);
	text = slim_ctl_read("events/strict/strict_first/format");
	if (!text)
		return 4;
	fputs(text, stdout);
	free(text);
	return 0;
}
