/* The sample events, each class's probe with the fast path inline. */
#define SLIM_RECORD_INLINE
#define CREATE_TRACE_POINTS
#include "sample_events.h"
