/*
 * A hand-written class (the kernel's dynamic-event shape): its own reg()
 * counts its calls and hooks a probe onto a bare tracepoint, whose probe
 * records through the loop every class probe uses.
 */
#ifndef TEST_COUNTED_CLASS_H
#define TEST_COUNTED_CLASS_H

#include <slimtrace/tracepoint.h>

DECLARE_TRACE(counted_hook, TP_PROTO(int v), TP_ARGS(v));

extern SLIM_HIDDEN struct slim_event slim_event_counted_one;
extern int counted_reg_calls[4];
extern int counted_refuse;	/* reg(REGISTER) fails with this when set */

void counted_reset(void);
void counted_fire(int v);

#endif
