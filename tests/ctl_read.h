/* SPDX-License-Identifier: MIT */
/* What the control-file tests share: the text of a file, kept a while. */
#ifndef SLIM_TESTS_CTL_READ_H
#define SLIM_TESTS_CTL_READ_H

#include <stdlib.h>
#include <slimtrace/ctl.h>

/* A control file's text, or "(null)"; the last four stay valid. */
static inline char *rd(const char *path)
{
	static char *last[4];
	static int i;

	i = (i + 1) % 4;
	free(last[i]);
	last[i] = slim_ctl_read(path);
	return last[i] ? last[i] : "(null)";
}

#endif
