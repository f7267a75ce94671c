// SPDX-License-Identifier: MIT
/*
 * slimtrace convert: a trace.dat in another viewer's format.  The
 * formats are a table: a name, what the output is, and the exporter that
 * writes it (export_*.c); docs/formats.md says which viewer takes which.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "export.h"

struct convert_format {
	const char *name;
	int (*run)(struct tdat *t, const char *out, const struct export_opts *o);
	const char *out;		/* what OUT names */
	int slices;			/* takes --slice */
};

static const struct convert_format formats[] = {
	{ "ctf", export_ctf, "a new (or empty) directory", 0 },
	{ "perfetto", export_perfetto, "a file", 1 },
	{ NULL, NULL, NULL, 0 }
};

static const struct convert_format *find_format(const char *name)
{
	const struct convert_format *f;

	for (f = formats; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
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

static int names(FILE *f)
{
	const struct convert_format *fmt;

	for (fmt = formats; fmt->name; fmt++)
		fprintf(f, "%s%s", fmt == formats ? "" : ", ", fmt->name);
	return 0;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "to", required_argument, NULL, 't' },
		{ "slice", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	const struct convert_format *fmt = NULL;
	struct export_opts xo = { 0 };
	struct tdat_open_flags fl = { .no_plugins = 1 };
	const char *events = NULL;
	struct tdat t;
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":he:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_usage("convert", stdout);
			return 0;
		case 't':
			fmt = find_format(optarg);
			if (!fmt) {
				fprintf(stderr, "slimtrace convert: --to '%s': no such format (formats: ", optarg);
				names(stderr);
				fprintf(stderr, ")\n");
				return EXIT_USAGE;
			}
			break;
		case 's':
			if ((ret = parse_slice(&xo, optarg)))
				return ret;
			break;
		case 'e':
			if (events)
				return cli_bad_usage("convert", "-e given twice: list the events in one -e");
			events = optarg;
			break;
		case ':':
			return cli_bad_usage("convert", "option '%s' needs an argument", argv[optind - 1]);
		default:
			if (optopt)
				return cli_bad_usage("convert", "unknown option '-%c'", optopt);
			return cli_bad_usage("convert", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!fmt)
		return cli_bad_usage("convert", "which format? --to is needed");
	if (argc - optind != 2)
		return cli_bad_usage("convert", "expected the input trace.dat and the output (%s)", fmt->out);
	if (xo.slice_start && !fmt->slices)
		return cli_bad_usage("convert", "--slice is for --to perfetto");
	if (cli_open(&t, argv[optind], &fl))
		return EXIT_FAIL;
	if (tdat_select_events(&t, events))
		ret = cli_fail("%s: convert -e: %s", t.path, t.err);
	else
		ret = fmt->run(&t, argv[optind + 1], &xo);
	tdat_close(&t);
	return ret;
}
