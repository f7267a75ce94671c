// SPDX-License-Identifier: MIT
/*
 * record_bench: what slimtrace costs per recorded event, the slimtrace
 * side of `make bench` (bench/compare.py runs it beside bench/lttng/).
 *
 *   record_bench [-c CLOCK] [-e EVENTS] [-r RUNS] MODE...
 *
 *   CLOCK     mono_tsc, mono_gettime, mono_raw or tsc: record and filter
 *             use this one only (default: every clock; mono_tsc)
 *   clock     ns per read: clock_gettime(MONOTONIC, MONOTONIC_RAW), rdtsc,
 *             and slim_clock_now() with each trace clock; rdtsc,
 *             clock_gettime and integer work on 1 and on 2 threads
 *   loop      a loop calling trace_bench_2int() with the event disabled,
 *             and the same loop without the call
 *   record    bench_2int and bench_str on 1 and 2 threads, every clock
 *   filter    bench_2int with no filter, 1 and 5 passing predicates, and
 *             a filter that rejects every event
 *   memory    RSS a recording thread adds, default buffer_size_kb
 *   sessions  bench_2int on 1 thread into: the top level only, the top
 *             level and an instance, one consumer callback that does
 *             nothing (and no buffer), the top level and that consumer
 *   floor     the floor loop: rdtsc and three stores per event into a
 *             page of its own, what any record path must do
 *   profile EV N   record N events of EV (2int, str, 2int-f1, 2int-f5,
 *             2int-f0: the filters pred1, pred5, reject; floor: the
 *             floor loop) on this thread and nothing else: for valgrind
 *             --tool=callgrind --toggle-collect=fire_*
 *
 * Lines starting "slim " are results; they carry every run's value
 * (name_runs=a,b,...), runs of different measurements interleaved, so
 * that compare.py can take medians and pair each value with its peer
 * from the same round.  Nothing here judges a time: a run fails only
 * when events that should have been recorded were not (or were).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slimtrace/consumer.h>
#include <slimtrace/ctl.h>

#include "buffers/buffer.h"
#include "core/clock.h"
#include "record_events.h"

#define MAX_RUNS	64
#define MAX_THREADS	2

/* Sixteen characters, as bench/lttng/lt_bench.c records. */
static const char str16[] = "0123456789abcdef";

static long nr_events = 2000000;
static int nr_runs = 7;
/*
 * -c: record with this clock only.  A buffer's stamps must not go back,
 * and clearing it does not reset its last stamp, so a process that
 * switched from cycles to nanoseconds would clamp every later stamp (and
 * take the slow path for each): compare.py runs one process per clock.
 */
static const char *only_clock;

enum ev_kind { EV_2INT, EV_STR };
static const char *const ev_names[] = { "2int", "str16" };

struct clock_cfg {
	const char *name;	/* as printed */
	const char *trace_clock;
	int mono_tsc;		/* for "mono": the calibrated cycle counter */
	int usable;
};

static struct clock_cfg clocks[] = {
	{ "mono_tsc", "mono", 1, 1 },
	{ "mono_gettime", "mono", 0, 1 },
	{ "mono_raw", "mono_raw", 0, 1 },
	{ "tsc", "tsc", 0, 1 },
};
#define NR_CLOCKS	(int)(sizeof(clocks) / sizeof(clocks[0]))

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "record_bench: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static void ctl(const char *path, const char *text)
{
	int ret = slim_ctl_write(path, text);

	if (ret) {
		char *log = slim_ctl_read("error_log");

		fprintf(stderr, "record_bench: write '%s' to %s: %s\n%s", text,
			path, strerror(-ret), log ? log : "");
		free(log);
		exit(1);
	}
}

static void print_runs(const char *key, const double *v, int n)
{
	int i;

	printf(" %s_runs=", key);
	for (i = 0; i < n; i++)
		printf("%s%.3f", i ? "," : "", v[i]);
}

/* ---- the loops --------------------------------------------------------- */

/*
 * The same compiler barrier in every loop: it keeps each iteration, and
 * costs no instruction.  noinline: callgrind's --toggle-collect names them.
 */
static __attribute__((noinline)) void fire_empty(long n)
{
	long i;

	for (i = 0; i < n; i++)
		__asm__ __volatile__("" ::: "memory");
}

