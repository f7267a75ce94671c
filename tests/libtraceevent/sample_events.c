/* The dialect sample header's events, defined here for this test. */
#define CREATE_TRACE_POINTS
#include "sample_events.h"
