/* SPDX-License-Identifier: MIT */
/* error_log: one per instance, as in the kernel (src/ctl/error_log.c). */
#ifndef SLIM_ERROR_LOG_H
#define SLIM_ERROR_LOG_H

#include <stdint.h>

/* Internal: reached directly, not through the GOT, from the library. */
#pragma GCC visibility push(hidden)

struct slim_seq;

#define SLIM_ERROR_LOG_ENTRIES	16

struct slim_error_entry {
	uint64_t ns;
	char *loc, *msg, *cmd;
	int pos;
};

struct slim_error_log {
	struct slim_error_entry e[SLIM_ERROR_LOG_ENTRIES];
	unsigned int nr;	/* ever logged since the last clear */
};

/*
 * pos: the caret's column in cmd, or -1 for none.  Callers hold
 * slim_event_mutex.  A NULL log takes nothing.
 */
void slim_error_log(struct slim_error_log *log, const char *loc, const char *msg,
		    const char *cmd, int pos);
void slim_error_log_clear(struct slim_error_log *log);
int slim_error_log_print(const struct slim_error_log *log, struct slim_seq *s);

#pragma GCC visibility pop

#endif
