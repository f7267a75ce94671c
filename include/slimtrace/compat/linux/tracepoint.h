/* SPDX-License-Identifier: MIT */
/*
 * Kernel compatibility: a trace header written for the kernel's
 * include/trace/events/ includes <linux/tracepoint.h>; with
 * -I <prefix>/include/slimtrace/compat it gets slimtrace instead.
 * Deliberately not include-guarded around the slimtrace include, like
 * the kernel's own file, so every pass gets the dialect's current forms.
 */
#include <slimtrace/tracepoint.h>
#include <linux/types.h>

#ifndef SLIMTRACE_COMPAT_TRACEPOINT_H
#define SLIMTRACE_COMPAT_TRACEPOINT_H

#ifndef __stringify
# define __stringify(x...)	SLIM_STRINGIFY(x)
#endif

/* The kernel's filter types, for __field_ext(). */
#define FILTER_OTHER		SLIM_FILTER_OTHER
#define FILTER_STATIC_STRING	SLIM_FILTER_STATIC_STRING
#define FILTER_DYN_STRING	SLIM_FILTER_DYN_STRING
#define FILTER_PTR_STRING	SLIM_FILTER_PTR_STRING
#define FILTER_COMM		SLIM_FILTER_COMM
#define FILTER_CPU		SLIM_FILTER_CPU

#endif
