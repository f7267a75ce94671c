/* The dynamic events test uses the sample events of the dialect test (eprobe sources). */
#define CREATE_TRACE_POINTS
#include "sample_events.h"
