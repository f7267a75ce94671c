// SPDX-License-Identifier: MIT
/*
 * The `trace` and `trace_pipe` files: records from every buffer, merged
 * by time, printed as the kernel prints them.  trace_options raw, hex and
 * bin select the class's raw/hex/binary printers (the seed's
 * trace_event_functions), the generic ones where a class has none.
 */
#include <stdlib.h>
#include <string.h>
#include <slimtrace/output.h>
#include "buffers/buffer.h"
#include "core/clock.h"
#include "session/instance.h"
#include "text/trace_file.h"

/* Per buffer: a private copy, or the live buffer for a consuming read. */
struct cursor {
	struct slim_buffer *b;
	struct slim_rb_iter it;
	const void *rec;
	unsigned int len;
	uint64_t ts;
	int more;
};

static int generic_raw(struct slim_seq *s, struct slim_seq *p,
		       const struct slim_event *ev, const void *rec, unsigned int len)
{
	(void)p;
	return slim_print_raw_fields(s, slim_event_fields(ev), rec, len);
}

static int generic_hex(struct slim_seq *s, struct slim_seq *p,
		       const struct slim_event *ev, const void *rec, unsigned int len)
{
	(void)p;
	(void)ev;
	return slim_print_hex_record(s, rec, len);
}

static int generic_bin(struct slim_seq *s, struct slim_seq *p,
		       const struct slim_event *ev, const void *rec, unsigned int len)
{
	(void)p;
	(void)ev;
	return slim_print_bin_record(s, rec, len);
}

static slim_print_fn pick_printer(unsigned int opts, const struct slim_event_funcs *f)
{
	if (opts & SLIM_TRACE_OPT_BIN)
		return f->binary ? f->binary : generic_bin;
	if (opts & SLIM_TRACE_OPT_HEX)
		return f->hex ? f->hex : generic_hex;
	if (opts & SLIM_TRACE_OPT_RAW)
		return f->raw ? f->raw : generic_raw;
	return f->trace;
}

