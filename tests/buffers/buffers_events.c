#define CREATE_TRACE_POINTS
#include "sample_events.h"
