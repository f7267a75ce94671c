// SPDX-License-Identifier: MIT
/*
 * live_bench: what live control costs (docs/benchmarks.md, "Live
 * control"), the program behind `make bench-live`.
 *
 *   live_bench SLIMTRACE_CLI LIVE_PROG [OUTDIR]
 *
 * 1. Latency, as a client sees it (tools/slimtrace/live.c, the CLI's own
 *    client, linked in): attach (connect, HELLO, mkdir of an instance),
 *    enable (a write of set_event in it), detach (rmdir, close), against
 *    an idle live_prog; medians of LIVE_BENCH_ROUNDS rounds.
 * 2. Sustained recording of live_prog, 2 threads firing bench_2int paced
 *    to LIVE_BENCH_RATE for LIVE_BENCH_SECONDS: in-process
 *    (SLIMTRACE_OUTPUT at start-up) and attached (`slimtrace record -p`),
 *    alternating, LIVE_BENCH_RUNS runs of each; events written per second
 *    and lost, from `slimtrace stat` of each file.  PASS when the attached
 *    median is at least 0.9 of the in-process one and it lost nothing.
 *    Then one run of each way at each of LIVE_BENCH_STEPS (paced rates,
 *    "6000000 8000000"): the highest each kept with nothing lost.
 * 3. Start-up: fork + exec of `live_prog -x` (a program with events that
 *    exits at once) three ways, one after the other in each of
 *    LIVE_BENCH_STARTS rounds: SLIMTRACE_CONTROL=0, the same with one
 *    idle thread of the program's own (LIVE_PROG_FLOOR=1: the floor),
 *    the default.  Exec to main() and fork to reaped: medians, the
 *    differences within a round (median and 95 % interval), and
 *    within_noise PASS/MISS: PASS when the endpoint is not measurably
 *    dearer than the bare thread.
 *
 * Every line goes to standard output and to OUTDIR/live_results.txt.
 * Nothing judges a time except the PASS/MISS of 2 and 3; the exit status
 * is non-zero only when something could not be measured.  BENCH_QUICK=1
 * makes every part shorter; LIVE_BENCH_PARTS (latency record steps
 * startup: all by default) runs only the parts named.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "live.h"

#define EVENT		"bench:bench_2int"
#define BUFFER_KB	"4096"

static const char *cli, *prog;
static char out_dir[512], ctl_dir[64];
static FILE *results;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void result(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void result(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
	if (results) {
		va_start(ap, fmt);
		vfprintf(results, fmt, ap);
		va_end(ap);
		fflush(results);
	}
}

static void cleanup(void)
{
	char cmd[128];

	if (ctl_dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", ctl_dir);
		if (system(cmd))
			fprintf(stderr, "live_bench: could not remove %s\n", ctl_dir);
	}
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "live_bench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (results)
		fprintf(results, "live ERROR\n");
	cleanup();
	exit(1);
}

static long env_num(const char *name, long def, long quick)
{
	const char *v = getenv(name);

	if (v && *v)
		return atol(v);
	return getenv("BENCH_QUICK") && *getenv("BENCH_QUICK") ? quick : def;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median (sorts v). */
static double median(double *v, int n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), dbl_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double pct(double *v, int n, double p)
{
	qsort(v, n, sizeof(*v), dbl_cmp);
	return v[(int)((n - 1) * p)];
}

/* ---- processes ------------------------------------------------------------ */

struct proc {
	pid_t pid;
	int in;			/* its stdin */
	FILE *out;		/* its stdout */
};

/*
 * Run ARGV with its stdin and stdout on pipes; ENV ("NAME=VALUE", NULL
 * ends) set in it, every SLIMTRACE_* of a recording unset otherwise.
 * err_fd: its stderr, or -1 for ours.
 */
