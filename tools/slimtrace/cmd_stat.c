// SPDX-License-Identifier: MIT
/*
 * slimtrace stat: what a trace holds.  Events per event, per thread and
 * per buffer (CPU), the events lost (counted in the pages and in the
 * statistics the recorder saved), and the time the trace covers.  Every
 * page is read and checked, so stat also validates a file.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include "cli.h"

struct thread_count {
	int pid;
	unsigned long long count;
};

/* pid -> count, open addressing; slot pid -1 is free. */
struct threads {
	struct thread_count *slot;
	size_t size, used;
};

static int threads_grow(struct threads *th)
{
	struct threads n = { .size = th->size ? th->size * 2 : 64 };
	size_t i;

	n.slot = malloc(n.size * sizeof(*n.slot));
	if (!n.slot)
		return -1;
	for (i = 0; i < n.size; i++)
		n.slot[i].pid = -1;
	for (i = 0; i < th->size; i++) {
		struct thread_count *s = &th->slot[i];
		size_t h;

		if (s->pid < 0)
			continue;
		for (h = (size_t)s->pid * 2654435761u % n.size; n.slot[h].pid >= 0; h = (h + 1) % n.size)
			;
		n.slot[h] = *s;
		n.used++;
	}
	free(th->slot);
	*th = n;
	return 0;
}

static int threads_add(struct threads *th, int pid)
{
	size_t h;

	if (pid < 0)
		pid = 0;
	if ((th->used + 1) * 2 > th->size && threads_grow(th))
		return -1;
	for (h = (size_t)pid * 2654435761u % th->size; th->slot[h].pid >= 0; h = (h + 1) % th->size)
		if (th->slot[h].pid == pid)
			break;
	if (th->slot[h].pid < 0) {
		th->slot[h].pid = pid;
		th->slot[h].count = 0;
		th->used++;
	}
	th->slot[h].count++;
	return 0;
}

