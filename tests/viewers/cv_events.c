#define CREATE_TRACE_POINTS
#include "cv_events.h"
