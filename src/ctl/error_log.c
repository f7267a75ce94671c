// SPDX-License-Identifier: MIT
/*
 * error_log: the last errors of control writes, each with the command and
 * a caret under the offending spot, in the kernel's layout:
 *
 *   [   12.345678] event filter parse error: error: Field not found
 *     Command: a == 1
 *              ^
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <slimtrace/output.h>
#include "ctl/error_log.h"

#define NR_ERRORS	16

struct err_entry {
	uint64_t ns;
	char *loc, *msg, *cmd;
	int pos;
};

static struct err_entry errors[NR_ERRORS];
static unsigned int nr_errors;	/* ever logged */

static void entry_free(struct err_entry *e)
{
	free(e->loc);
	free(e->msg);
	free(e->cmd);
	memset(e, 0, sizeof(*e));
}

void slim_error_log(const char *loc, const char *msg, const char *cmd, int pos)
{
	struct err_entry *e = &errors[nr_errors++ % NR_ERRORS];
	struct timespec ts;

	entry_free(e);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	e->ns = (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
	e->loc = strdup(loc);
	e->msg = strdup(msg);
	e->cmd = strndup(cmd ? cmd : "", 256);
	e->pos = pos;
}

void slim_error_log_clear(void)
{
	unsigned int i;

	for (i = 0; i < NR_ERRORS; i++)
		entry_free(&errors[i]);
	nr_errors = 0;
}

int slim_error_log_print(struct slim_seq *s)
{
	unsigned int i = nr_errors > NR_ERRORS ? nr_errors - NR_ERRORS : 0;

	for (; i < nr_errors; i++) {
		struct err_entry *e = &errors[i % NR_ERRORS];

		slim_seq_printf(s, "[%5llu.%06llu] %s: error: %s\n  Command: %s\n",
				(unsigned long long)(e->ns / 1000000000),
				(unsigned long long)(e->ns % 1000000000 / 1000),
				e->loc ? e->loc : "", e->msg ? e->msg : "",
				e->cmd ? e->cmd : "");
		if (e->pos >= 0)
			slim_seq_printf(s, "%*s^\n", 11 + e->pos, "");
	}
	return 0;
}
