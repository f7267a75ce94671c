// SPDX-License-Identifier: MIT
/*
 * The two class shapes the kernel's dynamic and syscall events need: a
 * class with its own reg(), and a class whose events differ in fields
 * through get_fields().
 */
#include <errno.h>
#include <slimtrace/consumer.h>
#include <slimtrace/output.h>
#include "check.h"
#include "records.h"
#include "syscalls.h"

static void count_cb(const struct slim_event *ev, const void *rec, unsigned int len,
		     uint64_t ts, void *data)
{
	(void)ev, (void)rec, (void)len, (void)ts, (void)data;
}

int main(void)
{
	static struct test_record recs[8];
	const struct slim_field_table *rt, *gt;
	struct slim_event *rd = &slim_event_sys_enter_read;
	struct slim_event *gp = &slim_event_sys_enter_getpid;
	long args[3] = { 3, 0x1000, 64 };
	struct slim_seq s, p;
	char line[128], scratch[64];

	/* raw_init found each event's metadata; one class, two tables. */
	CHECK(rd->data != NULL && gp->data != NULL);
	CHECK(slim_event_class(rd) == slim_event_class(gp));
	CHECK_EQ_STR(slim_event_system(rd), "syscalls");
	rt = slim_event_fields(rd);
	gt = slim_event_fields(gp);
	CHECK(rt != gt);
	CHECK_EQ_INT(rt->nr_fields, 4);
	CHECK_EQ_INT(gt->nr_fields, 1);
	CHECK_EQ_STR(slim_field_name(rt, &rt->fields[2]), "buf");
	CHECK_EQ_STR(slim_field_type(rt, &rt->fields[2]), "unsigned long");
	CHECK_EQ_STR(slim_event_print_fmt(rd), "\"NR %d\", REC->__syscall_nr");

	/* The class's own reg(): the probe goes onto the shared tracepoint once. */
	CHECK_EQ_INT(slim_event_enable(rd, 1), 0);
	CHECK_EQ_INT(sys_reg_calls[SLIM_REG_REGISTER], 1);
	CHECK(trace_test_sys_enter_enabled());
	CHECK_EQ_INT(slim_event_enable(gp, 1), 0);
	CHECK_EQ_INT(slim_event_enable(gp, 0), 0);
	CHECK_EQ_INT(sys_reg_calls[SLIM_REG_UNREGISTER], 1);
	CHECK(trace_test_sys_enter_enabled());
	/* reg() decides: this class has no consumer probe. */
	CHECK_EQ_INT(slim_consumer_attach(rd, count_cb, NULL, NULL), -EOPNOTSUPP);
	CHECK_EQ_INT(sys_reg_calls[SLIM_REG_PERF_REGISTER], 1);

	slim_bufset_reset(&slim_bufset_top);
	trace_test_sys_enter(0, args);
	trace_test_sys_enter(39, args);		/* getpid: disabled */
	CHECK_EQ_INT(test_records(recs, 8), 1);
	CHECK_EQ_INT(test_record_type(&recs[0]), rd->event.type);
	slim_seq_init(&s, line, sizeof(line));
	slim_seq_init(&p, scratch, sizeof(scratch));
	slim_event_funcs(rd)->trace(&s, &p, rd, recs[0].data, recs[0].len);
	CHECK_EQ_STR(line, "read(fd: 0x3, buf: 0x1000, count: 0x40)");

	CHECK_EQ_INT(slim_event_enable(rd, 0), 0);
	CHECK(!trace_test_sys_enter_enabled());
	return check_done("class_shapes");
}
