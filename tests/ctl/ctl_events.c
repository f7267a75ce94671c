/* The ctl test uses the sample events and the kernel-style sched events. */
#define CREATE_TRACE_POINTS
#include "sample_events.h"