static __attribute__((noinline)) void fire_2int(long n)
{
	long i;

	for (i = 0; i < n; i++) {
		trace_bench_2int((int)i, i);
		__asm__ __volatile__("" ::: "memory");
	}
}

static __attribute__((noinline)) void fire_str(long n)
{
	long i;

	for (i = 0; i < n; i++) {
		trace_bench_str(str16);
		__asm__ __volatile__("" ::: "memory");
	}
}

static void fire(enum ev_kind ev, long n)
{
	if (ev == EV_2INT)
		fire_2int(n);
	else
		fire_str(n);
}

/* ---- clocks ------------------------------------------------------------ */

static volatile uint64_t sink;

static double time_gettime(clockid_t id, long n)
{
	double t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		sink = slim_clock_gettime_ns(id);
	return (now_ns() - t0) / n;
}

static double time_rdtsc(long n)
{
	double t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		sink = slim_clock_cycles();
	return (now_ns() - t0) / n;
}

static double time_slim_now(long n)
{
	double t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		sink = slim_clock_now(slim_bufset_top.clock);
	return (now_ns() - t0) / n;
}

/* A control with no shared resource: integer work, about one clock read long. */
static double time_alu(long n)
{
	double t0 = now_ns();
	uint64_t x = 1;
	long i;
	int j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < 8; j++)
			x = x * 6364136223846793005ull + 1;
		sink = x;
	}
	return (now_ns() - t0) / n;
}

/*
 * The same reads on two threads at once: whether the machine itself lets
 * two threads read the clock twice as often (a VM may not), which bounds
 * how two recording threads can scale.
 */
struct par_reader {
	pthread_t tid;
	int what;		/* 0 rdtsc, 1 clock_gettime, 2 integer work */
	long n;
	pthread_barrier_t *start;
	double ns;
};

static double time_read(int what, long n)
{
	if (what == 0)
		return time_rdtsc(n);
	if (what == 1)
		return time_gettime(CLOCK_MONOTONIC, n);
	return time_alu(n);
}

static void *par_reader_main(void *arg)
{
	struct par_reader *p = arg;

	pthread_barrier_wait(p->start);
	p->ns = time_read(p->what, p->n);
	return NULL;
}

/* ns per read and thread, nthr threads at once. */
static double time_parallel(int what, int nthr, long n)
{
	struct par_reader p[MAX_THREADS];
	pthread_barrier_t start;
	double sum = 0;
	int i, err;

	pthread_barrier_init(&start, NULL, nthr);
	for (i = 0; i < nthr; i++) {
		p[i] = (struct par_reader){ .what = what, .n = n, .start = &start };
		err = pthread_create(&p[i].tid, NULL, par_reader_main, &p[i]);
		if (err)
			die("pthread_create", err);
	}
	for (i = 0; i < nthr; i++) {
		pthread_join(p[i].tid, NULL);
		sum += p[i].ns;
	}
	pthread_barrier_destroy(&start);
	return sum / nthr;
}

static void bench_clock_parallel(void)
{
	static const char *const names[] = { "rdtsc", "clock_gettime_mono", "integer_work" };
	double one[3][MAX_RUNS], two[3][MAX_RUNS];
	int r, i;

	for (r = 0; r < nr_runs; r++) {
		for (i = 0; i < 3; i++) {
			one[i][r] = time_parallel(i, 1, nr_events);
			two[i][r] = time_parallel(i, 2, nr_events);
		}
	}
	for (i = 0; i < 3; i++) {
		printf("slim parallel name=%s", names[i]);
		print_runs("ns1", one[i], nr_runs);
		print_runs("ns2", two[i], nr_runs);
		printf("\n");
	}
}

/* Select a clock for recording; the buffers are emptied, as on a switch. */
static void select_clock(const struct clock_cfg *c)
{
	int ret;

	if (strcmp(c->trace_clock, "mono") == 0) {
		ret = slim_clock_mono_use_tsc(c->mono_tsc);
		if (ret)
			die("slim_clock_mono_use_tsc", ret);
	}
	ctl("trace_clock", c->trace_clock);
	ctl("trace", "");
}

