/* SPDX-License-Identifier: MIT */
/*
 * Trace clocks (internal).  The record path stamps every event with
 * slim_clock_now(id), a raw reading of the clock its buffers use (each
 * instance chooses its own, as trace_clock does in the kernel); readers
 * turn it into time with slim_clock_to_ns(id, raw).  docs/clocks.md
 * explains the choices.
 *
 *   mono      CLOCK_MONOTONIC, the kernel's "mono" trace clock.  When the
 *             cycle counter is invariant, events carry raw cycles and the
 *             read side converts them with a calibration table.
 *   mono_raw  CLOCK_MONOTONIC_RAW, the kernel's "mono_raw".
 *   tsc       the raw cycle counter (rdtsc, cntvct_el0), the kernel's
 *             "x86-tsc"; read back as cycles, not ns.
 */
#ifndef SLIM_CLOCK_H
#define SLIM_CLOCK_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <slimtrace/compiler.h>
#include <slimtrace/static/record.h>

/* Internal: reached directly, not through the GOT, from the library. */
#pragma GCC visibility push(hidden)

enum slim_clock_id {
	SLIM_CLOCK_MONO,
	SLIM_CLOCK_MONO_RAW,
	SLIM_CLOCK_TSC,
	SLIM_CLOCK_NR,
};

/*
 * One piece of the cycles -> ns mapping, valid from tsc_base on:
 *   ns = ns_base + ((raw - tsc_base) * mult >> shift)
 * The same meaning as perf's time_zero/time_mult/time_shift.
 */
struct slim_clock_calib {
	uint32_t mult;
	uint32_t shift;
	uint64_t tsc_base;
	uint64_t ns_base;
};

/* Most calibration points kept; older ones are thinned out, not lost. */
#define SLIM_CLOCK_CALIB_MAX	512

/* Set up (idempotent, also run by a constructor).  Returns 0. */
int slim_clock_init(void);

/* A clock by name; surrounding blanks are ignored.  Its id or -EINVAL. */
int slim_clock_lookup(const char *name);
const char *slim_clock_id_name(enum slim_clock_id id);

/*
 * "[mono] mono_raw tsc" (no newline, cur in brackets) into buf.  Returns
 * the text length, or -ENOSPC when buf is too small (buf then holds ""
 * if len > 0).
 */
int slim_clock_list(enum slim_clock_id cur, char *buf, size_t len);

/* 1 when slim_clock_to_ns() yields ns, 0 when it yields counter ticks. */
int slim_clock_in_ns(enum slim_clock_id id);

/* Read side: a raw stamp of clock id into its ns (or ticks). */
uint64_t slim_clock_to_ns(enum slim_clock_id id, uint64_t raw);
/* Whether id's raw stamps are counter cycles (converted when read). */
int slim_clock_raw_is_cycles(enum slim_clock_id id);

/*
 * Whether "mono" reads the cycle counter (calibrated) or clock_gettime().
 * slim_clock_mono_use_tsc(1) fails with -ENODEV when the counter is not
 * invariant.  Like a clock switch, only while nothing is being recorded.
 */
int slim_clock_mono_use_tsc(int on);
int slim_clock_mono_is_tsc(void);

/*
 * Calibration upkeep, off the hot path.  slim_clock_tick() is cheap (a
 * counter read and a compare when nothing is due): call it from slow
 * paths such as a buffer page switch.  slim_clock_recalibrate() takes a
 * point now: 0, -EAGAIN if the last point is under 1 ms old or another
 * thread is calibrating, -ENODEV when there is no calibrated counter.
 */
void slim_clock_tick(void);
int slim_clock_recalibrate(void);

/*
 * The calibration table, for a trace file: entry i holds point i and the
 * slope that applies after it (the last entry's slope extrapolates).
 * Copies at most max entries and returns how many there are.
 */
size_t slim_clock_calib_snapshot(struct slim_clock_calib *tab, size_t max);

/* One calibration point's conversion, and the arithmetic under it. */
uint64_t slim_clock_seg_ns(const struct slim_clock_calib *c, uint64_t raw);

/* Inline: the recorder converts every event of a cycles page with it. */
static inline uint64_t slim_clock_mul_shift(uint64_t d, uint32_t mult, uint32_t shift)
{
	uint64_t lo = (d & 0xffffffffu) * mult;
	uint64_t hi = (d >> 32) * mult;

	return (hi << (32 - shift)) + (lo >> shift);
}

/* Convert with a table such as a snapshot (entries ordered by tsc_base). */
uint64_t slim_clock_calib_to_ns(const struct slim_clock_calib *tab, size_t n,
				uint64_t raw);

/* ---- hot path ---------------------------------------------------------- */

/* What slim_clock_now() reads: a POSIX clock id, or this for the counter. */
#define SLIM_CLOCK_SRC_COUNTER	(-1)
/* slim_clock_srcs[id]: declared in static/record.h. */
/*
 * Called after any change of slim_clock_srcs (set by the buffer sets,
 * whose fast words say whether their clock is the counter).
 */
extern void (*slim_clock_srcs_changed)(void);

/* The counter read is the record fast path's (static/record.h). */
#if SLIM_ABI_HAVE_CYCLES
#define SLIM_CLOCK_HAVE_COUNTER 1
static inline uint64_t slim_clock_cycles(void)
{
	return slim_abi_cycles();
}
#else
#define SLIM_CLOCK_HAVE_COUNTER 0
static inline uint64_t slim_clock_cycles(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

static inline uint64_t slim_clock_gettime_ns(int id)
{
	struct timespec ts;

	clock_gettime((clockid_t)id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The stamp for an event.  Unordered counter read: it may drift a few ns
 * against neighbouring loads, far below what a trace can resolve.
 */
static inline uint64_t slim_clock_now(enum slim_clock_id id)
{
	int src = __atomic_load_n(&slim_clock_srcs[id], __ATOMIC_RELAXED);

	if (src == SLIM_CLOCK_SRC_COUNTER)
		return slim_clock_cycles();
	return slim_clock_gettime_ns(src);
}

#pragma GCC visibility pop

#endif
