/* The dialect_ext header's events, defined here for this test. */
#define CREATE_TRACE_POINTS
#include "ext_events.h"