static int by_count(const void *a, const void *b)
{
	const struct thread_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int by_event_count(const void *a, const void *b)
{
	const struct tdat_event *x = *(const struct tdat_event *const *)a;
	const struct tdat_event *y = *(const struct tdat_event *const *)b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return (x->id > y->id) - (x->id < y->id);
}

struct totals {
	unsigned long long events, lost;
	unsigned long long first, last;
	int any, lost_unknown;
};

static void print_stat_value(long long v)
{
	if (v < 0)
		printf(" %9s", "-");
	else
		printf(" %9lld", v);
}

/* Walk one CPU, counting; 0 or -1 with t->err set. */
static int walk_cpu(struct tdat *t, struct tdat_cursor *c, struct threads *th, struct totals *tot)
{
	struct tdat_record r;
	struct tep_record rec;
	int ret;

	while ((ret = tdat_cursor_next(c, &r)) > 0) {
		if (!tot->any || r.ts < tot->first)
			tot->first = r.ts;
		if (!tot->any || r.ts > tot->last)
			tot->last = r.ts;
		tot->any = 1;
		if (!r.event->selected)
			continue;
		r.event->count++;
		tot->events++;
		memset(&rec, 0, sizeof(rec));
		rec.data = (void *)r.data;
		rec.size = r.size;
		if (threads_add(th, tep_data_pid(t->tep, &rec))) {
			snprintf(t->err, sizeof(t->err), "out of memory");
			return -1;
		}
	}
	return ret;
}

static void print_summary(struct tdat *t, struct totals *tot)
{
	char a[32], b[32];
	unsigned long long d = tot->last - tot->first;

	int i;

	printf("file:      %s (trace.dat v%d%s%s, %s-endian, %u-byte pages)\n", t->path,
	       t->version, t->version == 7 ? ", compression " : "",
	       t->version == 7 ? t->compression : "", t->big_endian ? "big" : "little", t->page_size);
	printf("clock:     %s\n", t->clock[0] ? t->clock : "(not recorded)");
	printf("buffers:   %d\n", t->nr_cpus);
	if (t->nr_buffers)
		printf("instances: %d (version 6: not read, only the top buffer is)\n", t->nr_buffers);
	for (i = 0; i < t->nr_bufs; i++)
		if (t->buffers[i].name[0])
			printf("instance:  %s\n", t->buffers[i].name);
	printf("events:    %llu recorded, %llu%s lost\n", tot->events, tot->lost + t->lost_nobuf,
	       tot->lost_unknown ? "+ (some pages lost an unknown number)" : "");
	if (t->lost_nobuf)
		printf("no buffer: %llu events lost for want of a buffer (in none of the CPUs below)\n",
		       t->lost_nobuf);
	if (!tot->any) {
		printf("duration:  (no events)\n");
		return;
	}
	cli_format_ts(t, tot->first, a, sizeof(a));
	cli_format_ts(t, tot->last, b, sizeof(b));
	if (t->clock_in_ns)
		printf("duration:  %llu.%09llu s (%s to %s)\n", d / 1000000000ULL, d % 1000000000ULL, a, b);
	else
		printf("duration:  %llu ticks (%s to %s)\n", d, a, b);
}

static void print_events(struct tdat *t)
{
	struct tdat_event **v = malloc((t->nr_events ? t->nr_events : 1) * sizeof(*v));
	int i, n = 0;

	if (!v)
		return;
	for (i = 0; i < t->nr_events; i++)
		if (t->events[i].count)
			v[n++] = &t->events[i];
	qsort(v, n, sizeof(*v), by_event_count);
	printf("\n%10s  %s\n", "events", "event");
	for (i = 0; i < n; i++)
		printf("%10llu  %s:%s\n", v[i]->count, v[i]->system, v[i]->name);
	free(v);
}

static void print_threads(struct tdat *t, struct threads *th)
{
	size_t i, n = 0;

	for (i = 0; i < th->size; i++)
		if (th->slot[i].pid >= 0)
			th->slot[n++] = th->slot[i];
	if (n)
		qsort(th->slot, n, sizeof(*th->slot), by_count);
	printf("\n%10s  %s\n", "events", "thread");
	for (i = 0; i < n; i++)
		printf("%10llu  %s-%d\n", th->slot[i].count,
		       tep_data_comm_from_pid(t->tep, th->slot[i].pid), th->slot[i].pid);
}

static int run(struct tdat *t)
{
	struct tdat_cursor *cur = calloc(t->nr_cpus ? t->nr_cpus : 1, sizeof(*cur));
	struct threads th = { 0 };
	struct totals tot = { 0 };
	int i, ret = 0;

	if (!cur)
		return cli_fail("out of memory");
	for (i = 0; i < t->nr_cpus && !ret; i++) {
		if (tdat_cursor_init(&cur[i], t, i) || walk_cpu(t, &cur[i], &th, &tot))
			ret = cli_fail("%s: %s", t->path, t->err);
		tot.lost += tdat_cpu_lost(&cur[i], &t->cpus[i].stat);
		tot.lost_unknown |= cur[i].lost_unknown;
	}
	if (!ret) {
		print_summary(t, &tot);
		printf("\n%4s %10s %10s %9s %9s %9s\n", "cpu", "events", "lost", "pages",
		       "overrun", "dropped");
		for (i = 0; i < t->nr_cpus; i++) {
			printf("%4d %10llu %9llu%s %9llu", t->cpus[i].cpu, cur[i].records, cur[i].lost,
			       cur[i].lost_unknown ? "+" : " ", cur[i].pages);
			print_stat_value(t->cpus[i].stat.overrun);
			print_stat_value(t->cpus[i].stat.dropped);
			if (*tdat_buffer_name(t, i))
				printf("  %s", tdat_buffer_name(t, i));
			putchar('\n');
		}
		print_events(t);
		print_threads(t, &th);
		ret = cli_cut_short(t);
	}
	for (i = 0; i < t->nr_cpus; i++)
		tdat_cursor_fini(&cur[i]);
	free(cur);
	free(th.slot);
	return ret;
}

int cmd_stat(int argc, char **argv)
{
	struct cli_opts o;
	struct tdat t;
	struct tdat_open_flags fl = { .no_plugins = 1 };
	int ret;

	ret = cli_parse(&o, "stat", "i:e:", argc, argv);
	if (ret) {
		cli_opts_free(&o);
		return ret < 0 ? 0 : ret;
	}
	if (cli_open(&t, o.file, &fl)) {
		cli_opts_free(&o);
		return EXIT_FAIL;
	}
	if (tdat_select_events(&t, o.events))
		ret = cli_fail("%s: stat -e: %s", o.file, t.err);
	else
		ret = run(&t);
	tdat_close(&t);
	cli_opts_free(&o);
	return ret;
}
