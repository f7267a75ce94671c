/* The stacktrace test uses the sample events of the dialect test. */
#define CREATE_TRACE_POINTS
#include "sample_events.h"
