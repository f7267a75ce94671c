/* SPDX-License-Identifier: MIT */
#ifndef SLIM_ERROR_LOG_H
#define SLIM_ERROR_LOG_H

/* Internal: reached directly, not through the GOT, from the library. */
#pragma GCC visibility push(hidden)

struct slim_seq;

/* pos: the caret's column in cmd, or -1 for none.  Caller holds the ctl lock. */
void slim_error_log(const char *loc, const char *msg, const char *cmd, int pos);
void slim_error_log_clear(void);
int slim_error_log_print(struct slim_seq *s);

#pragma GCC visibility pop

#endif
