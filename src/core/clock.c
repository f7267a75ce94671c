// SPDX-License-Identifier: MIT
/*
 * Trace clocks.  The hot path is the inline slim_clock_now() in clock.h;
 * this file selects the clock and keeps the calibration that lets "mono"
 * record raw cycles yet read back as CLOCK_MONOTONIC.
 *
 * Calibration is a table of points (counter, CLOCK_MONOTONIC) taken off
 * the hot path.  A stamp between two points is read off the straight
 * line joining them; one after the last point follows the slope of the
 * last few seconds.  Readers on other threads see the table through a
 * seqlock whose every field is an atomic.  docs/clocks.md has the why.
 */
#include <slimtrace/static/record.h>
#include "core/clock.h"
#include "core/fork.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#define NSEC_PER_SEC	1000000000ull
/* Points closer than this give a noisy slope: never take them. */
#define CAL_MIN_GAP_NS	1000000ull
/* Gap between points once warmed up; doubles each time the table thins. */
#define CAL_MAX_GAP_NS	NSEC_PER_SEC
/* The extrapolating slope is measured over at least this much time. */
#define CAL_TAIL_NS	(4 * NSEC_PER_SEC)
/* Paired readings per point; the tightest bracket wins. */
#define CAL_TRIES	16

/* What each clock reads now: "mono" switches to the counter once calibrated. */
SLIM_STATIC_ASSERT(SLIM_CLOCK_SRC_COUNTER == SLIM_ABI_CLOCK_COUNTER, "ABI: clock source");

void (*slim_clock_srcs_changed)(void);

int slim_clock_srcs[SLIM_CLOCK_NR] = {
	[SLIM_CLOCK_MONO]	= CLOCK_MONOTONIC,
	[SLIM_CLOCK_MONO_RAW]	= CLOCK_MONOTONIC_RAW,
	[SLIM_CLOCK_TSC]	= SLIM_CLOCK_HAVE_COUNTER ? SLIM_CLOCK_SRC_COUNTER : CLOCK_MONOTONIC,
};

static const char *const clock_names[SLIM_CLOCK_NR] = {
	[SLIM_CLOCK_MONO]	= "mono",
	[SLIM_CLOCK_MONO_RAW]	= "mono_raw",
	[SLIM_CLOCK_TSC]	= "tsc",
};

static _Atomic int mono_tsc;
static int counter_ok;		/* written once, inside pthread_once */
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t sel_lock = PTHREAD_MUTEX_INITIALIZER;

/* The published table: readers load it under the seqlock. */
struct cal_slot {
	_Atomic uint64_t tsc_base;
	_Atomic uint64_t ns_base;
	_Atomic uint32_t mult;
	_Atomic uint32_t shift;
};

static struct {
	_Atomic unsigned int seq;
	_Atomic size_t n;
	_Atomic uint64_t next_due;	/* counter value; tick() reads it unlocked */
	struct cal_slot slot[SLIM_CLOCK_CALIB_MAX];
} cal = { .next_due = UINT64_MAX };

/* The writer's own copy, only touched under cal_lock. */
static pthread_mutex_t cal_lock = PTHREAD_MUTEX_INITIALIZER;
static struct slim_clock_calib wtab[SLIM_CLOCK_CALIB_MAX];
static size_t wn;
static uint64_t max_gap_ns = CAL_MAX_GAP_NS;

/* ---- arithmetic -------------------------------------------------------- */

/* (d * mult) >> shift without a 128-bit type; exact for shift <= 32. */
uint64_t slim_clock_seg_ns(const struct slim_clock_calib *c, uint64_t raw)
{
	uint64_t back;

	if (raw >= c->tsc_base)
		return c->ns_base + slim_clock_mul_shift(raw - c->tsc_base, c->mult, c->shift);
	back = slim_clock_mul_shift(c->tsc_base - raw, c->mult, c->shift);
	return back < c->ns_base ? c->ns_base - back : 0;
}

