/* SPDX-License-Identifier: MIT */
/*
 * Minimal test harness: every test binary counts its checks and ends
 * with one "RESULT name passed failed" line that tests/run.sh adds up.
 */
#ifndef SLIM_TESTS_CHECK_H
#define SLIM_TESTS_CHECK_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int check_passed, check_failed;

static inline int check_report(int ok, const char *what, const char *file, int line)
{
	if (ok)
		check_passed++;
	else {
		check_failed++;
		fprintf(stderr, "FAIL %s:%d: %s\n", file, line, what);
	}
	return ok;
}

#define CHECK(cond) check_report(!!(cond), #cond, __FILE__, __LINE__)

#define CHECK_EQ_INT(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (!check_report(_a == _b, #a " == " #b, __FILE__, __LINE__))	\
		fprintf(stderr, "     got %lld, want %lld\n", _a, _b);	\
} while (0)

#define CHECK_EQ_STR(a, b) do {						\
	const char *_a = (a), *_b = (b);				\
	int _ok = _a && _b && strcmp(_a, _b) == 0;			\
	if (!check_report(_ok, #a " == " #b, __FILE__, __LINE__))	\
		fprintf(stderr, "     got \"%s\"\n    want \"%s\"\n",	\
			_a ? _a : "(null)", _b ? _b : "(null)");	\
} while (0)

/*
 * A hang becomes a failure: after `seconds`, the test says which one
 * hung and exits non-zero (tests/run.sh also bounds each binary).  A
 * forked child that should not inherit it calls check_watchdog(0).
 */
static const char *check_watchdog_name = "test";

static void check_watchdog_fired(int sig)
{
	static const char msg[] = "FAIL watchdog: hung (timed out): ";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0 ||
	    write(2, check_watchdog_name, strlen(check_watchdog_name)) < 0 ||
	    write(2, "\n", 1) < 0)
		_exit(125);
	_exit(124);
}

static inline void check_watchdog(const char *name, unsigned int seconds)
{
	check_watchdog_name = name;
	signal(SIGALRM, check_watchdog_fired);
	alarm(seconds);
}

static inline int check_done(const char *name)
{
	printf("RESULT %s %d %d\n", name, check_passed, check_failed);
	return check_failed ? 1 : 0;
}

#endif
