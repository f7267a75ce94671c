#include "../tracepoint/tp_defs.c"
