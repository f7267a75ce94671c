/* SPDX-License-Identifier: MIT */
/* The one file that defines the benchmark's events. */
#define CREATE_TRACE_POINTS
#include "record_events.h"