static void find_usable_clocks(void)
{
	int i;

	for (i = 0; i < NR_CLOCKS; i++) {
		if (clocks[i].mono_tsc && slim_clock_mono_use_tsc(1) == -ENODEV) {
			clocks[i].usable = 0;
			printf("slim clock name=%s SKIP (no invariant cycle counter)\n",
			       clocks[i].name);
		}
		if (strcmp(clocks[i].name, "tsc") == 0 && !SLIM_CLOCK_HAVE_COUNTER) {
			clocks[i].usable = 0;
			printf("slim clock name=tsc SKIP (no cycle counter)\n");
		}
	}
}

/* The -c clock, or mono on the cycle counter where there is one. */
static const struct clock_cfg *mono_clock(void)
{
	int i;

	for (i = 0; only_clock && i < NR_CLOCKS; i++)
		if (clocks[i].usable && strcmp(only_clock, clocks[i].name) == 0)
			return &clocks[i];
	return clocks[0].usable ? &clocks[0] : &clocks[1];
}

static void bench_clock(void)
{
	double v[3 + NR_CLOCKS][MAX_RUNS];
	int r, i;

	for (r = 0; r < nr_runs; r++) {
		v[0][r] = time_gettime(CLOCK_MONOTONIC, nr_events);
		v[1][r] = time_gettime(CLOCK_MONOTONIC_RAW, nr_events);
		v[2][r] = time_rdtsc(nr_events);
		for (i = 0; i < NR_CLOCKS; i++) {
			if (!clocks[i].usable)
				continue;
			select_clock(&clocks[i]);
			v[3 + i][r] = time_slim_now(nr_events);
		}
	}
	printf("slim clock name=clock_gettime_mono");
	print_runs("ns", v[0], nr_runs);
	printf("\nslim clock name=clock_gettime_mono_raw");
	print_runs("ns", v[1], nr_runs);
	printf("\nslim clock name=rdtsc");
	print_runs("ns", v[2], nr_runs);
	printf("\n");
	for (i = 0; i < NR_CLOCKS; i++) {
		if (!clocks[i].usable)
			continue;
		printf("slim clock name=slim_clock_now:%s", clocks[i].name);
		print_runs("ns", v[3 + i], nr_runs);
		printf("\n");
	}
	bench_clock_parallel();
}

/* ---- disabled tracepoint vs empty loop ---------------------------------- */

static double time_loop(void (*fn)(long), long n)
{
	double t0 = now_ns();

	fn(n);
	return (now_ns() - t0) / n;
}

static void bench_loop(void)
{
	double empty[MAX_RUNS], disabled[MAX_RUNS];
	long n = nr_events * 25;
	int r;

	if (trace_bench_2int_enabled()) {
		fprintf(stderr, "record_bench: bench_2int is enabled; the loop needs it off\n");
		exit(1);
	}
	fire_empty(n / 10);	/* warm up */
	fire_2int(n / 10);
	/* Alternate the order, so that neither always runs first. */
	for (r = 0; r < nr_runs; r++) {
		if (r & 1) {
			disabled[r] = time_loop(fire_2int, n);
			empty[r] = time_loop(fire_empty, n);
		} else {
			empty[r] = time_loop(fire_empty, n);
			disabled[r] = time_loop(fire_2int, n);
		}
	}
	printf("slim loop iters=%ld", n);
	print_runs("empty", empty, nr_runs);
	print_runs("disabled", disabled, nr_runs);
	printf("\n");
}

/* ---- the floor: what recording an event must do at the least ---------- */

/*
 * rdtsc and three stores (a header word with the stamp, a, b) into a
 * page-sized ring of its own: the loop a record path is measured
 * against (issue 12's "floor"), in the same process and run.  Not
 * static: the compiler would otherwise drop stores nothing reads.
 */
uint64_t floor_ring[SLIM_RB_PAGE_SIZE / 8];

static __attribute__((noinline)) void fire_floor(long n)
{
	unsigned int off = 0;
	long i;

	for (i = 0; i < n; i++) {
		uint64_t ts = slim_clock_cycles();

		floor_ring[off] = ts << 5 | 7;
		floor_ring[off + 1] = (uint64_t)i;
		floor_ring[off + 2] = (uint64_t)i;
		off = off + 6 <= SLIM_RB_PAGE_SIZE / 8 ? off + 3 : 0;
		__asm__ __volatile__("" ::: "memory");
	}
}