/* The slope dns/dc as mult/shift, with as many bits as a u32 mult holds. */
static void slope(uint64_t dc, uint64_t dns, uint32_t *mult, uint32_t *shift)
{
	double r = (double)dns / (double)(dc ? dc : 1);
	double m;
	uint32_t s = 32;

	while (s > 0 && r * (double)(1ull << s) >= 4294967295.0)
		s--;
	m = r * (double)(1ull << s);
	*mult = m >= 4294967295.0 ? 0xffffffffu : (uint32_t)m;
	*shift = s;
}

/*
 * The slope between points i and i+1.  Rounded down so that the line
 * never passes the next point: stamps stay monotonic across points.
 */
static void interpolate(struct slim_clock_calib *a,
			const struct slim_clock_calib *b)
{
	uint64_t dc = b->tsc_base - a->tsc_base;
	uint64_t dns = b->ns_base - a->ns_base;

	slope(dc, dns, &a->mult, &a->shift);
	while (a->mult && slim_clock_mul_shift(dc, a->mult, a->shift) > dns)
		a->mult--;
}

/* Index of the last entry at or before raw (0 if raw precedes them all). */
static size_t tab_find(const struct slim_clock_calib *tab, size_t n,
		       uint64_t raw)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (tab[mid].tsc_base <= raw)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

uint64_t slim_clock_calib_to_ns(const struct slim_clock_calib *tab, size_t n,
				uint64_t raw)
{
	if (!tab || !n)
		return raw;
	return slim_clock_seg_ns(&tab[tab_find(tab, n, raw)], raw);
}

/* ---- the counter ------------------------------------------------------- */

/* A counter read that does not drift past its neighbours: for brackets. */
static inline uint64_t cycles_ordered(void)
{
	uint64_t v;

#if defined(__x86_64__)
	__asm__ __volatile__("lfence" ::: "memory");
	v = slim_clock_cycles();
	__asm__ __volatile__("lfence" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("isb" ::: "memory");
	v = slim_clock_cycles();
	__asm__ __volatile__("isb" ::: "memory");
#else
	v = slim_clock_cycles();
#endif
	return v;
}

/*
 * One calibration point: CLOCK_MONOTONIC bracketed by two counter reads;
 * the narrowest bracket bounds the error best, its middle is the guess.
 */
static void take_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < CAL_TRIES; i++) {
		uint64_t c0 = cycles_ordered();
		uint64_t t = slim_clock_gettime_ns(CLOCK_MONOTONIC);
		uint64_t c1 = cycles_ordered();

		if (c1 >= c0 && c1 - c0 < best) {
			best = c1 - c0;
			*tsc = c0 + (c1 - c0) / 2;
			*ns = t;
		}
	}
}

#if defined(__x86_64__)
static int has_word(const char *list, const char *word)
{
	size_t len = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word)) != NULL) {
		int start = p == list || p[-1] == ' ' || p[-1] == '\t' ||
			    p[-1] == ':';
		int end = p[len] == '\0' || p[len] == ' ' || p[len] == '\n' ||
			  p[len] == '\t';

		if (start && end)
			return 1;
		p += len;
	}
	return 0;
}

/* 1 yes, 0 no, -1 when the file cannot tell. */
static int file_line_has(const char *path, const char *key, const char *w1,
			 const char *w2)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	int ret = -1;

	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		if (key && strncmp(line, key, strlen(key)) != 0)
			continue;
		ret = has_word(line, w1) && (!w2 || has_word(line, w2));
		break;
	}
	free(line);
	fclose(f);
	return ret;
}

static int cpuid_invariant_tsc(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid(0x80000007, &a, &b, &c, &d))
		return 0;
	return (d >> 8) & 1;
}
#endif

/*
 * Can cycles stand in for CLOCK_MONOTONIC?  Only if the counter ticks at
 * one rate whatever the power state, and the kernel has not given up on
 * it (it drops "tsc" from the usable clocksources when CPUs disagree).
 */
