/* SPDX-License-Identifier: MIT */
/* Kernel compatibility: <trace/define_trace.h> is slimtrace's. Not guarded. */
#include <slimtrace/define_trace.h>