static int print_header(struct slim_instance *inst, struct slim_seq *s,
			const struct slim_rb_stats *stp)
{
	const struct slim_rb_stats st = *stp;

	/* As the kernel: written since the last clear, overwritten included. */
	slim_seq_printf(s, "# entries-in-buffer/entries-written: %llu/%llu   #P:%d\n",
			(unsigned long long)st.entries,
			(unsigned long long)(st.written - st.consumed),
			slim_bufset_count(inst->bufs));
	return slim_seq_puts(s,
		"#\n"
		"#                                _-----=> irqs-off/BH-disabled\n"
		"#                               / _----=> need-resched\n"
		"#                              | / _---=> hardirq/softirq\n"
		"#                              || / _--=> preempt-depth\n"
		"#                              ||| / _-=> migrate-disable\n"
		"#                              |||| /     delay\n"
		"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		"#              | |         |   |||||     |         |\n");
}

int slim_trace_print_header(struct slim_instance *inst, struct slim_seq *s)
{
	struct slim_rb_stats st;

	slim_bufset_stats(inst->bufs, &st);
	slim_seq_puts(s, "# tracer: nop\n#\n");
	return print_header(inst, s, &st);
}

/* The line's context: who, where, when; the kernel's default layout. */
static void print_context(struct slim_instance *inst, struct slim_seq *s,
			  const struct slim_trace_entry *e, int cpu, uint64_t ns)
{
	char comm[16];

	if (inst->trace_options & (SLIM_TRACE_OPT_RAW | SLIM_TRACE_OPT_HEX |
				   SLIM_TRACE_OPT_BIN)) {
		slim_seq_printf(s, "%d %d %llu ", e->pid, cpu, (unsigned long long)ns);
		return;
	}
	slim_cmdline_get(e->pid, comm);
	slim_seq_printf(s, "%16s-%-7d [%03d] ..... ", comm, e->pid, cpu);
	/* A counter clock (tsc) prints its count, as the kernel's x86-tsc. */
	if (!slim_clock_in_ns(inst->bufs->clock))
		slim_seq_printf(s, "%llu: ", (unsigned long long)ns);
	else
		slim_seq_printf(s, "%5llu.%06llu: ", (unsigned long long)(ns / 1000000000),
				(unsigned long long)(ns % 1000000000 / 1000));
}

/*
 * A record of an event whose object was unloaded: its printer went with
 * it, so its fields print by name, from the kept copy of its format.
 */
static int print_unloaded(struct slim_instance *inst, struct slim_seq *s,
			  const void *rec, unsigned int len)
{
	const struct slim_trace_entry *e = rec;
	const struct slim_event_ghost *g = slim_event_ghost(e->type);

	if (!g)
		return slim_seq_printf(s, "Unknown type %d\n", e->type);
	if (inst->trace_options & SLIM_TRACE_OPT_HEX)
		slim_print_hex_record(s, rec, len);
	else if (inst->trace_options & SLIM_TRACE_OPT_BIN)
		slim_print_bin_record(s, rec, len);
	else {
		slim_seq_printf(s, "%s: ", g->name);
		slim_print_raw_fields(s, &g->fields, rec, len);
	}
	return slim_seq_putc(s, '\n');
}

int slim_trace_print_record(struct slim_instance *inst, struct slim_seq *s, int cpu,
			    const void *rec, unsigned int len, uint64_t ts)
{
	const struct slim_trace_entry *e = rec;
	struct slim_event *ev;
	struct slim_seq p;
	char scratch[4096];

	if (len < sizeof(*e))
		return slim_seq_puts(s, "[truncated record]\n");
	print_context(inst, s, e, cpu, slim_clock_to_ns(inst->bufs->clock, ts));
	ev = slim_event_by_id(e->type);
	if (!ev)
		return print_unloaded(inst, s, rec, len);
	slim_seq_init(&p, scratch, sizeof(scratch));
	/* The kernel's ftrace entries (a user stack) print no name. */
	if (!(inst->trace_options & (SLIM_TRACE_OPT_HEX | SLIM_TRACE_OPT_BIN)) &&
	    !slim_event_is_internal(ev))
		slim_seq_printf(s, "%s: ", slim_event_name(ev));
	pick_printer(inst->trace_options, slim_event_funcs(ev))(s, &p, ev, rec, len);
	return slim_seq_putc(s, '\n');
}

/* Every buffer (or its snapshot) copied, then merged by time. */
static int print_records(struct slim_instance *inst, struct slim_seq *s, int snap)
{
	int i, n = slim_bufset_count(inst->bufs);
	struct cursor *c = calloc(n ? n : 1, sizeof(*c));
	struct slim_buffer *b;

	if (!c)
		return -1;
	for (i = 0, b = slim_bufset_first(inst->bufs); b && i < n; b = slim_buffer_next(b), i++) {
		c[i].b = b;
		c[i].more = (snap ? slim_buffer_snap_iter_start(b, &c[i].it) :
				    slim_buffer_iter_start(b, &c[i].it)) == 0;
		if (!c[i].more)
			c[i].b = NULL;
		if (c[i].more)
			c[i].more = slim_rb_iter_next(&c[i].it, &c[i].rec,
						      &c[i].len, &c[i].ts) == 1;
	}
	for (;;) {
		int min = -1;

		for (i = 0; i < n; i++) {
			if (c[i].more && (min < 0 || c[i].ts < c[min].ts))
				min = i;
		}
		if (min < 0)
			break;
		slim_trace_print_record(inst, s, c[min].b->cpu, c[min].rec, c[min].len,
					c[min].ts);
		c[min].more = slim_rb_iter_next(&c[min].it, &c[min].rec,
						&c[min].len, &c[min].ts) == 1;
	}
	for (i = 0; i < n; i++) {
		if (c[i].b)
			slim_rb_iter_end(&c[i].it);
	}
	free(c);
	return 0;
}

/* The `trace` file. */
int slim_trace_print_all(struct slim_instance *inst, struct slim_seq *s)
{
	slim_trace_print_header(inst, s);
	return print_records(inst, s, 0);
}

/*
 * The `snapshot` file: the snapshot as `trace` prints the live buffer;
 * empty or freed, the kernel's block saying which, then how to use the
 * file (the kernel's commands, in our words).
 */
int slim_trace_print_snapshot(struct slim_instance *inst, struct slim_seq *s)
{
	struct slim_rb_stats st;

	slim_bufset_snap_stats(inst->bufs, &st);
	slim_seq_puts(s, "# tracer: nop\n#\n");
	if (st.entries) {
		print_header(inst, s, &st);
		return print_records(inst, s, 1);
	}
	if (__atomic_load_n(&inst->bufs->snap_on, __ATOMIC_ACQUIRE))
		slim_seq_puts(s, "#\n# * Snapshot is allocated *\n#\n");
	else
		slim_seq_puts(s, "#\n# * Snapshot is freed *\n#\n");
	return slim_seq_puts(s,
		"# Snapshot commands:\n"
		"# echo 0 > snapshot : Clears and frees the snapshot buffer\n"
		"# echo 1 > snapshot : Allocates the snapshot buffer if it is not yet,\n"
		"#                      then takes a snapshot of the live buffer.\n"
		"# echo 2 > snapshot : Clears the snapshot buffer (neither allocates nor frees)\n"
		"#                      (any number but '0' and '1' does the same)\n");
}

long slim_trace_consume(struct slim_instance *inst, struct slim_seq *s, size_t max)
{
	uint64_t rec[SLIM_RB_PAGE_SIZE / 8];	/* records hold u64 fields */
	struct slim_buffer *b, *best;
	unsigned int len;
	uint64_t ts, best_ts;
	long n = 0;

	while (!max || s->len < max) {
		best = NULL;
		best_ts = 0;
		for (b = slim_bufset_first(inst->bufs); b; b = slim_buffer_next(b)) {
			if (slim_buffer_peek(b, &len, &ts) == 1 && (!best || ts < best_ts)) {
				best = b;
				best_ts = ts;
			}
		}
		if (!best)
			break;
		if (slim_buffer_consume(inst->bufs, best, rec, sizeof(rec), &len, &ts) == 1) {
			slim_trace_print_record(inst, s, best->cpu, rec, len, ts);
			n++;
		}
	}
	return n;
}