static void spawn(struct proc *p, const char *const argv[], const char *const env[], int err_fd)
{
	int in[2], out[2], i;

	if (pipe(in) || pipe(out))
		die("pipe: %s", strerror(errno));
	fflush(NULL);
	p->pid = fork();
	if (p->pid < 0)
		die("fork: %s", strerror(errno));
	if (p->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(in[0], 0);
		dup2(out[1], 1);
		if (err_fd >= 0)
			dup2(err_fd, 2);
		close(in[1]);
		close(out[0]);
		unsetenv("SLIMTRACE_OUTPUT");
		unsetenv("SLIMTRACE_EVENTS");
		unsetenv("SLIMTRACE_BUFFER_KB");
		unsetenv("SLIMTRACE_OVERWRITE");
		for (i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	p->in = in[1];
	p->out = fdopen(out[0], "r");
}

/* Close its stdin and reap it: its exit status. */
static int reap(struct proc *p)
{
	int status = -1;

	if (p->in >= 0)
		close(p->in);
	p->in = -1;
	while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (p->out)
		fclose(p->out);
	p->out = NULL;
	return status;
}

/* live_prog started and waiting for its line: its pid printed. */
static void start_prog(struct proc *p, const char *const argv[], const char *const env[])
{
	char line[64];

	spawn(p, argv, env, -1);
	if (!fgets(line, sizeof(line), p->out) || strncmp(line, "pid ", 4))
		die("%s did not start", prog);
}

static void go(struct proc *p)
{
	if (write(p->in, "go\n", 3) != 3)
		die("%s: cannot start it: %s", prog, strerror(errno));
}

/* ---- 1. attach, enable, detach ---------------------------------------------- */

static void connect_retry(struct live *l, int pid)
{
	int i, ret = -1;

	/* Its endpoint starts with it: give it a moment. */
	for (i = 0; i < 500 && ret; i++) {
		ret = live_open(l, pid);
		if (ret)
			poll(NULL, 0, 10);
	}
	if (ret)
		die("process %d: %s", pid, l->why);
	live_close(l);
}

static void latency(void)
{
	int rounds = (int)env_num("LIVE_BENCH_ROUNDS", 200, 50), i, warm = 10, ret;
	double *att = calloc(rounds, sizeof(double)), *en = calloc(rounds, sizeof(double));
	double *det = calloc(rounds, sizeof(double)), t0, t1, t2, t3;
	const char *const argv[] = { prog, NULL };
	struct proc p;
	struct live l;

	if (!att || !en || !det)
		die("out of memory");
	start_prog(&p, argv, NULL);
	connect_retry(&l, p.pid);
	for (i = -warm; i < rounds; i++) {
		t0 = now_ns();
		ret = live_open(&l, p.pid);
		if (!ret)
			ret = live_mkdir(&l, "instances/live_bench");
		t1 = now_ns();
		if (!ret)
			ret = live_write(&l, "instances/live_bench/set_event", EVENT, 0);
		t2 = now_ns();
		if (!ret)
			ret = live_rmdir(&l, "instances/live_bench");
		live_close(&l);
		t3 = now_ns();
		if (ret)
			die("round %d: %s", i, l.why[0] ? l.why : strerror(-ret));
		if (i < 0)
			continue;
		att[i] = (t1 - t0) / 1e3;
		en[i] = (t2 - t1) / 1e3;
		det[i] = (t3 - t2) / 1e3;
	}
	reap(&p);
	result("live latency rounds=%d attach_us=%.1f attach_p90_us=%.1f enable_us=%.1f "
	       "enable_p90_us=%.1f detach_us=%.1f detach_p90_us=%.1f\n", rounds,
	       median(att, rounds), pct(att, rounds, 0.9), median(en, rounds), pct(en, rounds, 0.9),
	       median(det, rounds), pct(det, rounds, 0.9));
	free(att);
	free(en);
	free(det);
}

/* ---- 2. sustained recording ------------------------------------------------ */

/* "recorded lost" of FILE, from slimtrace stat. */
static void stat_file(const char *file, double *rec, double *lost)
{
	char cmd[1200], line[256];
	unsigned long long r, l;
	FILE *f;
	int found = 0;

	snprintf(cmd, sizeof(cmd), "'%s' stat '%s' 2>&1", cli, file);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "events: %llu recorded, %llu lost", &r, &l) == 2)
			found = 1;
	if (f)
		pclose(f);
	if (!found)
		die("%s: slimtrace stat says no events line", file);
	*rec = (double)r;
	*lost = (double)l;
}

