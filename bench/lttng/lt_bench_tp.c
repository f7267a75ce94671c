/* The one translation unit that instantiates the provider's probes. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "lt_bench_tp.h"
