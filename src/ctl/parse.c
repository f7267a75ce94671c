// SPDX-License-Identifier: MIT
/*
 * Values the control files, the environment and the slimtrace command
 * share, so that each refuses the same text with the same words.  libc
 * only: the command compiles this file too (tools/slimtrace.mk).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include "ctl/parse.h"

int slim_parse_buffer_kb(const char *text, unsigned int *pages, const char **why)
{
	const char *v = text, *end;
	unsigned long kb;
	char *stop;

	/* Blanks around, as echo leaves them; nothing else. */
	while (isspace((unsigned char)*v))
		v++;
	if (!isdigit((unsigned char)*v)) {
		*why = "Invalid value: expected a size in KiB";
		return -EINVAL;
	}
	errno = 0;
	kb = strtoul(v, &stop, 10);
	for (end = stop; isspace((unsigned char)*end); end++)
		;
	if (*end) {
		*why = "Invalid value: expected a size in KiB";
		return -EINVAL;
	}
	/* Checked in KiB, before any page count is made of it: it cannot wrap. */
	if (errno == ERANGE || kb < SLIM_BUFFER_KB_MIN || kb > SLIM_BUFFER_KB_MAX) {
		*why = "Size out of range (4 KiB to 4 GiB)";
		return -EINVAL;
	}
	*pages = (unsigned int)((kb + 3) / 4);
	return 0;
}
