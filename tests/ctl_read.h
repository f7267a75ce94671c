/* SPDX-License-Identifier: MIT */
/* What the control-file tests share: the text of a file, kept a while. */
#ifndef SLIM_TESTS_CTL_READ_H
#define SLIM_TESTS_CTL_READ_H

#include <stdlib.h>
#include <string.h>
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

/* How many times what occurs in text, not overlapping. */
static inline int count(const char *text, const char *what)
{
	int n = 0;

	while (text && (text = strstr(text, what))) {
		n++;
		text += strlen(what);
	}
	return n;
}

#endif
