/* Defined in another file than the call sites, as in a real program. */
#include "tp_defs.h"

DEFINE_TRACE(tp_two, TP_PROTO(int a, long b), TP_ARGS(a, b));
DEFINE_TRACE_NOARGS(tp_none);
