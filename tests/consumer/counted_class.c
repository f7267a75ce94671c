#include <errno.h>
#include <stddef.h>
#include <slimtrace/output.h>
#include "counted_class.h"

DEFINE_TRACE(counted_hook, TP_PROTO(int v), TP_ARGS(v));

int counted_reg_calls[4];
int counted_refuse;

/* "counted", then the field's type and name, then the print fmt at 14. */
static const char strings[] = "counted\0int\0v\0\"v=%d\", REC->v";
static const struct slim_field fields[] = {
	{ 8, 12, 8, 4, 1, SLIM_FILTER_AUTO },
};

struct counted_record {
	struct slim_trace_entry ent;
	int v;
};

static void counted_probe(int v, void *data)
{
	struct slim_event *ev = data;
	struct slim_reserve r;
	struct counted_record *rec;

	for (rec = slim_event_reserve(&r, ev, sizeof(*rec)); rec;
	     rec = slim_event_commit_next(&r))
		rec->v = v;
}

static int counted_reg(struct slim_event *ev, enum slim_reg type)
{
	counted_reg_calls[type]++;
	switch (type) {
	case SLIM_REG_REGISTER:
	case SLIM_REG_PERF_REGISTER:
		if (counted_refuse)
			return counted_refuse;
		return register_trace_counted_hook_data(counted_probe, ev);
	case SLIM_REG_UNREGISTER:
	case SLIM_REG_PERF_UNREGISTER:
		return unregister_trace_counted_hook_data(counted_probe, ev);
	}
	return -EINVAL;
}

static int counted_print(struct slim_seq *s, struct slim_seq *p,
			 const struct slim_event *ev, const void *rec, unsigned int len)
{
	const struct counted_record *r = rec;

	(void)p, (void)ev, (void)len;
	return slim_seq_printf(s, "v=%d", r->v);
}

SLIM_HIDDEN const struct slim_event_class *slim_class_counted(void)
{
	static const struct slim_event_class class = {
		.fields = { strings, fields, 1, sizeof(struct counted_record) },
		.print_fmt = 14,
		.probe = (slim_probe_func)counted_probe,
		.reg = counted_reg,
		.funcs = { .trace = counted_print },
	};
	return &class;
}

SLIM_EVENT_DEFINE(counted, counted_one);

void counted_reset(void)
{
	memset(counted_reg_calls, 0, sizeof(counted_reg_calls));
}

void counted_fire(int v)
{
	trace_counted_hook(v);
}