static int counter_invariant(void)
{
#if defined(__x86_64__)
	int ok = file_line_has("/proc/cpuinfo", "flags", "constant_tsc",
			       "nonstop_tsc");

	if (ok < 0)
		ok = cpuid_invariant_tsc();
	if (ok && file_line_has("/sys/devices/system/clocksource/clocksource0/available_clocksource",
				NULL, "tsc", NULL) == 0)
		ok = 0;
	return ok;
#elif defined(__aarch64__)
	return 1;	/* the generic timer is fixed-rate by architecture */
#else
	return 0;
#endif
}

/* ---- the table: writer side (cal_lock held) ---------------------------- */

/* Seqlock write: every store is release so none moves above the odd seq. */
static void publish(size_t from)
{
	unsigned int s = atomic_load_explicit(&cal.seq, memory_order_relaxed);
	size_t i;

	atomic_store_explicit(&cal.seq, s + 1, memory_order_relaxed);
	for (i = from; i < wn; i++) {
		struct cal_slot *d = &cal.slot[i];

		atomic_store_explicit(&d->tsc_base, wtab[i].tsc_base, memory_order_release);
		atomic_store_explicit(&d->ns_base, wtab[i].ns_base, memory_order_release);
		atomic_store_explicit(&d->mult, wtab[i].mult, memory_order_release);
		atomic_store_explicit(&d->shift, wtab[i].shift, memory_order_release);
	}
	atomic_store_explicit(&cal.n, wn, memory_order_release);
	atomic_store_explicit(&cal.seq, s + 2, memory_order_release);
}

/* Table full: keep every other point (and the last), halve the density. */
static void thin(void)
{
	size_t i, n = 0;

	for (i = 0; i < wn; i += 2)
		wtab[n++] = wtab[i];
	if (wtab[n - 1].tsc_base != wtab[wn - 1].tsc_base)
		wtab[n++] = wtab[wn - 1];
	for (i = 0; i + 1 < n; i++)
		interpolate(&wtab[i], &wtab[i + 1]);
	wn = n;
	max_gap_ns *= 2;
}

/* The last point's slope: measured back over at least CAL_TAIL_NS. */
static void set_tail(void)
{
	struct slim_clock_calib *last = &wtab[wn - 1];
	size_t k = wn - 1;

	while (k > 0 && last->ns_base - wtab[k].ns_base < CAL_TAIL_NS)
		k--;
	slope(last->tsc_base - wtab[k].tsc_base,
	      last->ns_base - wtab[k].ns_base, &last->mult, &last->shift);
}

/* Wait as long as we have calibrated so far, up to max_gap_ns. */
static void schedule_next(void)
{
	const struct slim_clock_calib *last = &wtab[wn - 1];
	uint64_t gap = last->ns_base - wtab[0].ns_base;
	double ticks;

	if (gap < CAL_MIN_GAP_NS)
		gap = CAL_MIN_GAP_NS;
	if (gap > max_gap_ns)
		gap = max_gap_ns;
	ticks = (double)gap;
	if (last->mult)
		ticks = ticks * (double)(1ull << last->shift) / (double)last->mult;
	atomic_store_explicit(&cal.next_due, last->tsc_base + (uint64_t)ticks,
			      memory_order_relaxed);
}

static int cal_add_point(void)
{
	struct slim_clock_calib p = { 0, 0, 0, 0 };
	size_t from;

	/* One clock read is cheaper than the pair we would throw away. */
	if (wn && slim_clock_gettime_ns(CLOCK_MONOTONIC) <
		  wtab[wn - 1].ns_base + CAL_MIN_GAP_NS)
		return -EAGAIN;
	take_pair(&p.tsc_base, &p.ns_base);
	if (wn && (p.tsc_base <= wtab[wn - 1].tsc_base ||
		   p.ns_base < wtab[wn - 1].ns_base + CAL_MIN_GAP_NS))
		return -EAGAIN;
	from = wn ? wn - 1 : 0;
	if (wn == SLIM_CLOCK_CALIB_MAX) {
		thin();
		from = 0;
	}
	wtab[wn++] = p;
	if (wn < 2)
		return 0;
	interpolate(&wtab[wn - 2], &wtab[wn - 1]);
	set_tail();
	publish(from);
	schedule_next();
	return 0;
}

