// SPDX-License-Identifier: MIT
/*
 * slimtrace: record a program that links slimtrace into a trace.dat,
 * and read trace.dat files (report, list, stat), in trace-cmd's manner.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	const char *usage;
	int many_inputs;		/* -i may repeat: the files are merged */
};

static const struct command commands[] = {
	{ "record", cmd_record, "run a program and record its trace events into a trace.dat",
	  "usage: slimtrace record [-e EVENTS] [-f FILTER] [-b KB] [-C CLOCK] [-O] [-q] [-o FILE]\n"
	  "                        [--file-version 6|7] [--compression zstd|none]\n"
	  "                        -- PROGRAM [ARGS...]\n"
	  "       slimtrace record -p PID [-p PID...] [-e EVENTS] [-f FILTER] [-b KB] [-C CLOCK] [-O] [-q]\n"
	  "                        [-o FILE] [--duration SECONDS]\n"
	  "       slimtrace record -a [-e EVENTS] [-f FILTER] [-b KB] [-C CLOCK] [-O] [-q] [-o FILE]\n"
	  "                        [--duration SECONDS]\n"
	  "\n"
	  "Runs PROGRAM (which must link slimtrace) with tracing configured through\n"
	  "its environment, then reads FILE back and reports what was recorded and lost.\n"
	  "With -p, attaches to the running process PID instead: an instance of its own\n"
	  "there, recorded into FILE until Ctrl-C, --duration or the process's exit, then\n"
	  "removed; the process's own settings stay as they were.  With several -p,\n"
	  "each process records its own file and they are merged into FILE at the end.\n"
	  "With -a, the same for every slimtrace process of this user, and for those\n"
	  "that start while it runs, until Ctrl-C or --duration.\n"
	  "\n"
	  "  -e EVENTS   events to enable, set_event syntax: sys:event, sys:*, *:event,\n"
	  "              event or system, '!' to disable; may repeat (default: all)\n"
	  "  -f FILTER   filter for the events of the -e before it (default: all events);\n"
	  "              an event that refuses it is not recorded, and said so\n"
	  "  -b KB       buffer size per thread, in KiB: 4 to 4194304, as buffer_size_kb\n"
	  "  -C CLOCK    trace clock: mono, mono_raw or tsc\n"
	  "  -O          overwrite the oldest events when a buffer is full (default: drop new ones)\n"
	  "  -o FILE     output file (default: trace.dat)\n"
	  "  -q          say nothing unless something went wrong\n"
	  "  -p PID      attach to running process PID (its own SLIMTRACE_FILE_VERSION holds);\n"
	  "              may repeat (up to 64 processes, one merged version 6 file)\n"
	  "  -a          attach to every slimtrace process of this user, newcomers too\n"
	  "  --duration S        with -p or -a: stop after S seconds\n"
	  "  --file-version N    trace.dat version 6 (default) or 7\n"
	  "  --compression ALGO  zstd: compress the data once the program exits (version 7)\n", 0 },
	{ "report", cmd_report, "print the events of a trace.dat as text",
	  "usage: slimtrace report [-i FILE]... [FILE] [-e EVENTS] [-F FILTER] [-R] [-t] [-N]\n"
	  "\n"
	  "Prints every event, merged across buffers (CPUs) by time stamp:\n"
	  "  comm-pid [cpu] timestamp: event: fields\n"
	  "With several files, all of them are merged on one timeline and each line\n"
	  "starts with the file's name, as in 'trace-cmd report -i A -i B'.\n"
	  "\n"
	  "  -i FILE     a trace (default: trace.dat); may repeat\n"
	  "  -e EVENTS   only these events (set_event syntax, '!' excludes); may repeat\n"
	  "  -F FILTER   only events matching 'event[,event]: expression' (libtraceevent's\n"
	  "              filter syntax); may repeat\n"
	  "  -R          raw: every field as name=value instead of the event's format\n"
	  "  -t          time stamps in nanoseconds\n"
	  "  -N          do not load libtraceevent plugins\n", 1 },
	{ "list", cmd_list, "list the events (and formats) of a trace.dat or a running program",
	  "usage: slimtrace list [-f] [-e EVENTS] [-i FILE | FILE | -p PID]\n"
	  "\n"
	  "  -f          print each event's format as well\n"
	  "  -e EVENTS   only these events (set_event syntax)\n"
	  "  -i FILE     the trace (default: trace.dat)\n"
	  "  -p PID      the events of running process PID instead\n", 0 },
	{ "stat", cmd_stat, "count events per event, thread and buffer; lost events; duration",
	  "usage: slimtrace stat [-e EVENTS] [-i FILE | FILE]\n"
	  "\n"
	  "  -e EVENTS   count only these events (set_event syntax)\n"
	  "  -i FILE     the trace (default: trace.dat)\n", 0 },
	{ "convert", cmd_convert, "rewrite a trace.dat: version 6 or 7, or CTF or Perfetto for other viewers",
	  "usage: slimtrace convert [--to FORMAT] [OPTIONS] IN OUT\n"
	  "\n"
	  "Writes the trace IN (version 6 or 7, any compression) as OUT:\n"
	  "  --to trace.dat  (the default) the same metadata, options and pages as\n"
	  "                  version 6 or 7; version 6 holds one buffer, so a file whose\n"
	  "                  instances have data must stay version 7\n"
	  "  --to ctf        CTF 1.8 for babeltrace2 and Trace Compass: OUT is a new (or\n"
	  "                  empty) directory, with 'metadata' and one stream per CPU\n"
	  "  --to perfetto   a Perfetto protobuf trace for ui.perfetto.dev and trace\n"
	  "                  processor: OUT is a file; one track per thread\n"
	  "  (docs/formats.md says which viewer takes which)\n"
	  "\n"
	  "trace.dat:\n"
	  "  --file-version N     6 or 7 (default 7)\n"
	  "  --compression ALGO   zstd or none (default none); zstd needs version 7\n"
	  "ctf and perfetto:\n"
	  "  -e EVENTS      only these events (set_event syntax, '!' excludes)\n"
	  "  --slice START,END[,KEY]\n"
	  "                 perfetto: each START event and the END event after it (on the\n"
	  "                 same thread, or with the same value of the field KEY) become\n"
	  "                 one slice; every other event is an instant\n", 0 },
	{ "recover", cmd_recover, "rebuild a trace.dat whose program died before finishing it",
	  "usage: slimtrace recover FILE...\n"
	  "\n"
	  "FILE is what a recording left when its program was killed (SIGKILL) or\n"
	  "its final file did not fit: a trace without data, and the pages in\n"
	  "FILE.cpu0, FILE.cpu1...  They are put together into FILE, as the program\n"
	  "would have written it, and removed.  'slimtrace record' does this itself.\n", 0 },
	{ "ps", cmd_ps, "the running programs of this user that slimtrace can reach",
	  "usage: slimtrace ps\n"
	  "\n"
	  "Lists the processes of this user with a slimtrace control endpoint: pid,\n"
	  "command, events, enabled events, instances, and the files being recorded.\n", 0 },
	{ "ctl", cmd_ctl, "read or write a control file of a running program",
	  "usage: slimtrace ctl PID read|cat PATH\n"
	  "       slimtrace ctl PID write|append PATH TEXT...\n"
	  "       slimtrace ctl PID mkdir|rmdir PATH\n"
	  "       slimtrace ctl PID ls [PATH]\n"
	  "\n"
	  "PATH names a control file of process PID as under /sys/kernel/tracing\n"
	  "(set_event, events/SYS/EVENT/filter, instances/NAME/trace...).  write is\n"
	  "'echo TEXT > PATH', append 'echo TEXT >> PATH'; 'cat trace_pipe' streams\n"
	  "until interrupted.  An error exits 1 with the errno's meaning and the\n"
	  "entry it left in the process's error_log.\n", 0 },
	{ "mount", cmd_mount, "serve every running program's control files as a filesystem (FUSE)",
	  "usage: slimtrace mount DIR\n"
	  "\n"
	  "Serves DIR/PID/ for each running process of this user that links slimtrace:\n"
	  "its control files, as under /sys/kernel/tracing, so that cat, echo > and >>,\n"
	  "ls, mkdir and rmdir work on them from a shell (trace_pipe streams).  Errors\n"
	  "are the errno the process's control call returned.  Runs until DIR is\n"
	  "unmounted (fusermount3 -u DIR) or it is interrupted.  Needs /dev/fuse.\n", 0 },
	{ NULL, NULL, NULL, NULL, 0 }
};

