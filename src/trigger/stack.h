/* SPDX-License-Identifier: MIT */
/* The stacktrace trigger's record (src/trigger/user_stack.c). */
#ifndef SLIM_TRIGGER_STACK_H
#define SLIM_TRIGGER_STACK_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

struct slim_bufset;
struct slim_seq;

/* When the trigger is set, not on the record path: 0 or -ENOTSUP. */
int slim_user_stack_prepare(void);
/* The calling thread's stack as a record in its buffer of bs. */
void slim_user_stack_record(struct slim_bufset *bs);
/* ftrace:user_stack's id, and its line in `trace` (after the context). */
int slim_user_stack_type(void);
int slim_user_stack_print(struct slim_seq *s, const void *rec, unsigned int len);

#pragma GCC visibility pop

#endif
