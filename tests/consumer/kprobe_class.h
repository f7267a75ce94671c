/*
 * A kprobe-shaped class: its own reg() and a perf_probe of its own, so
 * that the ftrace-like path and the consumer path each hook their own
 * probe onto the same bare tracepoint, as the kernel's kprobe events do.
 */
#ifndef TEST_KPROBE_CLASS_H
#define TEST_KPROBE_CLASS_H

#include <slimtrace/tracepoint.h>

DECLARE_TRACE(kp_hook, TP_PROTO(int fd), TP_ARGS(fd));

extern SLIM_HIDDEN struct slim_event slim_event_kp_open;
extern int kprobe_reg_calls[4];
extern int kprobe_probe_calls, kprobe_perf_calls;

void kprobe_reset(void);
void kprobe_fire(int fd);

#endif
