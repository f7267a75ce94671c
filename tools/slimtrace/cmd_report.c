// SPDX-License-Identifier: MIT
/*
 * slimtrace report: the trace as text, one event per line, in the
 * layout of trace-cmd report so that the two can be compared line by
 * line.  Records are printed as the per-CPU cursors reach them, a page
 * at a time: a long report starts at once and needs one page per CPU.
 *
 * Several files (-i A -i B) are merged on one timeline the way
 * trace-cmd merges them: each file's CPUs by time stamp, then the files
 * by time stamp with ties to the file named first, every line prefixed
 * with the file's name.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>
#include "cli.h"

/* One input file and where its merge stands. */
struct input {
	struct tdat t;
	const char *name;		/* basename, for the line prefix */
	struct tep_event_filter *filter;
	long long *pending_missed;	/* per CPU, for records not printed */
	struct tdat_merge m;
	struct tdat_record next;	/* peeked, valid until m moves on */
	int has_next;
	int opened, merging;
	const char *time_fmt;		/* the file's clock: ns or counter ticks */
};

struct report {
	struct cli_opts *o;
	struct input *in;
	int nr_in;
	int prefix_width;		/* 0: one file, no prefix */
	struct trace_seq s;
};

static void print_prefix(const struct report *rp, const struct input *in)
{
	if (rp->prefix_width)
		printf("%*s: ", rp->prefix_width, in->name);
}

/*
 * An instance's records start with its name, as in trace-cmd report:
 * before the lost-events notice when there is one.
 */
static void print_buffer(struct input *in, const struct tdat_record *r)
{
	const char *name = tdat_buffer_name(&in->t, r->slot);

	if (*name)
		printf("%s: ", name);
}

/*
 * libtraceevent turns a comparison with a field the event does not have
 * into FALSE without a word: say so rather than print nothing.
 */
static void warn_false_filters(struct input *in)
{
	struct tdat *t = &in->t;
	char *text;
	int i;

	for (i = 0; i < t->nr_events; i++) {
		if (!tep_event_filtered(in->filter, t->events[i].id))
			continue;
		text = tep_filter_make_string(in->filter, t->events[i].id);
		if (text && !strcmp(text, "FALSE"))
			fprintf(stderr, "slimtrace: report: warning: %s: the filter of %s:%s is always false "
				"(a field it does not have?)\n", t->path, t->events[i].system,
				t->events[i].name);
		free(text);
	}
}

/*
 * Each -F is parsed by every file's libtraceevent, first in a child
 * (cli_filter_probe), since the parser crashes on some malformed
 * expressions.  With several files an event that only some files have
 * is fine; an expression no file takes is an error.
 */
static int setup_filters(struct report *rp)
{
	int nr = rp->o->nr_filters, i, f, taken, bad;
	struct cli_filter_result *res, *r;
	int ret = -1;

	if (!nr)
		return 0;
	res = calloc((size_t)rp->nr_in * nr, sizeof(*res));
	if (!res)
		return cli_fail("out of memory");
	for (i = 0; i < rp->nr_in; i++)
		cli_filter_probe(rp->in[i].t.tep, rp->o->filters, nr, res + (size_t)i * nr);
	for (f = 0; f < nr; f++) {
		taken = 0;
		bad = -1;
		for (i = 0; i < rp->nr_in; i++) {
			r = &res[(size_t)i * nr + f];
			if (r->status == CLI_FILTER_OK)
				taken = 1;
			else if (bad < 0 && (rp->nr_in == 1 || r->status != CLI_FILTER_REFUSED ||
					     r->ret != TEP_ERRNO__EVENT_NOT_FOUND))
				bad = i;
		}
		if (bad >= 0 || !taken) {
			r = &res[(size_t)(bad >= 0 ? bad : 0) * nr + f];
			if (rp->nr_in == 1)
				cli_fail("report: -F '%s': %s", rp->o->filters[f], r->msg);
			else if (bad >= 0)
				cli_fail("report: -F '%s': %s: %s", rp->o->filters[f],
					 rp->in[bad].t.path, r->msg);
			else
				cli_fail("report: -F '%s': %s in any of the files", rp->o->filters[f], r->msg);
			goto out;
		}
	}
	for (i = 0; i < rp->nr_in; i++) {
		struct input *in = &rp->in[i];

		in->filter = tep_filter_alloc(in->t.tep);
		if (!in->filter) {
			cli_fail("out of memory");
			goto out;
		}
		for (f = 0; f < nr; f++)
			if (res[(size_t)i * nr + f].status == CLI_FILTER_OK)
				tep_filter_add_filter_str(in->filter, rp->o->filters[f]);
		warn_false_filters(in);
	}
	ret = 0;
out:
	free(res);
	return ret;
}

