/* SPDX-License-Identifier: MIT */
/*
 * Included at the end of every trace header, outside its guard.  In the
 * one file that defined CREATE_TRACE_POINTS it reads the header again
 * once per stage (stages/), each time with the dialect's macros meaning
 * something else, to generate the definitions.  Elsewhere it does
 * nothing.  docs/dialect.md shows what each stage generates.
 *
 * As in the kernel, the header is found as
 * TRACE_INCLUDE_PATH/TRACE_INCLUDE_FILE.h (quoted include), or as
 * <trace/events/TRACE_INCLUDE_FILE.h> when no path is given;
 * TRACE_INCLUDE_FILE defaults to TRACE_SYSTEM.
 */
#ifdef CREATE_TRACE_POINTS

#ifdef __cplusplus
# error "slimtrace: define CREATE_TRACE_POINTS in a C file: the definitions use C11 (_Generic, flexible array members, compound literals); C++ files include the trace header and call trace_<event>()"
#endif

/* Each pass must not define the points again. */
#undef CREATE_TRACE_POINTS

#include <slimtrace/tracepoint.h>

#ifndef TRACE_INCLUDE_FILE
# define TRACE_INCLUDE_FILE TRACE_SYSTEM
# define __SLIM_UNDEF_TRACE_INCLUDE_FILE
#endif

#ifndef TRACE_INCLUDE_PATH
# define __SLIM_TRACE_INCLUDE(system) <trace/events/system.h>
# define __SLIM_UNDEF_TRACE_INCLUDE_PATH
#else
# define __SLIM_TRACE_INCLUDE(system) SLIM_STRINGIFY(TRACE_INCLUDE_PATH/system.h)
#endif
#define __SLIM_TRACE_INCLUDE_1(system) __SLIM_TRACE_INCLUDE(system)
#define TRACE_INCLUDE(system) __SLIM_TRACE_INCLUDE_1(system)

/*
 * A header that cannot be found would otherwise fail at the first pass
 * below, with a path relative to this file: say which header, and why.
 * The message names the path it tried (SLIM_STRINGIFY_1 does not expand
 * the macro names in the rest of the text).
 */
#if defined(__has_include)
# if !__has_include(TRACE_INCLUDE(TRACE_INCLUDE_FILE))
#  define __SLIM_NO_TRACE_HEADER
#  define __SLIM_PRAGMA(x)	_Pragma(#x)
#  define __SLIM_ERROR(msg)	__SLIM_PRAGMA(GCC error msg)
#  ifdef __SLIM_UNDEF_TRACE_INCLUDE_PATH
#   define __SLIM_NOT_FOUND(file) SLIM_STRINGIFY_1(slimtrace: cannot find the \
	trace header <trace/events/file.h>, named by TRACE_SYSTEM or \
	TRACE_INCLUDE_FILE with no TRACE_INCLUDE_PATH: add -I with the \
	folder that holds trace/events/, or define TRACE_INCLUDE_PATH)
__SLIM_ERROR(__SLIM_NOT_FOUND(TRACE_INCLUDE_FILE))
#  else
#   define __SLIM_NOT_FOUND(file) SLIM_STRINGIFY_1(slimtrace: cannot find the \
	trace header file, named by TRACE_INCLUDE_PATH and TRACE_INCLUDE_FILE: \
	define_trace.h includes it as a quoted header, so add -I with the \
	folder the path starts from (as the kernel build adds -I for the \
	folder of a trace header))
__SLIM_ERROR(__SLIM_NOT_FOUND(TRACE_INCLUDE_PATH/TRACE_INCLUDE_FILE.h))
#  endif
# endif
#endif
#ifndef __SLIM_NO_TRACE_HEADER

#define TRACE_HEADER_MULTI_READ

/*
 * The probes' record path (ABI), before any stage macro exists: its fast
 * part once per file, shared by every class the file defines.
 */
#include <slimtrace/static/record.h>
#ifndef __SLIM_RECORD_FAST_DEFINED
#define __SLIM_RECORD_FAST_DEFINED
static __attribute__((__noinline__, __unused__)) struct slim_record_room
__slim_record_fast(struct slim_event *ev, unsigned int esize)
{
	return slim_record_fast(ev, esize);
}

static __attribute__((__noinline__, __unused__)) void
__slim_record_commit(struct slim_abi_writer *w)
{
	slim_record_commit(w);
}
#endif

/* Generated code takes every argument, whether the event uses it or not. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

#include <slimtrace/stages/reset.h>
#include <slimtrace/stages/1_iterators.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

#include <slimtrace/stages/reset.h>
#include <slimtrace/stages/2_entry.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

#include <slimtrace/stages/reset.h>
#include <slimtrace/stages/3_strings_type.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

#include <slimtrace/stages/reset.h>
#include <slimtrace/stages/4_strings.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

#include <slimtrace/stages/reset.h>
#include <slimtrace/stages/5_dyn_type.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

#include <slimtrace/stages/reset.h>
#include <slimtrace/stages/6_dyn_size.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

#include <slimtrace/stages/reset.h>
#include <slimtrace/stages/7_probe.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

#include <slimtrace/stages/reset.h>
#include <slimtrace/stages/8_print.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

#include <slimtrace/stages/reset.h>
#include <slimtrace/stages/9_class_events.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

#pragma GCC diagnostic pop

#endif /* __SLIM_NO_TRACE_HEADER */
#undef __SLIM_NO_TRACE_HEADER

#include <slimtrace/stages/undef.h>
#undef TP_STRUCT__entry
#undef TRACE_HEADER_MULTI_READ

/* One constructor per file, however many trace headers it defines. */
#ifndef __SLIM_SECTIONS_CTOR_DONE
#define __SLIM_SECTIONS_CTOR_DONE
__SLIM_SECTIONS_CTOR(file)
#endif

#undef TRACE_INCLUDE
#undef __SLIM_TRACE_INCLUDE
#undef __SLIM_TRACE_INCLUDE_1
#ifdef __SLIM_UNDEF_TRACE_INCLUDE_FILE
# undef TRACE_INCLUDE_FILE
# undef __SLIM_UNDEF_TRACE_INCLUDE_FILE
#endif
#ifdef __SLIM_UNDEF_TRACE_INCLUDE_PATH
# undef TRACE_INCLUDE_PATH
# undef __SLIM_UNDEF_TRACE_INCLUDE_PATH
#endif

/* Back to the declaring forms, and ready for the next header. */
#include <slimtrace/tracepoint.h>
#define CREATE_TRACE_POINTS

#endif /* CREATE_TRACE_POINTS */
