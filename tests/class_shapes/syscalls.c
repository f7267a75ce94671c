/*
 * Syscall-shaped events: one class for all of them, a fields table per
 * event (get_fields), per-event metadata found by raw_init, and a reg()
 * that hooks the class's probe once onto the shared raw tracepoint and
 * keeps a per-event enabled bit, as the kernel's syscall events do.
 */
#include <errno.h>
#include <stddef.h>
#include <slimtrace/output.h>
#include "syscalls.h"

DEFINE_TRACE(test_sys_enter, TP_PROTO(long nr, const long *args), TP_ARGS(nr, args));

struct sys_meta {
	const char *name;
	long nr;
	struct slim_field_table fields;
	struct slim_event *ev;
	int enabled;
};

/* "nr" then up to 3 args, each a long. */
static const char strings[] = "syscalls\0int\0__syscall_nr\0unsigned long\0fd\0buf\0count\0"
	"\"NR %d\", REC->__syscall_nr";	/* the print fmt, at 53 */
static const struct slim_field read_fields[] = {
	{ 9, 13, 8, 4, 1, SLIM_FILTER_AUTO },
	{ 26, 40, 16, 8, 0, SLIM_FILTER_AUTO },
	{ 26, 43, 24, 8, 0, SLIM_FILTER_AUTO },
	{ 26, 47, 32, 8, 0, SLIM_FILTER_AUTO },
};

static struct sys_meta metas[] = {
	{ "sys_enter_read", 0, { strings, read_fields, 4, 40 }, NULL, 0 },
	{ "sys_enter_getpid", 39, { strings, read_fields, 1, 16 }, NULL, 0 },
};

int sys_reg_calls[4];
static int nr_enabled;

struct sys_record {
	struct slim_trace_entry ent;
	int nr;
	long args[];
};
/* Records lie 4-byte aligned in the ring. */
typedef struct sys_record SLIM_RECORD_ALIGN sys_record_t;

static void sys_probe(long nr, const long *args, void *data)
{
	struct slim_reserve r;
	sys_record_t *rec;
	unsigned int i;

	(void)data;
	for (i = 0; i < sizeof(metas) / sizeof(metas[0]); i++) {
		struct sys_meta *m = &metas[i];

		if (m->nr != nr || !__atomic_load_n(&m->enabled, __ATOMIC_RELAXED))
			continue;
		/* Once per instance that has the event enabled. */
		for (rec = slim_event_reserve(&r, m->ev, m->fields.size); rec;
		     rec = slim_event_commit_next(&r)) {
			rec->nr = (int)nr;
			memcpy(rec->args, args, (m->fields.nr_fields - 1) * sizeof(long));
		}
	}
}

static int sys_reg(struct slim_event *ev, enum slim_reg type)
{
	struct sys_meta *m = ev->data;
	int ret = 0;

	sys_reg_calls[type]++;
	switch (type) {
	case SLIM_REG_REGISTER:
		if (nr_enabled++ == 0)
			ret = register_trace_test_sys_enter_data(sys_probe, NULL);
		if (!ret)
			__atomic_store_n(&m->enabled, 1, __ATOMIC_RELAXED);
		return ret;
	case SLIM_REG_UNREGISTER:
		__atomic_store_n(&m->enabled, 0, __ATOMIC_RELAXED);
		if (--nr_enabled == 0)
			ret = unregister_trace_test_sys_enter_data(sys_probe, NULL);
		return ret;
	default:
		return -EOPNOTSUPP;
	}
}

static int sys_raw_init(struct slim_event *ev)
{
	const char *name = slim_event_name(ev);
	unsigned int i;

	for (i = 0; i < sizeof(metas) / sizeof(metas[0]); i++) {
		if (strcmp(metas[i].name, name) == 0) {
			metas[i].ev = ev;
			ev->data = &metas[i];
			return 0;
		}
	}
	return -ENOENT;
}

static const struct slim_field_table *sys_get_fields(const struct slim_event *ev)
{
	const struct sys_meta *m = ev->data;

	return &m->fields;
}

static int sys_print(struct slim_seq *s, struct slim_seq *p,
		     const struct slim_event *ev, const void *rec, unsigned int len)
{
	const struct sys_meta *m = ev->data;
	const sys_record_t *r = rec;
	unsigned int i;

	(void)p;
	(void)len;
	slim_seq_printf(s, "%s(", m->name + 10);
	for (i = 1; i < m->fields.nr_fields; i++)
		slim_seq_printf(s, "%s%s: 0x%lx", i > 1 ? ", " : "",
				slim_field_name(&m->fields, &m->fields.fields[i]),
				r->args[i - 1]);
	return slim_seq_puts(s, ")");
}

SLIM_HIDDEN const struct slim_event_class *slim_class_syscalls(void)
{
	static const struct slim_event_class class = {
		.fields = { .strings = strings },
		.print_fmt = 53,
		.probe = (slim_probe_func)sys_probe,
		.reg = sys_reg,
		.get_fields = sys_get_fields,
		.raw_init = sys_raw_init,
		.funcs = { .trace = sys_print },
	};
	return &class;
}

SLIM_EVENT_DEFINE(syscalls, sys_enter_read);
SLIM_EVENT_DEFINE(syscalls, sys_enter_getpid);
