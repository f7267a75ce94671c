// SPDX-License-Identifier: MIT
/*
 * slimtrace report: the trace as text, one event per line, in the
 * layout of trace-cmd report so that the two can be compared line by
 * line.  Records are printed as the per-CPU cursors reach them, a page
 * at a time: a long report starts at once and needs one page per CPU.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>
#include "cli.h"

struct report {
	struct tdat *t;
	struct cli_opts *o;
	struct tep_event_filter *filter;
	struct trace_seq s;
	long long *pending_missed;	/* per CPU, for records not printed */
	const char *time_fmt;
};

/*
 * libtraceevent turns a comparison with a field the event does not have
 * into FALSE without a word: say so rather than print nothing.
 */
static int warn_false_filters(struct report *rp)
{
	struct tdat *t = rp->t;
	char *text;
	int i;

	for (i = 0; i < t->nr_events; i++) {
		if (!tep_event_filtered(rp->filter, t->events[i].id))
			continue;
		text = tep_filter_make_string(rp->filter, t->events[i].id);
		if (text && !strcmp(text, "FALSE"))
			fprintf(stderr, "slimtrace: report: warning: the filter of %s:%s is always false "
				"(a field it does not have?)\n", t->events[i].system, t->events[i].name);
		free(text);
	}
	return 0;
}

static int setup_filters(struct report *rp)
{
	char msg[256];
	enum tep_errno ret;
	int i;

	if (!rp->o->nr_filters)
		return 0;
	rp->filter = tep_filter_alloc(rp->t->tep);
	if (!rp->filter)
		return cli_fail("out of memory");
	for (i = 0; i < rp->o->nr_filters; i++) {
		ret = tep_filter_add_filter_str(rp->filter, rp->o->filters[i]);
		if (ret < 0) {
			tep_filter_strerror(rp->filter, ret, msg, sizeof(msg));
			return cli_fail("report: -F '%s': %s", rp->o->filters[i], msg);
		}
	}
	return warn_false_filters(rp);
}

static int wanted(struct report *rp, struct tep_record *rec, const struct tdat_record *r)
{
	if (!r->event->selected)
		return 0;
	if (rp->filter && tep_filter_match(rp->filter, rec) != TEP_ERRNO__FILTER_MATCH)
		return 0;
	return 1;
}

/* Lost events are announced before the next record printed for the CPU. */
static void print_missed(struct report *rp, const struct tdat_record *r)
{
	long long missed = rp->pending_missed[r->slot];

	rp->pending_missed[r->slot] = 0;
	if (missed > 0)
		printf("CPU:%d [%lld EVENTS DROPPED]\n", r->cpu, missed);
	else if (missed < 0)
		printf("CPU:%d [EVENTS DROPPED]\n", r->cpu);
}

static void note_missed(struct report *rp, const struct tdat_record *r)
{
	long long *p = &rp->pending_missed[r->slot];

	if (r->missed < 0 || *p < 0)
		*p = -1;
	else
		*p += r->missed;
}

static void print_record(struct report *rp, struct tep_record *rec, const struct tdat_record *r)
{
	struct trace_seq *s = &rp->s;
	const char *name = r->event->name;
	int len = (int)strlen(name);

	trace_seq_reset(s);
	tep_print_event(rp->t->tep, s, rec, "%16s-%-5d [%03d]", TEP_PRINT_COMM, TEP_PRINT_PID,
			TEP_PRINT_CPU);
	tep_print_event(rp->t->tep, s, rec, rp->time_fmt, TEP_PRINT_TIME);
	trace_seq_printf(s, " %s: %*s", name, len < 20 ? 20 - len : 0, "");
	tep_print_event(rp->t->tep, s, rec, "%s", rp->o->raw ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
	trace_seq_terminate(s);
	while (s->len && s->buffer[s->len - 1] == '\n')
		s->len--;
	fwrite(s->buffer, 1, s->len, stdout);
	fputc('\n', stdout);
}

static int run(struct report *rp)
{
	struct tdat_merge m;
	struct tdat_record r;
	struct tep_record rec;
	int ret;

	if (tdat_merge_init(&m, rp->t)) {
		tdat_merge_fini(&m);
		return cli_fail("%s: %s", rp->t->path, rp->t->err);
	}
	if (rp->t->nr_buffers)
		fprintf(stderr, "slimtrace: %s: %d version 6 instance buffer%s not shown: "
			"only the top buffer is read\n",
			rp->t->path, rp->t->nr_buffers, rp->t->nr_buffers == 1 ? "" : "s");
	printf("cpus=%d\n", rp->t->cpu_count ? rp->t->cpu_count : rp->t->nr_cpus);
	while ((ret = tdat_merge_next(&m, &r)) > 0) {
		memset(&rec, 0, sizeof(rec));
		rec.ts = r.ts;
		rec.offset = r.offset;
		rec.missed_events = r.missed;
		rec.record_size = r.size;
		rec.size = r.size;
		rec.data = (void *)r.data;
		rec.cpu = r.cpu;
		rec.locked = 1;
		note_missed(rp, &r);
		if (!wanted(rp, &rec, &r))
			continue;
		/*
		 * An instance's records start with its name, as in trace-cmd
		 * report: before the lost-events notice when there is one.
		 */
		if (*tdat_buffer_name(rp->t, r.slot))
			printf("%s: ", tdat_buffer_name(rp->t, r.slot));
		print_missed(rp, &r);
		print_record(rp, &rec, &r);
	}
	fflush(stdout);
	if (ret < 0)
		cli_fail("%s: %s", rp->t->path, rp->t->err);
	tdat_merge_fini(&m);
	if (ret >= 0 && cli_cut_short(rp->t))
		return EXIT_FAIL;
	return ret < 0 ? EXIT_FAIL : 0;
}

int cmd_report(int argc, char **argv)
{
	struct cli_opts o;
	struct tdat t;
	struct tdat_open_flags fl = { 0 };
	struct report rp = { .t = &t, .o = &o };
	int ret;

	ret = cli_parse(&o, "report", "i:e:F:RtN", argc, argv);
	if (ret) {
		cli_opts_free(&o);
		return ret < 0 ? 0 : ret;
	}
	fl.no_plugins = o.no_plugins;
	fl.nsec = o.nsec;
	if (cli_open(&t, o.file, &fl)) {
		cli_opts_free(&o);
		return EXIT_FAIL;
	}
	ret = EXIT_FAIL;
	if (tdat_select_events(&t, o.events)) {
		cli_fail("%s: report -e: %s", o.file, t.err);
		goto out;
	}
	if (setup_filters(&rp))
		goto out;
	rp.pending_missed = calloc(t.nr_cpus ? t.nr_cpus : 1, sizeof(*rp.pending_missed));
	if (!rp.pending_missed) {
		cli_fail("out of memory");
		goto out;
	}
	if (!t.clock_in_ns)
		rp.time_fmt = "%12d:";
	else
		rp.time_fmt = o.nsec ? " %9.1d:" : " %6.1000d:";
	trace_seq_init(&rp.s);
	ret = run(&rp);
	trace_seq_destroy(&rp.s);
out:
	free(rp.pending_missed);
	if (rp.filter)
		tep_filter_free(rp.filter);
	tdat_close(&t);
	cli_opts_free(&o);
	return ret;
}