/* fired and seconds from live_prog's last line. */
static void fired_line(struct proc *p, double *fired, double *secs)
{
	char line[128];

	if (!fgets(line, sizeof(line), p->out) ||
	    sscanf(line, "fired=%lf seconds=%lf", fired, secs) != 2)
		die("%s printed no fired= line", prog);
}

/* One run: events written per second and lost, in *rate and *lost. */
static void record_run(int attached, const char *secs, const char *rate, double *wrate,
		       double *lost)
{
	const char *const argv[] = { prog, "-s", secs, "-r", rate, NULL };
	char file[700], env_out[800], line[512] = "";
	double fired, seconds, rec;
	struct proc p, c;
	int status;

	snprintf(file, sizeof(file), "%s/live_bench.d/%s.dat", out_dir,
		 attached ? "attached" : "inproc");
	unlink(file);
	if (!attached) {
		const char *const env[] = { env_out, "SLIMTRACE_EVENTS=" EVENT,
					    "SLIMTRACE_BUFFER_KB=" BUFFER_KB,
					    "SLIMTRACE_OVERWRITE=0", NULL };

		snprintf(env_out, sizeof(env_out), "SLIMTRACE_OUTPUT=%s", file);
		start_prog(&p, argv, env);
		go(&p);
		fired_line(&p, &fired, &seconds);
		status = reap(&p);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			die("%s exited with status %d", prog, status);
	} else {
		char spid[16];
		const char *cargv[] = { cli, "record", "-p", spid, "-e", EVENT, "-b", BUFFER_KB,
					"-o", file, NULL };
		int err[2], started = 0;
		struct live l;
		FILE *ce;

		start_prog(&p, argv, NULL);
		/* Its endpoint's thread binds the socket after main() started. */
		connect_retry(&l, p.pid);
		snprintf(spid, sizeof(spid), "%d", (int)p.pid);
		if (pipe(err))
			die("pipe: %s", strerror(errno));
		spawn(&c, cargv, NULL, err[1]);
		close(err[1]);
		ce = fdopen(err[0], "r");
		/* It says so once the program records its instance. */
		while (!started && fgets(line, sizeof(line), ce))
			started = strstr(line, "recording process") != NULL;
		if (!started)
			die("slimtrace record -p %s did not start (it said: %s)", spid, line);
		go(&p);
		fired_line(&p, &fired, &seconds);
		status = reap(&p);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			die("%s exited with status %d", prog, status);
		while (fgets(line, sizeof(line), ce))
			;
		fclose(ce);
		status = reap(&c);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			die("slimtrace record -p exited with status %d", status);
	}
	stat_file(file, &rec, lost);
	unlink(file);
	if (rec + *lost != fired)
		die("%s: fired %.0f but the file says %.0f recorded, %.0f lost",
		    attached ? "attached" : "in-process", fired, rec, *lost);
	*wrate = rec / seconds;
	result("live run %s fired=%.0f recorded=%.0f lost=%.0f seconds=%.3f "
	       "mev_written_per_s=%.3f\n", attached ? "attached" : "inproc", fired, rec, *lost,
	       seconds, *wrate / 1e6);
}

