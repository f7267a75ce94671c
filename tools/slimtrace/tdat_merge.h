/* SPDX-License-Identifier: MIT */
/*
 * Several trace.dat files (one per process of record -p A -p B) as one
 * version 6 file: every buffer CPU of every input becomes a CPU of the
 * output, in input order.  Each process numbers its own events, so each
 * (input, event) gets an id of the output, the same one for the same
 * system, name and format, and common_type is rewritten in every record.
 */
#ifndef SLIMTRACE_CLI_TDAT_MERGE_H
#define SLIMTRACE_CLI_TDAT_MERGE_H

#include <stddef.h>

/* 0, or -1 with err saying why (the inputs are left as they are). */
int tdat_merge_files(const char *const *in, int n, const char *out, char *err, size_t errlen);

#endif
