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

static void entry_free(struct slim_error_entry *e)
{
	free(e->loc);
	free(e->msg);
	free(e->cmd);
	memset(e, 0, sizeof(*e));
}

void slim_error_log(struct slim_error_log *log, const char *loc, const char *msg,
		    const char *cmd, int pos)
{
	struct slim_error_entry *e;
	struct timespec ts;

	if (!log)
		return;
	e = &log->e[log->nr++ % SLIM_ERROR_LOG_ENTRIES];
	entry_free(e);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	e->ns = (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
	e->loc = strdup(loc);
	e->msg = strdup(msg);
	e->cmd = strndup(cmd ? cmd : "", 256);
	e->pos = pos;
}

void slim_error_log_clear(struct slim_error_log *log)
{
	unsigned int i;

	for (i = 0; i < SLIM_ERROR_LOG_ENTRIES; i++)
		entry_free(&log->e[i]);
	log->nr = 0;
}

int slim_error_log_print(const struct slim_error_log *log, struct slim_seq *s)
{
	unsigned int i = log->nr > SLIM_ERROR_LOG_ENTRIES ? log->nr - SLIM_ERROR_LOG_ENTRIES : 0;

	for (; i < log->nr; i++) {
		const struct slim_error_entry *e = &log->e[i % SLIM_ERROR_LOG_ENTRIES];

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
