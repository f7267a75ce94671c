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
# define __stringify(...)	SLIM_STRINGIFY(__VA_ARGS__)
#endif

/* The kernel's filter types, for __field_ext(). */
#define FILTER_OTHER		SLIM_FILTER_OTHER
#define FILTER_STATIC_STRING	SLIM_FILTER_STATIC_STRING
#define FILTER_DYN_STRING	SLIM_FILTER_DYN_STRING
#define FILTER_PTR_STRING	SLIM_FILTER_PTR_STRING
#define FILTER_COMM		SLIM_FILTER_COMM
#define FILTER_CPU		SLIM_FILTER_CPU
#define FILTER_RDYN_STRING	SLIM_FILTER_RDYN_STRING
#define FILTER_CPUMASK		SLIM_FILTER_CPUMASK

/*
 * The kernel's cpumask as __cpumask fields meet it: TP_PROTO takes a
 * const struct cpumask *, TP_fast_assign passes cpumask_bits(mask).
 * Laid out as the C library's cpu_set_t, so either can be passed.
 */
#ifndef cpumask_bits
struct cpumask {
	unsigned long bits[1024 / (8 * sizeof(unsigned long))];
};
typedef struct cpumask cpumask_t;
# define cpumask_bits(maskp)	((maskp)->bits)
# define nr_cpumask_bits	slim_cpumask_bits()
#endif

#endif