static void bench_floor(void)
{
	double ns[MAX_RUNS];
	int r;

	fire_floor(nr_events / 10);	/* warm up */
	for (r = 0; r < nr_runs; r++)
		ns[r] = time_loop(fire_floor, nr_events);
	printf("slim floor events=%ld", nr_events);
	print_runs("ns", ns, nr_runs);
	printf("\n");
}

/* ---- recording --------------------------------------------------------- */

struct worker {
	pthread_t tid;
	enum ev_kind ev;
	long n;
	pthread_barrier_t *start;
	double t0, t1;
};

struct run {
	double ns;		/* per event, mean of the threads' */
	double mev;		/* all threads' events / wall time, in M/s */
	uint64_t written;
	uint64_t lost;
};

/*
 * One event before the start, so that each thread holds its own buffer
 * (the first event claims it), and no thread leaves before all are done:
 * on a busy machine a thread scheduled late would otherwise take over the
 * buffer of one that had finished, and find it full.
 */
static void *worker_main(void *arg)
{
	struct worker *w = arg;

	fire(w->ev, 1);
	pthread_barrier_wait(w->start);
	w->t0 = now_ns();
	fire(w->ev, w->n);
	w->t1 = now_ns();
	pthread_barrier_wait(w->start);
	return NULL;
}

static void counts(uint64_t *written, uint64_t *lost)
{
	struct slim_rb_stats st;

	slim_bufset_stats(&slim_bufset_top, &st);
	*written = st.written;
	*lost = st.lost;
}

/* One run: each of nthr new threads records 1 + nr_events events. */
static void run_once(enum ev_kind ev, int nthr, struct run *res)
{
	struct worker w[MAX_THREADS];
	pthread_barrier_t start;
	double first = 0, last = 0, sum = 0;
	uint64_t wr0, lost0, wr1, lost1;
	int i, err;

	ctl("trace", "");
	counts(&wr0, &lost0);
	pthread_barrier_init(&start, NULL, nthr);
	for (i = 0; i < nthr; i++) {
		w[i] = (struct worker){ .ev = ev, .n = nr_events, .start = &start };
		err = pthread_create(&w[i].tid, NULL, worker_main, &w[i]);
		if (err)
			die("pthread_create", err);
	}
	for (i = 0; i < nthr; i++) {
		pthread_join(w[i].tid, NULL);
		sum += (w[i].t1 - w[i].t0) / nr_events;
		if (i == 0 || w[i].t0 < first)
			first = w[i].t0;
		if (i == 0 || w[i].t1 > last)
			last = w[i].t1;
	}
	pthread_barrier_destroy(&start);
	counts(&wr1, &lost1);
	res->ns = sum / nthr;
	res->mev = nthr * nr_events / (last - first) * 1e3;
	res->written = wr1 - wr0;
	res->lost = lost1 - lost0;
}

/*
 * Every event fired must be accounted for, and recorded when the filter
 * lets it: otherwise a broken path would pass for a fast one.
 */
static void check_run(const char *what, const struct run *res, uint64_t fired,
		      int passes)
{
	int ok = passes ? res->written > 0 && res->written + res->lost == fired
			: res->written == 0;

	if (!ok) {
		fprintf(stderr, "record_bench: %s: fired %llu, written %llu, lost %llu\n",
			what, (unsigned long long)fired,
			(unsigned long long)res->written, (unsigned long long)res->lost);
		exit(1);
	}
}

/* Drop mode, and room for every event of a run in each thread's buffer. */
static unsigned long setup_buffers(void)
{
	/* bench_str takes 40 bytes with its header: 102 to a 4 KiB page. */
	unsigned long kb = (nr_events / 100 + 16) * 4;
	char text[32];

	ctl("trace_options", "nooverwrite");
	snprintf(text, sizeof(text), "%lu", kb);
	ctl("buffer_size_kb", text);
	return kb;
}

struct rec_cfg {
	enum ev_kind ev;
	int nthr;
	int clock;
	double ns[MAX_RUNS], mev[MAX_RUNS];
	uint64_t fired, written, lost;
};

static void rec_cfg_run(struct rec_cfg *c, int keep, int r)
{
	struct run res;
	char what[64];

	select_clock(&clocks[c->clock]);
	run_once(c->ev, c->nthr, &res);
	snprintf(what, sizeof(what), "%s %dthr %s", ev_names[c->ev], c->nthr,
		 clocks[c->clock].name);
	check_run(what, &res, (uint64_t)c->nthr * (nr_events + 1), 1);
	if (!keep)
		return;
	c->ns[r] = res.ns;
	c->mev[r] = res.mev;
	c->fired += (uint64_t)c->nthr * (nr_events + 1);
	c->written += res.written;
	c->lost += res.lost;
}

