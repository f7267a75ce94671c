/* The events of ext_events.h, defined here for test_dialect_ext. */
#define CREATE_TRACE_POINTS
#include "ext_events.h"
