// SPDX-License-Identifier: MIT
/*
 * The trace dialect end to end: a header using every macro, its classes,
 * fields, print fmt, records and printers.
 */
#include <errno.h>
#include <unistd.h>
#include <slimtrace/output.h>
#include "check.h"
#include "records.h"
#include "sample_events.h"

static struct test_record recs[64];

static const char *print_record(const struct test_record *r, char *buf, size_t size)
{
	const struct slim_trace_entry *e = (const void *)r->data;
	struct slim_event *ev = slim_event_by_id(e->type);
	struct slim_seq s, p;
	char scratch[256];

	slim_seq_init(&s, buf, size);
	slim_seq_init(&p, scratch, sizeof(scratch));
	slim_event_funcs(ev)->trace(&s, &p, ev, r->data, r->len);
	return buf;
}

static void test_registry(void)
{
	const struct slim_event_class *pair = slim_class_sample_pair();

	CHECK(slim_event_sample_first.event.type > 0);
	CHECK(slim_event_sample_first.event.type != slim_event_sample_second.event.type);
	CHECK(slim_event_by_id(slim_event_sample_all.event.type) == &slim_event_sample_all);
	CHECK(slim_event_find("sample", "sample_second") == &slim_event_sample_second);
	CHECK(slim_event_find(NULL, "sample_custom") == &slim_event_sample_custom);
	CHECK(slim_event_find("other", "sample_second") == NULL);
	CHECK_EQ_STR(slim_event_name(&slim_event_sample_first), "sample_first");
	CHECK_EQ_STR(slim_event_system(&slim_event_sample_first), "sample");
	/* One class for every DEFINE_EVENT of it. */
	CHECK(slim_event_class(&slim_event_sample_first) == pair);
	CHECK(slim_event_class(&slim_event_sample_second) == pair);
	CHECK(slim_event_class(&slim_event_sample_custom) == pair);
	CHECK(slim_event_class(&slim_event_sample_all) == slim_class_sample_all());
	CHECK(slim_event_fields(&slim_event_sample_first) == &pair->fields);
	/* Bare tracepoints are tracepoints, not events. */
	CHECK(slim_event_find(NULL, "sample_bare") == NULL);
	CHECK(slim_tracepoint_find("sample_bare") == &__tracepoint_sample_bare);
	CHECK(slim_tracepoint_find("sample_noargs") == &__tracepoint_sample_noargs);
	CHECK(slim_tracepoint_find("sample_first") == &slim_event_sample_first.tp);
}

static void test_print_fmt(void)
{
	CHECK_EQ_STR(slim_event_print_fmt(&slim_event_sample_first),
		     "\"a=%d b=%ld\", REC->a, REC->b");
	CHECK_EQ_STR(slim_event_print_fmt(&slim_event_sample_custom),
		     "\"custom sum=%ld\", REC->a + REC->b");
	CHECK_EQ_STR(slim_event_print_fmt(&slim_event_sample_all),
		     "\"a=%d b=%ld c=%u tag=%s name=%s blob=%s len=%u flags=%s state=%s\", "
		     "REC->a, REC->b, REC->c, REC->tag, __get_str(name), "
		     "__print_hex(__get_dynamic_array(blob), __get_dynamic_array_len(blob)), "
		     "__get_dynamic_array_len(blob), "
		     "__print_flags(REC->flags, \"|\", { 0x1, \"READ\" }, { 0x2, \"WRITE\" }, { 0x4, \"EXEC\" }), "
		     "__print_symbolic(REC->state, { 0, \"IDLE\" }, { 1, \"RUNNING\" }, { 2, \"DEAD\" })");
}

struct want_field {
	const char *type, *name;
	int offset, size, is_signed;
};

static void test_fields(void)
{
	static const struct want_field want[] = {
		{ "int", "a", 8, 4, 1 },
		{ "long", "b", 16, 8, 1 },
		{ "unsigned char", "c", 24, 1, 0 },
		{ "char[8]", "tag", 25, 8, 0 },
		{ "__data_loc char[]", "name", 36, 4, 0 },
		{ "__data_loc unsigned char[]", "blob", 40, 4, 0 },
		{ "unsigned long", "flags", 48, 8, 0 },
		{ "int", "state", 56, 4, 1 },
	};
	const struct slim_field_table *t = slim_event_fields(&slim_event_sample_all);
	unsigned int i;

	CHECK_EQ_INT(t->nr_fields, 8);
	CHECK_EQ_INT(t->size, 64);
	for (i = 0; i < t->nr_fields && i < 8; i++) {
		const struct slim_field *f = &t->fields[i];

		CHECK_EQ_STR(slim_field_name(t, f), want[i].name);
		CHECK_EQ_INT(f->offset, want[i].offset);
		CHECK_EQ_INT(f->size, want[i].size);
		CHECK_EQ_INT(f->is_signed, want[i].is_signed);
	}
	/* __array's length is expanded before it is stringified, as in the kernel. */
	CHECK_EQ_STR(slim_field_type(t, &t->fields[3]), "char[8]");
	CHECK_EQ_STR(slim_field_type(t, &t->fields[4]), "__data_loc char[]");
	CHECK_EQ_STR(slim_field_type(t, &t->fields[5]), "__data_loc unsigned char[]");
	CHECK_EQ_INT(t->fields[1].filter_type, SLIM_FILTER_OTHER);
	CHECK_EQ_INT(slim_field_filter_type(t, &t->fields[4]), SLIM_FILTER_DYN_STRING);
	CHECK_EQ_INT(slim_field_filter_type(t, &t->fields[3]), SLIM_FILTER_STATIC_STRING);
}

