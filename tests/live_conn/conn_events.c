// SPDX-License-Identifier: MIT
/* The live target's events, in the test binary itself. */
#define CREATE_TRACE_POINTS
#include "target_events.h"

void conn_fire(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		trace_live_tick(i, i * 2);
		trace_live_parse(i, i % 20);
	}
}
