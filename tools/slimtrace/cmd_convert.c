// SPDX-License-Identifier: MIT
/*
 * slimtrace convert IN OUT: rewrite a trace in another form.  An output
 * format is a line of the table below: its name for --to, and the
 * function that writes an open trace.dat as that.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "tdat_write.h"

struct convert_opts {
	const char *in, *out, *to;
	struct tdat_write_opts w;
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

static const struct {
	const char *name;
	convert_fn write;
	int takes_version;	/* --file-version and --compression apply */
} formats[] = {
	{ "trace.dat", to_tdat, 1 },
};

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

static int parse(struct convert_opts *co, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "file-version", required_argument, NULL, 'V' },
		{ "compression", required_argument, NULL, 'c' },
		{ "to", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_usage("convert", stdout);
			return -1;
		case 'V':
			if (strcmp(optarg, "6") && strcmp(optarg, "7"))
				return cli_bad_usage("convert", "--file-version '%s': 6 or 7", optarg);
			co->w.version = optarg[0] - '0';
			co->version_given = 1;
			break;
		case 'c':
			if (strcmp(optarg, "zstd") && strcmp(optarg, "none"))
				return cli_bad_usage("convert", "--compression '%s': zstd or none", optarg);
			co->w.zstd = !strcmp(optarg, "zstd");
			co->compression_given = 1;
			break;
		case 't':
			co->to = optarg;
			break;
		case ':':
			return cli_bad_usage("convert", "option '%s' needs an argument", argv[optind - 1]);
		default:
			return cli_bad_usage("convert", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return cli_bad_usage("convert", "wanted IN and OUT, got %d file name%s",
				     argc - optind, argc - optind == 1 ? "" : "s");
	co->in = argv[optind];
	co->out = argv[optind + 1];
	return 0;
}

int cmd_convert(int argc, char **argv)
{
	struct convert_opts co = { .to = "trace.dat", .w = { .version = 7 } };
	struct tdat_open_flags fl = { .no_plugins = 1 };
	struct tdat t;
	size_t i;
	int ret = parse(&co, argc, argv);

	if (ret)
		return ret < 0 ? 0 : ret;
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i].name, co.to))
			break;
	if (i == sizeof(formats) / sizeof(formats[0]))
		return cli_bad_usage("convert", "--to '%s': no such output format", co.to);
	if (!formats[i].takes_version && (co.version_given || co.compression_given))
		return cli_bad_usage("convert", "--file-version and --compression are for trace.dat");
	/* Compression needs version 7; asked without a version, it implies it. */
	if (co.w.zstd && co.version_given && co.w.version == 6)
		return cli_bad_usage("convert", "--compression zstd needs --file-version 7 "
				     "(version 6 has no compression)");
	if (!strcmp(co.in, co.out))
		return cli_bad_usage("convert", "IN and OUT are the same file");
	if (cli_open(&t, co.in, &fl))
		return EXIT_FAIL;
	ret = formats[i].write(&t, &co);
	if (!ret && cli_cut_short(&t))
		ret = EXIT_FAIL;
	tdat_close(&t);
	return ret;
}