static long probe_seen;

static void user_probe(int a, long b, void *data)
{
	probe_seen += (a + b) * *(int *)data;
}

static void test_records_and_printing(void)
{
	static const unsigned char blob[] = { 0xde, 0xad, 0xbe, 0xef };
	const struct slim_trace_entry *e;
	char line[512];
	int n, factor = 100;

	slim_bufset_reset(&slim_bufset_top);
	/* Disabled: nothing is recorded. */
	trace_sample_first(1, 2);
	CHECK_EQ_INT(test_records(recs, 64), 0);

	CHECK_EQ_INT(slim_event_enable(&slim_event_sample_all, 1), 0);
	CHECK(slim_event_sample_all.flags & SLIM_EVENT_FL_ENABLED);
	CHECK_EQ_INT(slim_event_enable(&slim_event_sample_first, 1), 0);
	CHECK_EQ_INT(slim_event_enable(&slim_event_sample_custom, 1), 0);
	CHECK_EQ_INT(register_trace_sample_first_data(user_probe, &factor), 0);

	trace_sample_all(1, -2, 200, "hello", blob, 4, 0x1 | 0x4 | 0x10, 1);
	trace_sample_all(7, 8, 9, NULL, blob, 0, 0, 7);
	trace_sample_first(3, 4);
	trace_sample_second(5, 6);	/* not enabled */
	trace_sample_custom(1, 2);

	n = test_records(recs, 64);
	CHECK_EQ_INT(n, 4);
	CHECK_EQ_INT(probe_seen, 700);
	if (n != 4)
		return;
	e = (const void *)recs[0].data;
	CHECK_EQ_INT(e->type, slim_event_sample_all.event.type);
	CHECK_EQ_INT(e->pid, gettid());
	CHECK_EQ_STR(print_record(&recs[0], line, sizeof(line)),
		     "a=1 b=-2 c=200 tag=tagged name=hello blob=de ad be ef len=4 "
		     "flags=READ|EXEC|0x10 state=RUNNING");
	CHECK_EQ_STR(print_record(&recs[1], line, sizeof(line)),
		     "a=7 b=8 c=9 tag=tagged name=(null) blob= len=0 flags= state=0x7");
	CHECK_EQ_INT(test_record_type(&recs[2]), slim_event_sample_first.event.type);
	CHECK_EQ_STR(print_record(&recs[2], line, sizeof(line)), "a=3 b=4");
	CHECK_EQ_INT(test_record_type(&recs[3]), slim_event_sample_custom.event.type);
	CHECK_EQ_STR(print_record(&recs[3], line, sizeof(line)), "custom sum=3");
	CHECK(recs[0].ts <= recs[1].ts && recs[1].ts <= recs[2].ts);

	/* Disabling stops the class probe, not the user's. */
	CHECK_EQ_INT(slim_event_enable(&slim_event_sample_first, 0), 0);
	CHECK(!(slim_event_sample_first.flags & SLIM_EVENT_FL_ENABLED));
	trace_sample_first(1, 0);
	CHECK_EQ_INT(test_records(recs, 64), 4);
	CHECK_EQ_INT(probe_seen, 800);
	CHECK_EQ_INT(unregister_trace_sample_first_data(user_probe, &factor), 0);
	CHECK(!trace_sample_first_enabled());
	/* Enabling twice and disabling twice are no-ops. */
	CHECK_EQ_INT(slim_event_enable(&slim_event_sample_all, 1), 0);
	CHECK_EQ_INT(slim_event_enable(&slim_event_sample_all, 0), 0);
	CHECK_EQ_INT(slim_event_enable(&slim_event_sample_all, 0), 0);
	CHECK_EQ_INT(slim_event_enable(&slim_event_sample_custom, 0), 0);
	CHECK_EQ_INT(slim_event_enable(NULL, 1), -ENOENT);
}

static void test_too_large(void)
{
	static unsigned char big[70000];
	struct slim_rb_stats before, after;

	slim_bufset_stats(&slim_bufset_top, &before);
	slim_event_enable(&slim_event_sample_all, 1);
	/* Larger than the 16-bit __data_loc length: lost, and counted. */
	trace_sample_all(1, 2, 3, "x", big, sizeof(big), 0, 0);
	slim_event_enable(&slim_event_sample_all, 0);
	slim_bufset_stats(&slim_bufset_top, &after);
	CHECK_EQ_INT(after.written, before.written);
	CHECK_EQ_INT(after.lost, before.lost + 1);
}

int main(void)
{
	test_registry();
	test_print_fmt();
	test_fields();
	test_records_and_printing();
	test_too_large();
	return check_done("dialect");
}
