/* SPDX-License-Identifier: MIT */
/* Values the control files, the environment and the CLI share (src/ctl/parse.c). */
#ifndef SLIM_CTL_PARSE_H
#define SLIM_CTL_PARSE_H

#pragma GCC visibility push(hidden)

/* The kernel's limits for buffer_size_kb, here: 4 KiB to 4 GiB a buffer. */
#define SLIM_BUFFER_KB_MIN	4ul
#define SLIM_BUFFER_KB_MAX	(4ul << 20)

/*
 * A buffer_size_kb value ("64", blanks around allowed) into pages: 0, or
 * -EINVAL with *why saying what is wrong with it.
 */
int slim_parse_buffer_kb(const char *text, unsigned int *pages, const char **why);

#pragma GCC visibility pop

#endif
