/* A hand-written class in the shape of the kernel's syscall events. */
#ifndef TEST_SYSCALLS_H
#define TEST_SYSCALLS_H
#include <slimtrace/tracepoint.h>

/* The one raw tracepoint every syscall event hangs off. */
DECLARE_TRACE(test_sys_enter, TP_PROTO(long nr, const long *args), TP_ARGS(nr, args));

extern struct slim_event slim_event_sys_enter_read;
extern struct slim_event slim_event_sys_enter_getpid;

/* What reg() was asked, for the test to check. */
extern int sys_reg_calls[4];
#endif
