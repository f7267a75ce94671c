/* SPDX-License-Identifier: MIT */
/*
 * Writing an open trace.dat out again: version 6 or 7, version 7 with
 * its sections compressed by zstd or not.  The metadata, the options
 * and every page are carried over as they are (byte order included);
 * only the framing changes.
 */
#ifndef SLIMTRACE_CLI_TDAT_WRITE_H
#define SLIMTRACE_CLI_TDAT_WRITE_H

#include <stddef.h>
#include "tdat.h"

struct tdat_write_opts {
	int version;		/* 6 or 7 */
	int zstd;		/* version 7 only */
	int level;		/* zstd's level, 0: its default */
};

/*
 * Write t to path (through path.part, renamed when whole).  0, or -1 with
 * err set.  A version 6 file holds one buffer: more than one with data
 * is an error.
 */
int tdat_write(struct tdat *t, const char *path, const struct tdat_write_opts *o,
	       char *err, size_t errlen);

#endif
