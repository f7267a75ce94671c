// SPDX-License-Identifier: MIT
/*
 * slimtrace demo: a toy server records its requests with kernel-style
 * trace events, then reads its own tracing files as one would read
 * /sys/kernel/tracing.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <slimtrace/ctl.h>
#include "demo_events.h"

static const char *paths[] = { "/index.html", "/api/users", "/static/app.js" };

static void *worker(void *arg)
{
	int base = (int)(long)arg, i;

	for (i = 0; i < 3; i++) {
		int id = base + i;

		trace_demo_request(id, paths[i], i == 1 ? DEMO_PUT : DEMO_GET | DEMO_CACHED);
		trace_demo_parse(id, 10 + i);
		trace_demo_reply(id, 100 * (i + 1));
	}
	return NULL;
}

static void show(const char *path)
{
	char *text = slim_ctl_read(path);

	printf("$ cat %s\n%s\n", path, text ? text : "(error)");
	free(text);
}

static void run(const char *what, const char *path, const char *text)
{
	int ret = slim_ctl_write(path, text);

	printf("$ echo '%s' > %s%s%s\n", text, path, ret ? "   # refused: " : "",
	       ret ? what : "");
}

int main(void)
{
	pthread_t th[2];
	long i;

	show("available_events");
	run("", "set_event", "demo:*");
	run("", "events/demo/demo_parse/filter", "usecs > 10");
	run("filter refused", "events/demo/demo_reply/filter", "usecs > ");
	show("events/demo/demo_request/format");
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, worker, (void *)(i * 100));
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	show("trace");
	show("error_log");
	return 0;
}