static void recording(void)
{
	int runs = (int)env_num("LIVE_BENCH_RUNS", 3, 1), i, k;
	long rate = env_num("LIVE_BENCH_RATE", 4000000, 4000000);
	long secs = env_num("LIVE_BENCH_SECONDS", 2, 1);
	double r[2][16], lo[2][16], lmax[2] = { 0, 0 }, med[2], lmed[2], ratio;
	char srate[32], ssecs[32], dir[600];

	if (runs > 16)
		runs = 16;
	snprintf(dir, sizeof(dir), "%s/live_bench.d", out_dir);
	if (mkdir(dir, 0755) && errno != EEXIST)
		die("%s: %s", dir, strerror(errno));
	snprintf(srate, sizeof(srate), "%ld", rate);
	snprintf(ssecs, sizeof(ssecs), "%ld", secs);
	for (i = 0; i < runs; i++)
		for (k = 0; k < 2; k++) {
			/* Which goes first alternates: the page cache's state is shared. */
			int attached = (i + k) % 2;

			record_run(attached, ssecs, srate, &r[attached][i], &lo[attached][i]);
			if (lo[attached][i] > lmax[attached])
				lmax[attached] = lo[attached][i];
		}
	rmdir(dir);
	for (k = 0; k < 2; k++) {
		med[k] = median(r[k], runs);
		lmed[k] = median(lo[k], runs);
	}
	ratio = med[0] > 0 ? med[1] / med[0] : 0;
	result("live record threads=2 paced_mev_per_s=%.3f seconds=%ld runs=%d buffer_size_kb=%s "
	       "inproc_mev_written_per_s=%.3f inproc_lost_median=%.0f inproc_lost_max=%.0f "
	       "attached_mev_written_per_s=%.3f attached_lost_median=%.0f attached_lost_max=%.0f "
	       "ratio=%.3f target=%s\n", rate / 1e6, secs, runs, BUFFER_KB, med[0] / 1e6, lmed[0],
	       lmax[0], med[1] / 1e6, lmed[1], lmax[1], ratio,
	       ratio >= 0.9 && lmed[1] == 0 ? "PASS" : "MISS");
}

/*
 * Higher paced rates, one run of each way per step: the highest rate
 * each way kept with nothing lost.  One run a step, so noisy (the disk's
 * writeback shares the 2 CPUs); the medians above are the figure.
 */
static void steps(void)
{
	const char *list = getenv("LIVE_BENCH_STEPS");
	double best[2] = { 0, 0 }, r, lo;
	char srate[32], ssecs[32], dir[600], *copy, *tok, *save;
	long secs = env_num("LIVE_BENCH_SECONDS", 2, 1);
	int k, i = 0;

	if (!list)
		list = getenv("BENCH_QUICK") && *getenv("BENCH_QUICK") ? "" : "6000000 8000000";
	copy = strdup(list);
	if (!copy)
		die("out of memory");
	snprintf(dir, sizeof(dir), "%s/live_bench.d", out_dir);
	if (mkdir(dir, 0755) && errno != EEXIST)
		die("%s: %s", dir, strerror(errno));
	snprintf(ssecs, sizeof(ssecs), "%ld", secs);
	for (tok = strtok_r(copy, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save), i++) {
		snprintf(srate, sizeof(srate), "%ld", atol(tok));
		for (k = 0; k < 2; k++) {
			int attached = (i + k) % 2;

			record_run(attached, ssecs, srate, &r, &lo);
			if (!lo && atol(tok) > best[attached])
				best[attached] = atol(tok);
		}
	}
	rmdir(dir);
	if (i)
		result("live steps rates=\"%s\" inproc_max_paced_mev_per_s_0_lost=%.3f "
		       "attached_max_paced_mev_per_s_0_lost=%.3f\n", list, best[0] / 1e6,
		       best[1] / 1e6);
	free(copy);
}

/* ---- 3. start-up ---------------------------------------------------------------- */

/*
 * The three ways live_prog -x is started: no endpoint, no endpoint but
 * one idle thread of its own (the floor), the default.
 */
enum { START_OFF, START_FLOOR, START_DEFAULT, NR_START };

