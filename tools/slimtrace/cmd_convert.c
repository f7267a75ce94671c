// SPDX-License-Identifier: MIT
/*
 * slimtrace convert IN OUT: rewrite a trace in another form.  An output
 * format is a line of the table below: its name for --to, what OUT
 * names, which options apply, and the function that writes an open
 * trace.dat as that (tdat_write.c, export_*.c); docs/formats.md says
 * which viewer takes which.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "export.h"
#include "tdat_write.h"

struct convert_opts {
	const char *in, *out, *events;
	struct tdat_write_opts w;
	struct export_opts x;
	int version_given, compression_given;
};

/* Write t as the format; 0 or an exit code (the message said). */
typedef int (*convert_fn)(struct tdat *t, const struct convert_opts *co);

static int to_tdat(struct tdat *t, const struct convert_opts *co)
{
	char err[512];

	if (tdat_write(t, co->out, &co->w, err, sizeof(err)))
		return cli_fail("convert: %s: %s", co->out, err);
	return 0;
}

static int to_ctf(struct tdat *t, const struct convert_opts *co)
{
	return export_ctf(t, co->out, &co->x);
}

static int to_perfetto(struct tdat *t, const struct convert_opts *co)
{
	return export_perfetto(t, co->out, &co->x);
}

struct convert_format {
	const char *name;
	convert_fn write;
	const char *out;	/* what OUT names */
	unsigned takes_version:1;	/* --file-version and --compression */
	unsigned takes_events:1;	/* -e */
	unsigned takes_slices:1;	/* --slice */
};

static const struct convert_format formats[] = {
	{ "trace.dat", to_tdat, "a file", 1, 0, 0 },
	{ "ctf", to_ctf, "a new (or empty) directory", 0, 1, 0 },
	{ "perfetto", to_perfetto, "a file", 0, 1, 1 },
	{ NULL, NULL, NULL, 0, 0, 0 }
};

static const struct convert_format *find_format(const char *name)
{
	const struct convert_format *f;

	for (f = formats; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

int cli_rewrite(const char *in, const char *out, const struct tdat_write_opts *w)
{
	struct convert_opts co = { .in = in, .out = out, .w = *w };
	struct tdat_open_flags fl = { .no_plugins = 1 };
	struct tdat t;
	int ret;

	if (cli_open(&t, in, &fl))
		return EXIT_FAIL;
	ret = to_tdat(&t, &co);
	/* What was cut short is still cut short in the copy: say so. */
	if (!ret && cli_cut_short(&t))
		ret = EXIT_FAIL;
	tdat_close(&t);
	return ret;
}

/* "START,END[,KEY]" into the options; the string is kept (argv). */
static int parse_slice(struct export_opts *xo, char *arg)
{
	char *end = strchr(arg, ','), *key;

	if (!end || end == arg || !end[1] || end[1] == ',')
		return cli_bad_usage("convert", "--slice '%s': expected START_EVENT,END_EVENT[,KEY_FIELD]", arg);
	*end++ = '\0';
	key = strchr(end, ',');
	if (key) {
		*key++ = '\0';
		if (!*key || strchr(key, ','))
			return cli_bad_usage("convert", "--slice: expected START_EVENT,END_EVENT[,KEY_FIELD]");
	}
	xo->slice_start = arg;
	xo->slice_end = end;
	xo->slice_key = key;
	return 0;
}

static int no_format(const char *name)
{
	const struct convert_format *f;

	fprintf(stderr, "slimtrace convert: --to '%s': no such output format (formats: ", name);
	for (f = formats; f->name; f++)
		fprintf(stderr, "%s%s", f == formats ? "" : ", ", f->name);
	fprintf(stderr, ")\n");
	return EXIT_USAGE;
}

static int parse_opt(struct convert_opts *co, const struct convert_format **fmt, int c,
		     int argc, char **argv)
{
	(void)argc;
	switch (c) {
	case 'V':
		if (strcmp(optarg, "6") && strcmp(optarg, "7"))
			return cli_bad_usage("convert", "--file-version '%s': 6 or 7", optarg);
		co->w.version = optarg[0] - '0';
		co->version_given = 1;
		return 0;
	case 'c':
		if (strcmp(optarg, "zstd") && strcmp(optarg, "none"))
			return cli_bad_usage("convert", "--compression '%s': zstd or none", optarg);
		co->w.zstd = !strcmp(optarg, "zstd");
		co->compression_given = 1;
		return 0;
	case 't':
		*fmt = find_format(optarg);
		return *fmt ? 0 : no_format(optarg);
	case 's':
		return parse_slice(&co->x, optarg);
	case 'e':
		if (co->events)
			return cli_bad_usage("convert", "-e given twice: list the events in one -e");
		co->events = optarg;
		return 0;
	case ':':
		return cli_bad_usage("convert", "option '%s' needs an argument", argv[optind - 1]);
	default:
		if (optopt)
			return cli_bad_usage("convert", "unknown option '-%c'", optopt);
		return cli_bad_usage("convert", "unknown option '%s'", argv[optind - 1]);
	}
}

/* The options that do not apply to the format are refused, not ignored. */
static int check(const struct convert_opts *co, const struct convert_format *fmt)
{
	if (!fmt->takes_version && (co->version_given || co->compression_given))
		return cli_bad_usage("convert", "--file-version and --compression are for --to trace.dat");
	if (!fmt->takes_events && co->events)
		return cli_bad_usage("convert", "-e is for --to ctf and --to perfetto "
				     "(a rewritten trace.dat keeps every event)");
	if (!fmt->takes_slices && co->x.slice_start)
		return cli_bad_usage("convert", "--slice is for --to perfetto");
	/* Compression needs version 7; asked without a version, it implies it. */
	if (co->w.zstd && co->version_given && co->w.version == 6)
		return cli_bad_usage("convert", "--compression zstd needs --file-version 7 "
				     "(version 6 has no compression)");
	if (!strcmp(co->in, co->out))
		return cli_bad_usage("convert", "IN and OUT are the same file");
	return 0;
}

static int parse(struct convert_opts *co, const struct convert_format **fmt, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "file-version", required_argument, NULL, 'V' },
		{ "compression", required_argument, NULL, 'c' },
		{ "to", required_argument, NULL, 't' },
		{ "slice", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":he:", longopts, NULL)) != -1) {
		if (c == 'h') {
			cli_usage("convert", stdout);
			return -1;
		}
		if ((ret = parse_opt(co, fmt, c, argc, argv)))
			return ret;
	}
	if (argc - optind != 2)
		return cli_bad_usage("convert", "wanted IN and OUT (%s), got %d file name%s",
				     (*fmt)->out, argc - optind, argc - optind == 1 ? "" : "s");
	co->in = argv[optind];
	co->out = argv[optind + 1];
	return check(co, *fmt);
}

int cmd_convert(int argc, char **argv)
{
	struct convert_opts co = { .w = { .version = 7 } };
	const struct convert_format *fmt = &formats[0];
	struct tdat_open_flags fl = { .no_plugins = 1 };
	struct tdat t;
	int ret = parse(&co, &fmt, argc, argv);

	if (ret)
		return ret < 0 ? 0 : ret;
	if (cli_open(&t, co.in, &fl))
		return EXIT_FAIL;
	if (co.events && tdat_select_events(&t, co.events))
		ret = cli_fail("%s: convert -e: %s", t.path, t.err);
	else
		ret = fmt->write(&t, &co);
	if (!ret && cli_cut_short(&t))
		ret = EXIT_FAIL;
	tdat_close(&t);
	return ret;
}
