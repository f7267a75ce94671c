// SPDX-License-Identifier: MIT
/*
 * What a file says besides its pages: the header_page and header_event
 * texts, the format of every event loaded (enabled or not), grouped by
 * system, the library's internal events in the ftrace section, the trace clock's name and the host's uname, in the blocks
 * every trace.dat version holds alike (sink.h).  Rebuilt when events
 * are loaded or unloaded.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <slimtrace/output.h>
#include "core/internal.h"
#include "core/symbols.h"
#include "record/rec.h"


/* The clock's name as the file gives it, and the host. */
void rec_meta_setup(struct rec_meta_state *ms, int clock_id)
{
	const char *name = slim_clock_id_name(clock_id);
	struct utsname u;

	memset(ms, 0, sizeof(*ms));
#if defined(__x86_64__) || defined(__i386__)
	/* The kernel's name for the same counter, so that traces line up. */
	if (clock_id == SLIM_CLOCK_TSC)
		name = "x86-tsc";
#endif
	snprintf(ms->clock, sizeof(ms->clock), "[%s]\n", name);
	if (!uname(&u))
		snprintf(ms->uname, sizeof(ms->uname), "%s %s %s %s", u.sysname,
			 u.nodename, u.release, u.machine);
	ms->m.clock = ms->clock;
	ms->m.uname = ms->uname;
}

void rec_meta_free(struct rec_meta_state *ms)
{
	free(ms->blob);
	ms->blob = NULL;
	ms->have = 0;
}

/*
 * The formats the file carries: every loaded event's, and the kept ones
 * of unloaded events whose records may still be drained.
 */
struct fmt_item {
	const char *system;
	char *text;
	size_t len;
};

struct ev_list {
	struct fmt_item *v;
	size_t n, cap;
	uint64_t sig;
};

static int add_item(struct ev_list *l, const char *system, char *text, size_t len)
{
	struct fmt_item *v;

	if (!text)
		return -ENOMEM;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		v = realloc(l->v, l->cap * sizeof(*v));
		if (!v) {
			free(text);
			return -ENOMEM;
		}
		l->v = v;
	}
	l->v[l->n++] = (struct fmt_item){ system, text, len };
	return 0;
}

static int collect_event(struct slim_event *ev, void *arg)
{
	struct ev_list *l = arg;
	struct slim_seq f;

	l->sig = l->sig * 31 + (uint64_t)(uintptr_t)ev + (uint64_t)ev->event.type;
	slim_seq_init_dynamic(&f);
	slim_format_print(&f, slim_event_name(ev), ev->event.type,
			  slim_event_fields(ev), slim_event_print_fmt(ev));
	if (f.overflow) {
		slim_seq_free(&f);
		return -ENOMEM;
	}
	return add_item(l, slim_event_system(ev), f.buf ? f.buf : strdup(""), f.len);
}

static int collect_ghost(int id, const struct slim_event_ghost *g, void *arg)
{
	struct ev_list *l = arg;

	l->sig = l->sig * 31 + (uint64_t)(uintptr_t)g + (uint64_t)id;
	return add_item(l, g->system, strdup(g->format), strlen(g->format));
}

static void ev_list_free(struct ev_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].text);
	free(l->v);
}

static void seq_u32(struct slim_seq *s, uint32_t v)
{
	slim_seq_putmem(s, &v, sizeof(v));
}

/* A text with its size in 8 bytes before it. */
static void seq_sized(struct slim_seq *s, const char *text, size_t len)
{
	uint64_t n = len;

	slim_seq_putmem(s, &n, sizeof(n));
	slim_seq_putmem(s, text, (unsigned int)len);
}

static int same_system(const struct fmt_item *a, const struct fmt_item *b)
{
	return strcmp(a->system, b->system) == 0;
}

/* The events' format files, grouped by system. */
static void put_formats(struct slim_seq *s, struct ev_list *l)
{
	uint32_t nsys = 0, n;
	size_t i, j, k;

	for (i = 0; i < l->n; i++) {
		for (j = 0; j < i && !same_system(&l->v[j], &l->v[i]); j++)
			;
		nsys += j == i;
	}
	seq_u32(s, nsys);
	for (i = 0; i < l->n; i++) {
		for (j = 0; j < i && !same_system(&l->v[j], &l->v[i]); j++)
			;
		if (j < i)
			continue;	/* system done already */
		slim_seq_printf(s, "%s%c", l->v[i].system, 0);
		for (n = 0, k = i; k < l->n; k++)
			n += same_system(&l->v[k], &l->v[i]);
		seq_u32(s, n);
		for (k = i; k < l->n; k++) {
			if (same_system(&l->v[k], &l->v[i]))
				seq_sized(s, l->v[k].text, l->v[k].len);
		}
	}
}

