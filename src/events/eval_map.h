/* SPDX-License-Identifier: MIT */
#ifndef SLIM_EVAL_MAP_H
#define SLIM_EVAL_MAP_H

#include <slimtrace/event.h>

#pragma GCC visibility push(hidden)

/*
 * fmt with the values of the maps of system written in place of their
 * names (malloc'd), or NULL when there is nothing to replace.
 */
char *slim_eval_print_fmt(const char *fmt, const char *system,
			  const struct slim_eval_map *start, const struct slim_eval_map *stop);

#pragma GCC visibility pop

#endif
