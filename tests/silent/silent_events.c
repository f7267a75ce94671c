// SPDX-License-Identifier: MIT
/* The events of tests/test_silent.c (silent_events.h). */
#define CREATE_TRACE_POINTS
#include "silent_events.h"