/* Conversions need a slope, hence two points; the first reader waits. */
static void cal_ready(void)
{
	int tries;

	if (atomic_load_explicit(&cal.n, memory_order_acquire) >= 2)
		return;
	pthread_mutex_lock(&cal_lock);
	for (tries = 0; wn < 2 && tries < 100; tries++) {
		uint64_t t0 = wn ? wtab[0].ns_base : 0;

		while (slim_clock_gettime_ns(CLOCK_MONOTONIC) < t0 + CAL_MIN_GAP_NS + 1000)
			sched_yield();
		cal_add_point();
	}
	pthread_mutex_unlock(&cal_lock);
}

/* ---- the table: reader side -------------------------------------------- */

static void slot_load(const struct cal_slot *s, struct slim_clock_calib *c)
{
	c->tsc_base = atomic_load_explicit(&s->tsc_base, memory_order_acquire);
	c->ns_base = atomic_load_explicit(&s->ns_base, memory_order_acquire);
	c->mult = atomic_load_explicit(&s->mult, memory_order_acquire);
	c->shift = atomic_load_explicit(&s->shift, memory_order_acquire);
}

static size_t slot_find(size_t n, uint64_t raw)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (atomic_load_explicit(&cal.slot[mid].tsc_base,
					 memory_order_acquire) <= raw)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Seqlock read: acquire loads keep the closing seq load below them.  A
 * torn read can pick a wrong slot, never an out-of-range one.
 */
static uint64_t cal_to_ns(uint64_t raw)
{
	struct slim_clock_calib seg;

	for (;;) {
		unsigned int s = atomic_load_explicit(&cal.seq, memory_order_acquire);
		size_t n;

		if (s & 1) {
			sched_yield();
			continue;
		}
		n = atomic_load_explicit(&cal.n, memory_order_acquire);
		if (n > SLIM_CLOCK_CALIB_MAX)
			n = SLIM_CLOCK_CALIB_MAX;
		slot_load(&cal.slot[slot_find(n, raw)], &seg);
		if (atomic_load_explicit(&cal.seq, memory_order_relaxed) == s)
			break;
	}
	return slim_clock_seg_ns(&seg, raw);
}

size_t slim_clock_calib_snapshot(struct slim_clock_calib *tab, size_t max)
{
	size_t n, i;

	slim_clock_init();
	if (counter_ok)
		cal_ready();
	for (;;) {
		unsigned int s = atomic_load_explicit(&cal.seq, memory_order_acquire);

		if (s & 1) {
			sched_yield();
			continue;
		}
		n = atomic_load_explicit(&cal.n, memory_order_acquire);
		for (i = 0; i < n && i < max; i++)
			slot_load(&cal.slot[i], &tab[i]);
		if (atomic_load_explicit(&cal.seq, memory_order_relaxed) == s)
			return n;
	}
}

/* ---- upkeep ------------------------------------------------------------ */

void slim_clock_tick(void)
{
	uint64_t now = slim_clock_cycles();

	if (now < atomic_load_explicit(&cal.next_due, memory_order_relaxed))
		return;
	if (pthread_mutex_trylock(&cal_lock) != 0)
		return;
	if (now >= atomic_load_explicit(&cal.next_due, memory_order_relaxed))
		cal_add_point();
	pthread_mutex_unlock(&cal_lock);
}

int slim_clock_recalibrate(void)
{
	int ret;

	slim_clock_init();
	if (!counter_ok)
		return -ENODEV;
	if (pthread_mutex_trylock(&cal_lock) != 0)
		return -EAGAIN;
	ret = cal_add_point();
	pthread_mutex_unlock(&cal_lock);
	return ret;
}

/* A fork in mid-calibration would leave the child's table locked. */
static void fork_prepare(void)
{
	pthread_mutex_lock(&sel_lock);
	pthread_mutex_lock(&cal_lock);
}

static void fork_done(void)
{
	pthread_mutex_unlock(&cal_lock);
	pthread_mutex_unlock(&sel_lock);
}

