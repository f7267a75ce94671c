// SPDX-License-Identifier: MIT
/*
 * What KernelShark shows of a trace.dat, as text: its library (libkshark,
 * Debian's libkshark-dev) opens the file as the GUI does and loads every
 * entry; one line per entry, tab-separated:
 *     time-ns cpu pid task event info
 * test_kernelshark compares the lines with `slimtrace report`.
 */
#include <stdio.h>
#include <stdlib.h>
#include "libkshark.h"

int main(int argc, char **argv)
{
	struct kshark_context *ctx = NULL;
	struct kshark_entry **rows = NULL;
	ssize_t n, i;
	int sd;

	if (argc != 2) {
		fprintf(stderr, "usage: ks_dump FILE\n");
		return 2;
	}
	if (!kshark_instance(&ctx)) {
		fprintf(stderr, "ks_dump: no KernelShark context\n");
		return 1;
	}
	sd = kshark_open(ctx, argv[1]);
	if (sd < 0) {
		fprintf(stderr, "ks_dump: KernelShark cannot open %s (%d)\n", argv[1], sd);
		kshark_free(ctx);
		return 1;
	}
	n = kshark_load_entries(ctx, sd, &rows);
	if (n < 0) {
		fprintf(stderr, "ks_dump: KernelShark loads no entries from %s (%zd)\n", argv[1], n);
		kshark_free(ctx);
		return 1;
	}
	for (i = 0; i < n; i++) {
		char *name = kshark_get_event_name(rows[i]);
		char *task = kshark_get_task(rows[i]);
		char *info = kshark_get_info(rows[i]);

		printf("%lld\t%d\t%d\t%s\t%s\t%s\n", (long long)rows[i]->ts, rows[i]->cpu,
		       kshark_get_pid(rows[i]), task ? task : "", name ? name : "", info ? info : "");
		free(name);
		free(task);
		free(info);
		free(rows[i]);
	}
	free(rows);
	kshark_close_all(ctx);
	kshark_free(ctx);
	return 0;
}
