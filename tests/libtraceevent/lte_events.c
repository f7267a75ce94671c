#define CREATE_TRACE_POINTS
#include "lte_events.h"