/* Does any event of IN match the set_event spec S (N bytes, '!' stripped)? */
static int file_has(struct input *in, const char *s, size_t n)
{
	int i;

	for (i = 0; i < in->t.nr_events; i++)
		if (tdat_event_matches(&in->t.events[i], s, n))
			return 1;
	return 0;
}

/*
 * -e over several files: each file takes the specs that match something
 * in it; a spec no file matches is an error, as for one file.
 */
static int select_events(struct report *rp)
{
	const char *specs = rp->o->events, *s;
	size_t n, len = specs ? strlen(specs) : 0;
	char *mine;
	int i, any_positive = 0, mine_positive, found, ret = 0;

	if (rp->nr_in == 1) {
		if (!tdat_select_events(&rp->in[0].t, specs))
			return 0;
		return cli_fail("%s: report -e: %s", rp->in[0].t.path, rp->in[0].t.err);
	}
	for (s = specs; s && *s; s += n) {
		s += strspn(s, ", \t\n");
		n = strcspn(s, ", \t\n");
		if (!n)
			continue;
		any_positive |= *s != '!';
		for (found = 0, i = 0; i < rp->nr_in; i++)
			found |= file_has(&rp->in[i], s + (*s == '!'), n - (*s == '!'));
		if (!found)
			return cli_fail("report -e: no event in any of the files matches '%.*s'", (int)n, s);
	}
	mine = malloc(len + 1);
	if (!mine)
		return cli_fail("out of memory");
	for (i = 0; i < rp->nr_in && !ret; i++) {
		struct input *in = &rp->in[i];
		size_t used = 0;

		mine_positive = 0;
		for (s = specs; s && *s; s += n) {
			s += strspn(s, ", \t\n");
			n = strcspn(s, ", \t\n");
			if (!n || !file_has(in, s + (*s == '!'), n - (*s == '!')))
				continue;
			mine_positive |= *s != '!';
			used += sprintf(mine + used, "%s%.*s", used ? "," : "", (int)n, s);
		}
		mine[used] = '\0';
		if (tdat_select_events(&in->t, mine))
			ret = cli_fail("%s: report -e: %s", in->t.path, in->t.err);
		/* Only exclusions here, but inclusions elsewhere: none of this file. */
		if (any_positive && !mine_positive)
			for (int e = 0; e < in->t.nr_events; e++)
				in->t.events[e].selected = 0;
	}
	free(mine);
	return ret;
}

static int wanted(struct input *in, struct tep_record *rec, const struct tdat_record *r)
{
	if (!r->event->selected)
		return 0;
	if (in->filter && tep_filter_match(in->filter, rec) != TEP_ERRNO__FILTER_MATCH)
		return 0;
	return 1;
}

/* Lost events are announced before the next record printed for the CPU. */
/* 1 if a notice was printed (it begins with the buffer's name). */
static int print_missed(struct report *rp, struct input *in, const struct tdat_record *r)
{
	long long missed = in->pending_missed[r->slot];

	in->pending_missed[r->slot] = 0;
	if (!missed)
		return 0;
	print_prefix(rp, in);
	print_buffer(in, r);
	if (missed > 0)
		printf("CPU:%d [%lld EVENTS DROPPED]\n", r->cpu, missed);
	else
		printf("CPU:%d [EVENTS DROPPED]\n", r->cpu);
	return 1;
}

static void note_missed(struct input *in, const struct tdat_record *r)
{
	long long *p = &in->pending_missed[r->slot];

	if (r->missed < 0 || *p < 0)
		*p = -1;
	else
		*p += r->missed;
}