static void bench_record(void)
{
	static struct rec_cfg cfg[NR_CLOCKS * 4];
	unsigned long kb = setup_buffers();
	int n = 0, i, r, ck, ev, thr;

	for (ck = 0; ck < NR_CLOCKS; ck++)
		for (ev = EV_2INT; ev <= EV_STR; ev++)
			for (thr = 1; thr <= MAX_THREADS; thr++) {
				if (!clocks[ck].usable || (only_clock &&
				    strcmp(only_clock, clocks[ck].name) != 0))
					continue;
				cfg[n++] = (struct rec_cfg){ .ev = ev, .nthr = thr, .clock = ck };
			}
	ctl("events/bench/enable", "1");
	/* A round that warms (and faults in) both buffers, not counted. */
	for (i = 0; i < n; i++)
		rec_cfg_run(&cfg[i], 0, 0);
	for (r = 0; r < nr_runs; r++)
		for (i = 0; i < n; i++)
			rec_cfg_run(&cfg[i], 1, r);
	ctl("events/bench/enable", "0");
	for (i = 0; i < n; i++) {
		printf("slim record ev=%s thr=%d clock=%s events=%ld buffer_size_kb=%lu"
		       " fired=%llu written=%llu lost=%llu", ev_names[cfg[i].ev],
		       cfg[i].nthr, clocks[cfg[i].clock].name, nr_events, kb,
		       (unsigned long long)cfg[i].fired,
		       (unsigned long long)cfg[i].written,
		       (unsigned long long)cfg[i].lost);
		print_runs("ns", cfg[i].ns, nr_runs);
		print_runs("mev", cfg[i].mev, nr_runs);
		printf("\n");
	}
}

/* ---- filters ----------------------------------------------------------- */

static const struct {
	const char *name;
	const char *expr;	/* "0" clears */
	int passes;
} filters[] = {
	{ "none", "0", 1 },
	{ "pred1", "a >= 0", 1 },
	{ "pred5", "a >= 0 && b >= 0 && a != -1 && b != -2 && a < 2147483647", 1 },
	{ "reject", "a < 0", 0 },
};
#define NR_FILTERS	(int)(sizeof(filters) / sizeof(filters[0]))

static void bench_filter(void)
{
	double ns[NR_FILTERS][MAX_RUNS];
	uint64_t written[NR_FILTERS] = { 0 };
	unsigned long kb = setup_buffers();
	struct run res;
	int r, i;

	(void)kb;
	select_clock(mono_clock());
	ctl("events/bench/bench_2int/enable", "1");
	for (r = -1; r < nr_runs; r++) {	/* round -1 warms up */
		for (i = 0; i < NR_FILTERS; i++) {
			ctl("events/bench/bench_2int/filter", filters[i].expr);
			run_once(EV_2INT, 1, &res);
			check_run(filters[i].name, &res, nr_events + 1,
				  filters[i].passes);
			if (r < 0)
				continue;
			ns[i][r] = res.ns;
			written[i] += res.written;
		}
	}
	ctl("events/bench/bench_2int/filter", "0");
	ctl("events/bench/bench_2int/enable", "0");
	for (i = 0; i < NR_FILTERS; i++) {
		printf("slim filter kind=%s clock=%s events=%ld written=%llu",
		       filters[i].name, mono_clock()->name,
		       nr_events, (unsigned long long)written[i]);
		print_runs("ns", ns[i], nr_runs);
		printf(" expr=\"%s\"\n", filters[i].expr);
	}
}

/* ---- sessions: instances and consumers ---------------------------------- */

static uint64_t consumed;

static void noop_consumer(const struct slim_event *ev, const void *rec, unsigned int len,
			  uint64_t ts, void *data)
{
	(void)ev, (void)rec, (void)len, (void)ts, (void)data;
}

static const struct {
	const char *name;
	int top, instance, consumer;
} sessions[] = {
	{ "top", 1, 0, 0 },
	{ "top+instance", 1, 1, 0 },
	{ "consumer", 0, 0, 1 },
	{ "top+consumer", 1, 0, 1 },
};
#define NR_SESSIONS	(int)(sizeof(sessions) / sizeof(sessions[0]))

