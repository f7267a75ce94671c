/* SPDX-License-Identifier: MIT */
/* test_headers: the definitions, and everything the kernel-style compat headers add. */
#include <linux/tracepoint.h>
#define CREATE_TRACE_POINTS
#include "strict_events.h"

int strict_reg(void)
{
	return 0;
}

void strict_unreg(void)
{
}