/* NAMED: the lost-events notice before it already began with the buffer's name. */
static void print_record(struct report *rp, struct input *in, struct tep_record *rec,
			 const struct tdat_record *r, int named)
{
	struct tep_handle *tep = in->t.tep;
	struct trace_seq *s = &rp->s;
	const char *name = r->event->name;
	int len = (int)strlen(name);

	trace_seq_reset(s);
	tep_print_event(tep, s, rec, "%16s-%-5d [%03d]", TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_CPU);
	tep_print_event(tep, s, rec, in->time_fmt, TEP_PRINT_TIME);
	trace_seq_printf(s, " %s: %*s", name, len < 20 ? 20 - len : 0, "");
	tep_print_event(tep, s, rec, "%s", rp->o->raw ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
	trace_seq_terminate(s);
	while (s->len && s->buffer[s->len - 1] == '\n')
		s->len--;
	print_prefix(rp, in);
	if (!named)
		print_buffer(in, r);
	fwrite(s->buffer, 1, s->len, stdout);
	fputc('\n', stdout);
}

static int advance(struct input *in)
{
	int ret = tdat_merge_next(&in->m, &in->next);

	in->has_next = ret > 0;
	if (ret < 0)
		return cli_fail("%s: %s", in->t.path, in->t.err);
	return 0;
}

/* The file whose next record comes first; ties to the file named first. */
static struct input *earliest(struct report *rp)
{
	struct input *best = NULL;
	int i;

	for (i = 0; i < rp->nr_in; i++)
		if (rp->in[i].has_next && (!best || rp->in[i].next.ts < best->next.ts))
			best = &rp->in[i];
	return best;
}

static void show(struct report *rp, struct input *in)
{
	const struct tdat_record *r = &in->next;
	struct tep_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.ts = r->ts;
	rec.offset = r->offset;
	rec.missed_events = r->missed;
	rec.record_size = r->size;
	rec.size = r->size;
	rec.data = (void *)r->data;
	rec.cpu = r->cpu;
	rec.locked = 1;
	note_missed(in, r);
	if (!wanted(in, &rec, r))
		return;
	print_record(rp, in, &rec, r, print_missed(rp, in, r));
}

static int run(struct report *rp)
{
	struct input *in;
	int i, ret = 0, cut = 0;

	for (i = 0; i < rp->nr_in; i++) {
		in = &rp->in[i];
		in->merging = 1;
		if (tdat_merge_init(&in->m, &in->t))
			return cli_fail("%s: %s", in->t.path, in->t.err);
		if (in->t.nr_buffers)
			fprintf(stderr, "slimtrace: %s: %d version 6 instance buffer%s not shown: "
				"only the top buffer is read\n",
				in->t.path, in->t.nr_buffers, in->t.nr_buffers == 1 ? "" : "s");
		print_prefix(rp, in);
		printf("cpus=%d\n", in->t.cpu_count ? in->t.cpu_count : in->t.nr_cpus);
	}
	for (i = 0; i < rp->nr_in && !ret; i++)
		ret = advance(&rp->in[i]);
	while (!ret && (in = earliest(rp))) {
		show(rp, in);
		ret = advance(in);
	}
	fflush(stdout);
	/* What was cut short is said after what could be read of it. */
	for (i = 0; !ret && i < rp->nr_in; i++)
		cut |= cli_cut_short(&rp->in[i].t) != 0;
	return ret || cut ? EXIT_FAIL : 0;
}

static int open_inputs(struct report *rp, const struct tdat_open_flags *fl)
{
	int i, len;

	rp->in = calloc(rp->o->nr_files, sizeof(*rp->in));
	if (!rp->in)
		return cli_fail("out of memory");
	rp->nr_in = rp->o->nr_files;
	for (i = 0; i < rp->nr_in; i++) {
		struct input *in = &rp->in[i];

		if (cli_open(&in->t, rp->o->files[i], fl))
			return -1;
		in->opened = 1;
		in->name = strrchr(in->t.path, '/') ? strrchr(in->t.path, '/') + 1 : in->t.path;
		len = (int)strlen(in->name);
		if (rp->nr_in > 1 && len > rp->prefix_width)
			rp->prefix_width = len;
		in->pending_missed = calloc(in->t.nr_cpus ? in->t.nr_cpus : 1,
					    sizeof(*in->pending_missed));
		if (!in->pending_missed)
			return cli_fail("out of memory");
	}
	return 0;
}

static void close_inputs(struct report *rp)
{
	int i;

	for (i = 0; i < rp->nr_in; i++) {
		struct input *in = &rp->in[i];

		if (in->merging)
			tdat_merge_fini(&in->m);
		if (in->filter)
			tep_filter_free(in->filter);
		free(in->pending_missed);
		if (in->opened)
			tdat_close(&in->t);
	}
	free(rp->in);
}

static void set_time_fmt(struct report *rp)
{
	int i;

	for (i = 0; i < rp->nr_in; i++) {
		if (!rp->in[i].t.clock_in_ns)
			rp->in[i].time_fmt = "%12d:";
		else
			rp->in[i].time_fmt = rp->o->nsec ? " %9.1d:" : " %6.1000d:";
	}
}

int cmd_report(int argc, char **argv)
{
	struct cli_opts o;
	struct tdat_open_flags fl = { 0 };
	struct report rp = { .o = &o };
	int ret;

	ret = cli_parse(&o, "report", "i:e:F:RtN", argc, argv);
	if (ret) {
		cli_opts_free(&o);
		return ret < 0 ? 0 : ret;
	}
	fl.no_plugins = o.no_plugins;
	fl.nsec = o.nsec;
	ret = EXIT_FAIL;
	if (open_inputs(&rp, &fl) || select_events(&rp) || setup_filters(&rp))
		goto out;
	set_time_fmt(&rp);
	trace_seq_init(&rp.s);
	ret = run(&rp);
	trace_seq_destroy(&rp.s);
out:
	close_inputs(&rp);
	cli_opts_free(&o);
	return ret;
}