static void main_usage(FILE *f)
{
	const struct command *c;

	fprintf(f, "usage: slimtrace COMMAND [OPTIONS]\n\ncommands:\n");
	for (c = commands; c->name; c++)
		fprintf(f, "  %-8s %s\n", c->name, c->summary);
	fprintf(f, "  %-8s %s\n", "help", "show the usage of a command");
	fprintf(f, "\n'slimtrace help COMMAND' and 'man slimtrace-COMMAND' tell more.\n");
}

int cli_usage(const char *cmd, FILE *f)
{
	const struct command *c;

	if (!cmd) {
		main_usage(f);
		return 0;
	}
	for (c = commands; c->name; c++) {
		if (!strcmp(c->name, cmd)) {
			fputs(c->usage, f);
			return 0;
		}
	}
	return -1;
}

int cli_bad_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "slimtrace%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see 'slimtrace help%s%s')\n", cmd ? " " : "", cmd ? cmd : "");
	return EXIT_USAGE;
}

int cli_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "slimtrace: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_FAIL;
}

int cli_open(struct tdat *t, const char *path, const struct tdat_open_flags *fl)
{
	if (tdat_open(t, path, fl) == 0)
		return 0;
	cli_fail("%s: %s", path, t->err);
	tdat_close(t);
	return -1;
}

