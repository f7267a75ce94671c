/* The kernel-style headers' events, defined here for this test. */
#define CREATE_TRACE_POINTS
#include <trace/events/sched.h>
#include <trace/events/irq.h>
#include <trace/events/kmem.h>
#include <trace/events/signal.h>
#include <trace/events/ipi.h>