static void sessions_set(int i, int on)
{
	const char *v = on ? "1" : "0";
	int ret;

	if (sessions[i].top)
		ctl("events/bench/bench_2int/enable", v);
	if (sessions[i].instance)
		ctl("instances/bench/events/bench/bench_2int/enable", v);
	if (!sessions[i].consumer)
		return;
	ret = on ? slim_consumer_attach_name("bench:bench_2int", noop_consumer, NULL, NULL)
		 : slim_consumer_detach_name("bench:bench_2int", noop_consumer, NULL);
	if (ret)
		die("consumer", ret);
}

/* Every event reached each target: the top level, the instance, the consumer. */
static void sessions_check(int i, const struct run *res)
{
	struct slim_consumer_stats st = { 0 };
	uint64_t fired = nr_events + 1;

	if (sessions[i].consumer &&
	    slim_consumer_stats(slim_event_find("bench", "bench_2int"), noop_consumer,
				NULL, &st) == 0)
		consumed = st.passed;
	check_run(sessions[i].name, res, fired, sessions[i].top);
	if (sessions[i].consumer && consumed != fired) {
		fprintf(stderr, "record_bench: %s: fired %llu, consumed %llu\n",
			sessions[i].name, (unsigned long long)fired,
			(unsigned long long)consumed);
		exit(1);
	}
}

static void bench_sessions(void)
{
	double ns[NR_SESSIONS][MAX_RUNS];
	unsigned long kb = setup_buffers();
	char text[32];
	struct run res;
	int r, i, ret;

	ret = slim_ctl_mkdir("instances/bench");
	if (ret)
		die("mkdir instances/bench", ret);
	snprintf(text, sizeof(text), "%lu", kb);
	ctl("instances/bench/buffer_size_kb", text);
	ctl("instances/bench/trace_options", "nooverwrite");
	select_clock(mono_clock());
	ctl("instances/bench/trace_clock", clocks[mono_clock() - clocks].trace_clock);
	for (r = -1; r < nr_runs; r++) {	/* round -1 warms up */
		for (i = 0; i < NR_SESSIONS; i++) {
			sessions_set(i, 1);
			ctl("instances/bench/trace", "");
			run_once(EV_2INT, 1, &res);
			sessions_check(i, &res);
			sessions_set(i, 0);
			if (r >= 0)
				ns[i][r] = res.ns;
		}
	}
	slim_ctl_rmdir("instances/bench");
	for (i = 0; i < NR_SESSIONS; i++) {
		printf("slim sessions kind=%s clock=%s events=%ld", sessions[i].name,
		       mono_clock()->name, nr_events);
		print_runs("ns", ns[i], nr_runs);
		printf("\n");
	}
}

/* ---- memory ------------------------------------------------------------ */

static long rss_kb(void)
{
	long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &resident) != 2)
		resident = -1;
	fclose(f);
	return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

struct mem_worker {
	pthread_t tid;
	long n;			/* events to record; 0: an idle thread */
	pthread_barrier_t *done;	/* recorded: main measures */
	pthread_barrier_t *leave;	/* measured: the thread may exit */
};

static void *mem_worker_main(void *arg)
{
	struct mem_worker *w = arg;

	fire_2int(w->n);
	pthread_barrier_wait(w->done);
	pthread_barrier_wait(w->leave);
	return NULL;
}

/* RSS that nthr threads recording n events each add while they live. */
static long rss_growth(int nthr, long n)
{
	struct mem_worker w[MAX_THREADS];
	pthread_barrier_t done, leave;
	long before, after;
	int i, err;

	pthread_barrier_init(&done, NULL, nthr + 1);
	pthread_barrier_init(&leave, NULL, nthr + 1);
	before = rss_kb();
	for (i = 0; i < nthr; i++) {
		w[i] = (struct mem_worker){ .n = n, .done = &done, .leave = &leave };
		err = pthread_create(&w[i].tid, NULL, mem_worker_main, &w[i]);
		if (err)
			die("pthread_create", err);
	}
	pthread_barrier_wait(&done);
	after = rss_kb();
	pthread_barrier_wait(&leave);
	for (i = 0; i < nthr; i++)
		pthread_join(w[i].tid, NULL);
	pthread_barrier_destroy(&done);
	pthread_barrier_destroy(&leave);
	return after - before;
}