int cli_cut_short(const struct tdat *t)
{
	if (!t->cut_short[0])
		return 0;
	fprintf(stderr, "slimtrace: %s: warning: the file is cut short: %s; "
		"what is before it was read\n", t->path, t->cut_short);
	return 1;
}

static int add_events(struct cli_opts *o, const char *arg)
{
	size_t old = o->events_buf ? strlen(o->events_buf) : 0;
	char *buf = realloc(o->events_buf, old + strlen(arg) + 2);

	if (!buf)
		return -1;
	if (old)
		buf[old++] = ',';
	strcpy(buf + old, arg);
	o->events_buf = buf;
	o->events = buf;
	return 0;
}

static int many_inputs(const char *cmd)
{
	const struct command *c;

	for (c = commands; c->name; c++)
		if (!strcmp(c->name, cmd))
			return c->many_inputs;
	return 0;
}

static int add_file(struct cli_opts *o, const char *path)
{
	const char **f;

	if (o->nr_files && !many_inputs(o->cmd))
		return cli_bad_usage(o->cmd, "two files: '%s' and '%s' (this command reads one)",
				     o->files[0], path);
	f = realloc(o->files, (o->nr_files + 1) * sizeof(*f));
	if (!f)
		return cli_fail("out of memory");
	o->files = f;
	o->files[o->nr_files++] = path;
	o->file = o->files[0];
	return 0;
}

int cli_parse(struct cli_opts *o, const char *cmd, const char *allowed, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char optstring[32];
	const char **f;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	snprintf(optstring, sizeof(optstring), ":h%s", allowed);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_usage(cmd, stdout);
			return -1;
		case 'i':
			ret = add_file(o, optarg);
			if (ret)
				return ret;
			break;
		case 'e':
			if (add_events(o, optarg))
				return cli_fail("out of memory");
			break;
		case 'F':
			f = realloc(o->filters, (o->nr_filters + 1) * sizeof(*f));
			if (!f)
				return cli_fail("out of memory");
			o->filters = f;
			o->filters[o->nr_filters++] = optarg;
			break;
		case 'R':
			o->raw = 1;
			break;
		case 't':
			o->nsec = 1;
			break;
		case 'N':
			o->no_plugins = 1;
			break;
		case 'f':
			o->formats = 1;
			break;
		case 'p':
			if ((c = cli_parse_pid(cmd, optarg, &o->pid)))
				return c;
			break;
		case ':':
			return cli_bad_usage(cmd, "option '%s' needs an argument", argv[optind - 1]);
		default:
			if (optopt)
				return cli_bad_usage(cmd, "unknown option '-%c'", optopt);
			return cli_bad_usage(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc && o->pid)
		return cli_bad_usage(cmd, "-p %d and a file ('%s'): one or the other", o->pid, argv[optind]);
	if (o->pid && o->nr_files)
		return cli_bad_usage(cmd, "-p %d and a file ('%s'): one or the other", o->pid, o->file);
	if (optind + 1 < argc)
		return cli_bad_usage(cmd, "two files: '%s' and '%s'%s", argv[optind], argv[optind + 1],
				     many_inputs(cmd) ? " (give each file its own -i)" : "");
	if (optind < argc && (ret = add_file(o, argv[optind])))
		return ret;
	if (!o->pid && !o->nr_files && (ret = add_file(o, DEFAULT_FILE)))
		return ret;
	return 0;
}

void cli_opts_free(struct cli_opts *o)
{
	free(o->events_buf);
	free(o->filters);
	free(o->files);
	memset(o, 0, sizeof(*o));
}

void cli_format_ts(const struct tdat *t, unsigned long long ts, char *buf, size_t len)
{
	if (t->clock_in_ns)
		snprintf(buf, len, "%llu.%06llu", ts / 1000000000ULL, (ts % 1000000000ULL) / 1000);
	else
		snprintf(buf, len, "%llu", ts);
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		main_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			main_usage(stdout);
			return 0;
		}
		if (cli_usage(argv[2], stdout))
			return cli_bad_usage(NULL, "no command '%s'", argv[2]);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("slimtrace " SLIM_VERSION "\n");
		return 0;
	}
	for (c = commands; c->name; c++)
		if (!strcmp(c->name, argv[1]))
			return c->run(argc - 1, argv + 1);
	if (argv[1][0] == '-')
		return cli_bad_usage(NULL, "unknown option '%s'", argv[1]);
	return cli_bad_usage(NULL, "no command '%s'", argv[1]);
}
