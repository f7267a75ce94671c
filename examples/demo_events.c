/* SPDX-License-Identifier: MIT */
/* The one file that defines the demo's events. */
#define CREATE_TRACE_POINTS
#include "demo_events.h"
