// SPDX-License-Identifier: MIT
/* Tracepoints: probes with and without data, errors, by-name registration. */
#include <errno.h>
#include "check.h"
#include "tracepoint/tp_defs.h"

static long sum_plain, sum_data, calls_none, calls_none_data;
static void *last_data;
static int order[8], nr_order;

static void probe_plain(int a, long b)
{
	sum_plain += a + b;
	order[nr_order++ % 8] = 1;
}

static void probe_data(int a, long b, void *data)
{
	sum_data += (a + b) * (long)(*(int *)data);
	last_data = data;
	order[nr_order++ % 8] = 2;
}

static void probe_none(void)
{
	calls_none++;
}

static void probe_none_data(void *data)
{
	calls_none_data += *(int *)data;
}

static void test_disabled(void)
{
	CHECK(!trace_tp_two_enabled());
	trace_tp_two(1, 2);		/* nothing attached: nothing happens */
	CHECK_EQ_INT(sum_plain, 0);
}

static void test_plain_and_data(void)
{
	int one = 1, ten = 10;

	CHECK_EQ_INT(register_trace_tp_two(probe_plain), 0);
	CHECK(trace_tp_two_enabled());
	CHECK_EQ_INT(register_trace_tp_two_data(probe_data, &one), 0);
	/* The same probe again with other data is another probe. */
	CHECK_EQ_INT(register_trace_tp_two_data(probe_data, &ten), 0);
	/* The same pair twice is not. */
	CHECK_EQ_INT(register_trace_tp_two_data(probe_data, &one), -EEXIST);
	CHECK_EQ_INT(register_trace_tp_two(probe_plain), -EEXIST);

	nr_order = 0;
	trace_tp_two(3, 4);
	CHECK_EQ_INT(sum_plain, 7);
	CHECK_EQ_INT(sum_data, 7 * 1 + 7 * 10);
	CHECK(last_data == &ten);
	/* Probes run in the order they were attached. */
	CHECK_EQ_INT(nr_order, 3);
	CHECK(order[0] == 1 && order[1] == 2 && order[2] == 2);

	CHECK_EQ_INT(unregister_trace_tp_two_data(probe_data, &one), 0);
	CHECK_EQ_INT(unregister_trace_tp_two_data(probe_data, &one), -ENOENT);
	/* A pair is found by function, data and kind. */
	CHECK_EQ_INT(slim_tracepoint_probe_unregister(&__tracepoint_tp_two,
			(slim_probe_func)probe_data, &ten, SLIM_PROBE_NODATA), -ENOENT);
	CHECK_EQ_INT(unregister_trace_tp_two(probe_plain), 0);
	CHECK_EQ_INT(unregister_trace_tp_two(probe_plain), -ENOENT);
	sum_plain = sum_data = 0;
	trace_tp_two(1, 1);
	CHECK_EQ_INT(sum_plain, 0);
	CHECK_EQ_INT(sum_data, 2 * 10);
	CHECK_EQ_INT(unregister_trace_tp_two_data(probe_data, &ten), 0);
	CHECK(!trace_tp_two_enabled());
}

static void test_noargs(void)
{
	int three = 3;

	CHECK_EQ_INT(register_trace_tp_none(probe_none), 0);
	CHECK_EQ_INT(register_trace_tp_none_data(probe_none_data, &three), 0);
	trace_tp_none();
	trace_tp_none();
	CHECK_EQ_INT(calls_none, 2);
	CHECK_EQ_INT(calls_none_data, 6);
	CHECK_EQ_INT(unregister_trace_tp_none(probe_none), 0);
	CHECK_EQ_INT(unregister_trace_tp_none_data(probe_none_data, &three), 0);
	trace_tp_none();
	CHECK_EQ_INT(calls_none, 2);
}

static void test_errors(void)
{
	CHECK_EQ_INT(register_trace_tp_two(NULL), -EINVAL);
	CHECK_EQ_INT(register_trace_tp_two_data(NULL, NULL), -EINVAL);
	CHECK_EQ_INT(slim_tracepoint_probe_register(NULL, (slim_probe_func)probe_none,
						    NULL, SLIM_PROBE_NODATA), -EINVAL);
	CHECK_EQ_INT(slim_tracepoint_probe_register(&__tracepoint_tp_none,
						    (slim_probe_func)probe_none,
						    NULL, 7), -EINVAL);
	CHECK_EQ_INT(unregister_trace_tp_two(NULL), -EINVAL);
}

static void test_by_name(void)
{
	int two = 2;

	CHECK(slim_tracepoint_find("tp_two") == &__tracepoint_tp_two);
	CHECK(slim_tracepoint_find("tp_none") == &__tracepoint_tp_none);
	CHECK(slim_tracepoint_find("no_such_tp") == NULL);
	CHECK_EQ_INT(slim_tracepoint_probe_register_name("tp_two",
			(slim_probe_func)probe_data, &two), 0);
	CHECK_EQ_INT(slim_tracepoint_probe_register_name("tp_two",
			(slim_probe_func)probe_data, &two), -EEXIST);
	CHECK_EQ_INT(slim_tracepoint_probe_register_name("no_such_tp",
			(slim_probe_func)probe_data, &two), -ENOENT);
	CHECK_EQ_INT(slim_tracepoint_probe_register_name(NULL,
			(slim_probe_func)probe_data, &two), -EINVAL);
	sum_data = 0;
	trace_tp_two(5, 5);
	CHECK_EQ_INT(sum_data, 20);
	/* The typed and the by-name calls see the same probe. */
	CHECK_EQ_INT(unregister_trace_tp_two_data(probe_data, &two), 0);
	CHECK_EQ_INT(slim_tracepoint_probe_unregister_name("tp_two",
			(slim_probe_func)probe_data, &two), -ENOENT);
}

int main(void)
{
	test_disabled();
	test_plain_and_data();
	test_noargs();
	test_errors();
	test_by_name();
	return check_done("tracepoint");
}