/*
 * The library's internal events (ftrace:user_stack) where trace-cmd
 * keeps the kernel's ftrace entries: a count, then each format sized.
 */
static void put_ftrace(struct slim_seq *s, const struct ev_list *ft)
{
	size_t i;

	seq_u32(s, (uint32_t)ft->n);
	for (i = 0; i < ft->n; i++)
		seq_sized(s, ft->v[i].text, ft->v[i].len);
}

/*
 * With internal events there may be user stacks: the functions the
 * dynamic linker knows go where the kernel's symbols go, so that a
 * reader (libtraceevent's %ps) names the callers as `trace` does.
 * Without, nothing: a file of events alone stays as it was.
 */
static void put_kallsyms(struct slim_seq *s, const struct ev_list *ft)
{
	struct slim_seq k;

	if (!ft->n) {
		seq_u32(s, 0);
		return;
	}
	slim_seq_init_dynamic(&k);
	slim_symbols_kallsyms(&k);
	if (k.overflow || k.len > UINT32_MAX) {
		seq_u32(s, 0);	/* addresses print as numbers */
	} else {
		seq_u32(s, (uint32_t)k.len);
		slim_seq_putmem(s, k.buf, (unsigned int)k.len);
	}
	slim_seq_free(&k);
}

/* The blocks into s, each one's start in at[].  Event mutex held. */
static void build(struct slim_seq *s, struct ev_list *l, const struct ev_list *ft,
		  size_t at[REC_BLOCKS + 1])
{
	at[REC_BLK_HEADERS] = s->len;
	slim_seq_putmem(s, "header_page", 12);
	seq_sized(s, slim_page_header_page, strlen(slim_page_header_page));
	slim_seq_putmem(s, "header_event", 13);
	seq_sized(s, slim_page_header_event, strlen(slim_page_header_event));
	at[REC_BLK_FTRACE] = s->len;
	put_ftrace(s, ft);
	at[REC_BLK_FORMATS] = s->len;
	put_formats(s, l);
	at[REC_BLK_KALLSYMS] = s->len;
	put_kallsyms(s, ft);
	at[REC_BLK_PRINTK] = s->len;
	seq_u32(s, 0);
	at[REC_BLOCKS] = s->len;
}

static int lock_events(enum rec_meta_lock how)
{
	int tries;

	for (tries = 0; tries < (how == REC_META_WAIT ? 200 : 1); tries++) {
		if (!pthread_mutex_trylock(&slim_event_mutex))
			return 0;
		if (how == REC_META_WAIT)
			rec_ms_sleep(1);
	}
	return -EAGAIN;
}

static int rebuild(struct rec_meta_state *ms)
{
	struct ev_list l = { 0 }, ft = { 0 };
	size_t at[REC_BLOCKS + 1];
	struct slim_seq s;
	int ret, i;

	ret = slim_event_for_each(collect_event, &l);
	if (!ret)
		ret = slim_event_ghost_for_each(collect_ghost, &l);
	if (!ret)
		ret = slim_event_internal_for_each(collect_event, &ft);
	/* An internal event appearing (the first stacktrace trigger) is a change too. */
	l.sig = l.sig * 31 + ft.sig;
	if (ret || (ms->have && l.sig == ms->event_sig)) {
		ev_list_free(&l);
		ev_list_free(&ft);
		return ret;
	}
	slim_seq_init_dynamic(&s);
	build(&s, &l, &ft, at);
	ev_list_free(&l);
	ev_list_free(&ft);
	if (s.overflow) {
		slim_seq_free(&s);
		return -ENOMEM;
	}
	free(ms->blob);
	ms->blob = (unsigned char *)s.buf;
	for (i = 0; i < REC_BLOCKS; i++) {
		ms->m.block[i] = ms->blob + at[i];
		ms->m.len[i] = at[i + 1] - at[i];
	}
	ms->event_sig = l.sig;
	ms->have = 1;
	return 1;
}

/*
 * The event mutex is only tried (how says how hard): whoever holds it
 * may be waiting for the recorder.
 */
int rec_meta_refresh(struct rec_meta_state *ms, enum rec_meta_lock how)
{
	int ret = lock_events(how);

	if (ret)
		return ret;
	ret = rebuild(ms);
	pthread_mutex_unlock(&slim_event_mutex);
	return ret;
}
