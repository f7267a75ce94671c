#define CREATE_TRACE_POINTS
#include "ri_events.h"