/*
 * Default settings (overwrite mode, default buffer_size_kb).  Idle threads
 * go first: glibc keeps exited threads' stacks for the next threads, so
 * what the recording threads add is what recording costs, stacks aside.
 * The first recording thread also pays the library's one-time state; the
 * second of the two that record together takes a new buffer, the first
 * reuses the one the earlier thread handed back.
 */
static void bench_memory(void)
{
	char *kb = slim_ctl_read("buffer_size_kb");
	/* Enough to wrap the buffer twice: every page is touched. */
	long n = (kb ? atol(kb) : 1024) * 1024 / 32 * 2 + 1000;
	long stacks, first, second;

	ctl("events/bench/bench_2int/enable", "1");
	stacks = rss_growth(2, 0);
	rss_growth(1, 0);
	first = rss_growth(1, n);
	second = rss_growth(2, n);
	printf("slim memory buffer_size_kb=%ld events_per_thread=%ld"
	       " idle_threads_rss_kb=%ld first_recording_thread_rss_kb=%ld"
	       " next_recording_thread_rss_kb=%ld\n", kb ? atol(kb) : -1, n,
	       stacks, first, second);
	ctl("events/bench/bench_2int/enable", "0");
	free(kb);
}

/* ---- profile: one thread, nothing else, for callgrind ------------------- */

static void profile(const char *what, long n)
{
	select_clock(mono_clock());
	if (strncmp(what, "2int", 4) == 0) {
		/* 2int-f1, -f5, -f0: the filter bench's pred1, pred5, reject */
		static const char *const kinds[] = { "2int", "2int-f1", "2int-f5", "2int-f0" };
		int k;

		for (k = 0; k < 4 && strcmp(what, kinds[k]) != 0; k++)
			;
		if (k == 4) {
			fprintf(stderr, "record_bench: profile: unknown event '%s'\n", what);
			exit(2);
		}
		ctl("events/bench/bench_2int/enable", "1");
		if (k)
			ctl("events/bench/bench_2int/filter", filters[k].expr);
		fire_2int(10);	/* the thread's first event claims its buffer */
		fire_2int(n);
	} else if (strcmp(what, "floor") == 0) {
		fire_floor(10);
		fire_floor(n);
	} else if (strcmp(what, "str") == 0) {
		ctl("events/bench/bench_str/enable", "1");
		fire_str(10);
		fire_str(n);
	} else {
		fprintf(stderr, "record_bench: profile: unknown event '%s'\n", what);
		exit(2);
	}
	printf("slim profile ev=%s events=%ld clock=%s\n", what, n,
	       mono_clock()->name);
}

/* ---- main -------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr, "usage: record_bench [-c CLOCK] [-e EVENTS] [-r RUNS] "
		"clock|loop|record|filter|memory|sessions...\n"
		"       record_bench profile 2int|2int-f1|2int-f5|2int-f0|str|floor N\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int opt, i;

	while ((opt = getopt(argc, argv, "c:e:r:")) != -1) {
		if (opt == 'c')
			only_clock = optarg;
		else if (opt == 'e')
			nr_events = atol(optarg);
		else if (opt == 'r')
			nr_runs = atoi(optarg);
		else
			usage();
	}
	if (optind >= argc || nr_events < 1000 || nr_runs < 1 || nr_runs > MAX_RUNS)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	find_usable_clocks();
	if (strcmp(argv[optind], "profile") == 0) {
		if (argc - optind != 3)
			usage();
		profile(argv[optind + 1], atol(argv[optind + 2]));
		return 0;
	}
	for (i = optind; i < argc; i++) {
		if (strcmp(argv[i], "clock") == 0)
			bench_clock();
		else if (strcmp(argv[i], "loop") == 0)
			bench_loop();
		else if (strcmp(argv[i], "record") == 0)
			bench_record();
		else if (strcmp(argv[i], "filter") == 0)
			bench_filter();
		else if (strcmp(argv[i], "memory") == 0)
			bench_memory();
		else if (strcmp(argv[i], "sessions") == 0)
			bench_sessions();
		else if (strcmp(argv[i], "floor") == 0)
			bench_floor();
		else
			usage();
	}
	return 0;
}
