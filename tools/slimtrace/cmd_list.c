// SPDX-License-Identifier: MIT
/* slimtrace list: the events a trace.dat knows, and their formats. */
#include <string.h>
#include "cli.h"

int cmd_list(int argc, char **argv)
{
	struct cli_opts o;
	struct tdat t;
	struct tdat_open_flags fl = { .no_plugins = 1 };
	int ret, i;

	ret = cli_parse(&o, "list", "i:e:f", argc, argv);
	if (ret) {
		cli_opts_free(&o);
		return ret < 0 ? 0 : ret;
	}
	if (cli_open(&t, o.file, &fl)) {
		cli_opts_free(&o);
		return EXIT_FAIL;
	}
	ret = 0;
	if (tdat_select_events(&t, o.events)) {
		ret = cli_fail("%s: list -e: %s", o.file, t.err);
		goto out;
	}
	for (i = 0; i < t.nr_events; i++) {
		const struct tdat_event *ev = &t.events[i];

		if (!ev->selected)
			continue;
		if (!o.formats) {
			printf("%s:%s\n", ev->system, ev->name);
			continue;
		}
		printf("system: %s\n", ev->system);
		fwrite(ev->format, 1, ev->format_len, stdout);
		if (ev->format_len && ev->format[ev->format_len - 1] != '\n')
			putchar('\n');
		putchar('\n');
	}
	fflush(stdout);
	ret = cli_cut_short(&t);
out:
	tdat_close(&t);
	cli_opts_free(&o);
	return ret;
}