/* One fork + exec of live_prog -x: exec to main and fork to reaped, in µs. */
static void start_once(int how, double *to_main, double *to_exit)
{
	int out[2], status;
	char line[64];
	double t0 = now_ns();
	pid_t pid;
	ssize_t n;

	if (pipe(out))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		char t[32];

		dup2(out[1], 1);
		close(out[0]);
		if (how == START_DEFAULT)
			unsetenv("SLIMTRACE_CONTROL");
		else
			setenv("SLIMTRACE_CONTROL", "0", 1);
		/* Set in every way, so that the environments are the same size. */
		setenv("LIVE_PROG_FLOOR", how == START_FLOOR ? "1" : "0", 1);
		snprintf(t, sizeof(t), "%.0f", now_ns());
		execl(prog, prog, "-x", "-m", t, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	n = read(out[0], line, sizeof(line) - 1);
	close(out[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*to_exit = (now_ns() - t0) / 1e3;
	line[n > 0 ? n : 0] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status) || sscanf(line, "main_ns=%lf", to_main) != 1)
		die("%s -x: status %d, printed '%s'", prog, status, line);
	*to_main /= 1e3;
}

/* Interquartile range (sorts v). */
static double iqr(double *v, int n)
{
	return pct(v, n, 0.75) - pct(v, n, 0.25);
}

/* A fixed-seed generator: the same rounds give the same interval. */
static unsigned int rnd(unsigned long long *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned int)(*s >> 33);
}

#define BOOT	1000

/*
 * The median of d (n values) and a 95 % interval for it, by resampling
 * the rounds with replacement (sorts d).
 */
static double median_interval(double *d, int n, double *lo, double *hi)
{
	double *m = calloc(BOOT, sizeof(double)), *r = calloc(n, sizeof(double));
	unsigned long long seed = 42;
	int i, j;

	if (!m || !r)
		die("out of memory");
	for (i = 0; i < BOOT; i++) {
		for (j = 0; j < n; j++)
			r[j] = d[rnd(&seed) % n];
		m[i] = median(r, n);
	}
	*lo = pct(m, BOOT, 0.025);
	*hi = pct(m, BOOT, 0.975);
	free(m);
	free(r);
	return median(d, n);
}

/*
 * One figure (exec to main or fork to reaped) of the three ways.  A
 * round starts each way once, one after the other, so a difference is
 * taken within a round (what the machine's other jobs did then is
 * mostly the same for the three) and the median of a difference over
 * the rounds is the figure, with its interval: the endpoint against no
 * endpoint, the bare thread against none, the endpoint against the
 * bare thread.  The IQR of one round without an endpoint is the noise
 * a single start sees.  Within noise (PASS) when the endpoint is not
 * measurably dearer than the bare thread: that interval reaches 0.
 * Below the start's IQR (PASS) when all the endpoint adds, thread
 * included, is less than that spread: the upper end of its interval.
 */
static void startup_line(const char *what, double **v, int rounds)
{
	double *d[3], med[3], lo[3], hi[3], c[NR_START], noise;
	static const int pairs[3][2] = {
		{ START_DEFAULT, START_OFF }, { START_FLOOR, START_OFF },
		{ START_DEFAULT, START_FLOOR },
	};
	double *copy = malloc(rounds * sizeof(double));
	int i, k;

	if (!copy)
		die("out of memory");
	for (k = 0; k < 3; k++) {
		d[k] = malloc(rounds * sizeof(double));
		if (!d[k])
			die("out of memory");
		for (i = 0; i < rounds; i++)
			d[k][i] = v[pairs[k][0]][i] - v[pairs[k][1]][i];
		med[k] = median_interval(d[k], rounds, &lo[k], &hi[k]);
	}
	for (k = 0; k < NR_START; k++) {
		memcpy(copy, v[k], rounds * sizeof(double));
		c[k] = median(copy, rounds);
	}
	memcpy(copy, v[START_OFF], rounds * sizeof(double));
	noise = iqr(copy, rounds);
	result("live startup %s rounds=%d control0_us=%.1f floor_us=%.1f default_us=%.1f "
	       "diff_us=%.1f diff_ci95=%.1f..%.1f floor_diff_us=%.1f floor_diff_ci95=%.1f..%.1f "
	       "over_floor_us=%.1f over_floor_ci95=%.1f..%.1f control0_iqr_us=%.1f "
	       "over_floor_of_iqr=%.3f within_noise=%s below_start_iqr=%s\n", what, rounds,
	       c[START_OFF], c[START_FLOOR], c[START_DEFAULT], med[0], lo[0], hi[0], med[1],
	       lo[1], hi[1], med[2], lo[2], hi[2], noise, noise > 0 ? med[2] / noise : 0,
	       lo[2] <= 0 ? "PASS" : "MISS", hi[0] < noise ? "PASS" : "MISS");
	for (k = 0; k < 3; k++)
		free(d[k]);
	free(copy);
}

