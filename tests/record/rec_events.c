#define CREATE_TRACE_POINTS
#include "rec_events.h"
