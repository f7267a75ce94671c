#include <errno.h>
#include <stddef.h>
#include <slimtrace/output.h>
#include "kprobe_class.h"

DEFINE_TRACE(kp_hook, TP_PROTO(int fd), TP_ARGS(fd));

int kprobe_reg_calls[4];
int kprobe_probe_calls, kprobe_perf_calls;

static const char strings[] = "kprobes\0int\0fd\0\"fd=%d\", REC->fd";
static const struct slim_field fields[] = {
	{ 8, 12, 8, 4, 1, SLIM_FILTER_AUTO },
};

struct kp_record {
	struct slim_trace_entry ent;
	int fd;
};

/* The ftrace-like path: the instances' buffers only. */
static void kp_probe(int fd, void *data)
{
	struct slim_reserve r;
	struct kp_record *rec;

	__atomic_fetch_add(&kprobe_probe_calls, 1, __ATOMIC_RELAXED);
	for (rec = slim_event_reserve(&r, data, sizeof(*rec)); rec;
	     rec = slim_event_commit_next(&r))
		rec->fd = fd;
}

/* The consumer path: the callbacks only. */
static void kp_perf_probe(int fd, void *data)
{
	struct slim_reserve r;
	struct kp_record *rec;

	__atomic_fetch_add(&kprobe_perf_calls, 1, __ATOMIC_RELAXED);
	for (rec = slim_consumer_reserve(&r, data, sizeof(*rec)); rec;
	     rec = slim_event_commit_next(&r))
		rec->fd = fd;
}

static int kp_reg(struct slim_event *ev, enum slim_reg type)
{
	kprobe_reg_calls[type]++;
	switch (type) {
	case SLIM_REG_REGISTER:
		return register_trace_kp_hook_data(kp_probe, ev);
	case SLIM_REG_UNREGISTER:
		return unregister_trace_kp_hook_data(kp_probe, ev);
	case SLIM_REG_PERF_REGISTER:
		return register_trace_kp_hook_data(kp_perf_probe, ev);
	case SLIM_REG_PERF_UNREGISTER:
		return unregister_trace_kp_hook_data(kp_perf_probe, ev);
	}
	return -EINVAL;
}

static int kp_print(struct slim_seq *s, struct slim_seq *p,
		    const struct slim_event *ev, const void *rec, unsigned int len)
{
	const struct kp_record *r = rec;

	(void)p, (void)ev, (void)len;
	return slim_seq_printf(s, "fd=%d", r->fd);
}

SLIM_HIDDEN const struct slim_event_class *slim_class_kprobes(void)
{
	static const struct slim_event_class class = {
		.fields = { strings, fields, 1, sizeof(struct kp_record) },
		.print_fmt = 15,
		.probe = (slim_probe_func)kp_probe,
		.perf_probe = (slim_probe_func)kp_perf_probe,
		.reg = kp_reg,
		.funcs = { .trace = kp_print },
	};
	return &class;
}

SLIM_EVENT_DEFINE(kprobes, kp_open);

void kprobe_reset(void)
{
	memset(kprobe_reg_calls, 0, sizeof(kprobe_reg_calls));
	kprobe_probe_calls = kprobe_perf_calls = 0;
}

void kprobe_fire(int fd)
{
	trace_kp_hook(fd);
}
