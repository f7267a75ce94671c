/* Kernel-style headers defined from one file, as a kernel .c does. */
#define CREATE_TRACE_POINTS
#include <trace/events/sched.h>
#include <trace/events/irq.h>
#include <trace/events/kmem.h>
#include <trace/events/signal.h>
#include <trace/events/ipi.h>