static void startup(void)
{
	int rounds = (int)env_num("LIVE_BENCH_STARTS", 200, 50), i, k;
	double *m[NR_START], *e[NR_START], mm[NR_START], me[NR_START], x, y;

	for (k = 0; k < NR_START; k++) {
		m[k] = calloc(rounds, sizeof(double));
		e[k] = calloc(rounds, sizeof(double));
		if (!m[k] || !e[k])
			die("out of memory");
	}
	for (i = 0; i < 10; i++)
		start_once(i % NR_START, &x, &y);	/* warm the page cache */
	/* Each round starts the three ways, in an order that turns. */
	for (i = 0; i < rounds; i++)
		for (k = 0; k < NR_START; k++) {
			int how = (i + k) % NR_START;

			start_once(how, &m[how][i], &e[how][i]);
		}
	startup_line("exec_to_main", m, rounds);
	startup_line("fork_to_exit", e, rounds);
	for (k = 0; k < NR_START; k++) {
		mm[k] = median(m[k], rounds);
		me[k] = median(e[k], rounds);
	}
	result("live startup rounds=%d control0_exec_to_main_us=%.1f default_exec_to_main_us=%.1f "
	       "diff_exec_to_main_us=%.1f control0_fork_to_exit_us=%.1f "
	       "default_fork_to_exit_us=%.1f diff_fork_to_exit_us=%.1f\n", rounds,
	       mm[START_OFF], mm[START_DEFAULT], mm[START_DEFAULT] - mm[START_OFF],
	       me[START_OFF], me[START_DEFAULT], me[START_DEFAULT] - me[START_OFF]);
	for (k = 0; k < NR_START; k++) {
		free(m[k]);
		free(e[k]);
	}
}

/* LIVE_BENCH_PARTS: the parts to run, by name (all when unset). */
static int part(const char *name)
{
	const char *v = getenv("LIVE_BENCH_PARTS");

	return !v || !*v || strstr(v, name);
}

int main(int argc, char **argv)
{
	char path[700];
	double t0 = now_ns();

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: live_bench SLIMTRACE_CLI LIVE_PROG [OUTDIR]\n");
		return 2;
	}
	cli = argv[1];
	prog = argv[2];
	snprintf(out_dir, sizeof(out_dir), "%s", argc > 3 ? argv[3] : "build/bench");
	if (mkdir(out_dir, 0755) && errno != EEXIST)
		die("%s: %s", out_dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/live_results.txt", out_dir);
	results = fopen(path, "w");
	if (!results)
		die("%s: %s", path, strerror(errno));
	/* A control directory of the bench's own: other programs of this user stay out. */
	snprintf(ctl_dir, sizeof(ctl_dir), "/tmp/slimtrace-bench-XXXXXX");
	if (!mkdtemp(ctl_dir)) {
		ctl_dir[0] = '\0';
		die("mkdtemp: %s", strerror(errno));
	}
	setenv("SLIMTRACE_CONTROL_DIR", ctl_dir, 1);
	signal(SIGPIPE, SIG_IGN);
	if (part("latency"))
		latency();
	if (part("record"))
		recording();
	if (part("steps"))
		steps();
	if (part("startup"))
		startup();
	result("live seconds=%.1f\n", (now_ns() - t0) / 1e9);
	cleanup();
	fclose(results);
	return 0;
}
