/* SPDX-License-Identifier: MIT */
/* The slimtrace command: what the subcommands share. */
#ifndef SLIMTRACE_CLI_H
#define SLIMTRACE_CLI_H

#include <stdio.h>
#include "tdat.h"

/* Exit codes: 0 fine, 1 the file or the program failed, 2 bad usage. */
#define EXIT_FAIL	1
#define EXIT_USAGE	2

#define DEFAULT_FILE	"trace.dat"

/* What slimtrace record was asked (cmd_record.c parses it). */
struct record_opts {
	char *events;			/* SLIMTRACE_EVENTS */
	char *filters;			/* SLIMTRACE_FILTER */
	const char *last_events;	/* the -e a -f applies to */
	const char *buffer_kb, *clock, *output;
	int overwrite, quiet;
	const char *version;		/* SLIMTRACE_FILE_VERSION */
	int zstd;			/* compress at the end */
	int pid;			/* -p: attach to this process (the first -p) */
	int pids[64], nr_pids;		/* every -p */
	int all;			/* -a: every process of this user, newcomers too */
	double duration;		/* --duration, seconds (0: until stopped) */
};

/* Read FILE back, saying what was recorded and lost per buffer; 0 or an exit code. */
int record_summarize(const char *file, int quiet, const char *events, const char *prog);
/*
 * record: a temporary file for the program's library to append what it
 * refuses to (SLIMTRACE_ERROR_FILE, tools/slimtrace/record_errors.c),
 * removed at exit; 0 or an exit code.
 */
int record_errors_setup(void);
/*
 * After the program ran: say the filters it refused, with the reason and
 * a caret, and remove the file.  RET if not 0, else EXIT_FAIL when a -f
 * given for -e events was refused, or a -f for all events fitted none.
 */
int record_errors_report(const struct record_opts *ro, const char *file, int ret);
/* record -p / -a: attach to ro->pid (or each), record into OUT (SHOWN in messages); 0 or an exit code. */
int record_attach(struct record_opts *ro, const char *out, const char *shown);

/*
 * record -- PROGRAM: each process writes OUT.PID (record_parts.c).
 * Clear: remove those of an earlier run; 0 or an exit code.  Join: make
 * them one OUT (each finished first if need be, *rebuilt then set):
 * how many there were, or minus an exit code.
 */
int record_parts_clear(const char *out);
int record_parts_join(const char *out, const char *shown, const struct record_opts *ro,
		      int killed, int *rebuilt);

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_convert(int argc, char **argv);

struct tdat_write_opts;
/* IN rewritten as OUT (trace.dat); 0 or an exit code, the reason said. */
int cli_rewrite(const char *in, const char *out, const struct tdat_write_opts *w);
int cmd_ps(int argc, char **argv);
int cmd_ctl(int argc, char **argv);
int cmd_mount(int argc, char **argv);
int cmd_recover(int argc, char **argv);

/* PATH.cpuN files beside PATH: a recording that did not finish. */
int cli_fragments(const char *path);
/* PATH rebuilt from them; 0 or EXIT_FAIL, the reason said. */
int cli_recover(const char *path, const char *shown);

struct live;
/* A pid argument: 0 and *pid, or a usage error's exit code. */
int cli_parse_pid(const char *cmd, const char *arg, int *pid);
/* A request to a running program failed: say what and why; EXIT_FAIL. */
int cli_live_failed(struct live *l, const char *what, int ret);

/* Print the usage of CMD (NULL: the command itself); 0, or -1 if unknown. */
int cli_usage(const char *cmd, FILE *f);
/* A usage error: say what and where to look; returns EXIT_USAGE. */
int cli_bad_usage(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A failure: "slimtrace: ..." on stderr; returns EXIT_FAIL. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * After reading what there is: if the data is cut short, say where on
 * stderr and return 1 (the command then exits non-zero).
 */
int cli_cut_short(const struct tdat *t);

/* Open PATH, printing the reason on failure (and closing t). */
int cli_open(struct tdat *t, const char *path, const struct tdat_open_flags *fl);

/* The options the subcommands read files with: parse, in getopt style. */
struct cli_opts {
	const char *cmd;
	const char *file;		/* the first (or only) input */
	const char **files;		/* every input, in order: -i may repeat for report */
	int nr_files;
	const char *events;		/* joined -e arguments */
	char *events_buf;
	const char **filters;		/* -F */
	int nr_filters;
	int raw, nsec, no_plugins, formats;
	int pid;			/* -p */
};

/*
 * Parse ARGV for CMD, accepting the letters in ALLOWED (of "i:e:F:RtNfp:").
 * 0, or an exit code to return.
 */
int cli_parse(struct cli_opts *o, const char *cmd, const char *allowed, int argc, char **argv);
void cli_opts_free(struct cli_opts *o);

/*
 * libtraceevent's filter parser crashes (or corrupts its heap) on some
 * malformed expressions: each of FILTERS is parsed in a child process
 * first, the way the formats are.  RES gets one result per filter.
 */
enum { CLI_FILTER_OK, CLI_FILTER_REFUSED, CLI_FILTER_CRASHED };

struct cli_filter_result {
	int status;
	int ret;			/* libtraceevent's code when REFUSED */
	char msg[200];			/* why not, when not OK */
};

struct tep_handle;
void cli_filter_probe(struct tep_handle *tep, const char *const *filters, int nr,
		      struct cli_filter_result *res);

/* "12.345678" in the report's style for a time stamp. */
void cli_format_ts(const struct tdat *t, unsigned long long ts, char *buf, size_t len);

#endif