static struct slim_fork_hook fork_hook = {
	SLIM_FORK_CLOCK, fork_prepare, fork_done, fork_done, NULL
};

static void clock_setup(void)
{
	counter_ok = SLIM_CLOCK_HAVE_COUNTER && counter_invariant();
	if (!counter_ok)
		return;
	slim_fork_hook_add(&fork_hook);
	pthread_mutex_lock(&cal_lock);
	cal_add_point();
	atomic_store_explicit(&cal.next_due, wtab[0].tsc_base, memory_order_relaxed);
	pthread_mutex_unlock(&cal_lock);
	atomic_store(&mono_tsc, 1);
	__atomic_store_n(&slim_clock_srcs[SLIM_CLOCK_MONO], SLIM_CLOCK_SRC_COUNTER, __ATOMIC_SEQ_CST);
	if (slim_clock_srcs_changed)
		slim_clock_srcs_changed();
}

int slim_clock_init(void)
{
	pthread_once(&init_once, clock_setup);
	return 0;
}

/* Before main(), so no event is ever stamped before the source is fixed. */
__attribute__((constructor)) static void clock_ctor(void)
{
	slim_clock_init();
}

/* ---- selection --------------------------------------------------------- */

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int slim_clock_lookup(const char *name)
{
	size_t len;
	int id;

	slim_clock_init();
	if (!name)
		return -EINVAL;
	while (is_blank(*name))
		name++;
	len = strlen(name);
	while (len && is_blank(name[len - 1]))
		len--;
	for (id = 0; id < SLIM_CLOCK_NR; id++)
		if (strlen(clock_names[id]) == len &&
		    memcmp(clock_names[id], name, len) == 0)
			return id;
	return -EINVAL;
}

const char *slim_clock_id_name(enum slim_clock_id id)
{
	return (unsigned int)id < SLIM_CLOCK_NR ? clock_names[id] : "?";
}

int slim_clock_list(enum slim_clock_id cur, char *buf, size_t len)
{
	size_t pos = 0;
	int id;

	if (!buf && len)
		return -EINVAL;
	for (id = 0; id < SLIM_CLOCK_NR; id++) {
		size_t nl = strlen(clock_names[id]);
		size_t need = nl + (id ? 1 : 0) + (id == (int)cur ? 2 : 0);

		if (pos + need + 1 > len) {
			if (len)
				buf[0] = '\0';
			return -ENOSPC;
		}
		if (id)
			buf[pos++] = ' ';
		if (id == (int)cur)
			buf[pos++] = '[';
		memcpy(buf + pos, clock_names[id], nl);
		pos += nl;
		if (id == (int)cur)
			buf[pos++] = ']';
	}
	buf[pos] = '\0';
	return (int)pos;
}

int slim_clock_in_ns(enum slim_clock_id id)
{
	return id != SLIM_CLOCK_TSC || !SLIM_CLOCK_HAVE_COUNTER;
}

int slim_clock_mono_use_tsc(int on)
{
	slim_clock_init();
	if (on && !counter_ok)
		return -ENODEV;
	pthread_mutex_lock(&sel_lock);
	atomic_store(&mono_tsc, !!on);
	__atomic_store_n(&slim_clock_srcs[SLIM_CLOCK_MONO],
			 on ? SLIM_CLOCK_SRC_COUNTER : CLOCK_MONOTONIC, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&sel_lock);
	if (slim_clock_srcs_changed)
		slim_clock_srcs_changed();
	return 0;
}

int slim_clock_mono_is_tsc(void)
{
	return atomic_load(&mono_tsc);
}

int slim_clock_raw_is_cycles(enum slim_clock_id id)
{
	return __atomic_load_n(&slim_clock_srcs[id], __ATOMIC_SEQ_CST) == SLIM_CLOCK_SRC_COUNTER;
}

uint64_t slim_clock_to_ns(enum slim_clock_id id, uint64_t raw)
{
	if (id != SLIM_CLOCK_MONO || !atomic_load(&mono_tsc))
		return raw;
	slim_clock_tick();
	cal_ready();
	return cal_to_ns(raw);
}
