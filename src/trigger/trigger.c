// SPDX-License-Identifier: MIT
/*
 * Event triggers, the kernel's events/<sys>/<ev>/trigger: traceon,
 * traceoff, snapshot, stacktrace, enable_event and disable_event, each
 * with an optional count and an optional "if FILTER".
 *
 * They run where the kernel's do, on the event file's own target, by
 * the record path (src/events/emit.c): those without a filter before
 * anything is reserved (an unconditional traceoff keeps its own event
 * out), those with one on the filled record where it lies in the ring,
 * before the commit and the event's own filter, and stacktrace after
 * the commit, so that its record follows the event's.  A file with
 * triggers is in soft mode, attached even if not enabled, so that its
 * event fires; a record the ring does not take is built aside for the
 * triggers that need it.  A file whose triggers all have a filter keeps
 * the inlined fast path (its target FILTERED, cond_triggers set); one
 * with others is flagged SLIM_TARGET_FL_TRIGGER, which leaves it.  A
 * file without triggers pays nothing new.  The list is an immutable
 * array published with RCU: a write builds a new one, the old one goes
 * after a grace period.
 *
 * Counts are exact across threads: a count is taken (decremented if
 * above zero) before the action, and given back if the action found
 * nothing to change, as the kernel counts only changes of state.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slimtrace/output.h>
#include "buffers/buffer.h"
#include "filter/filter.h"
#include "trigger/trigger.h"
#include "trigger/user_stack.h"

#define FILTER_LOC	"event filter parse error"
#define TRIGGER_LOC	"event trigger"
#define UNLIMITED	(-1L)

enum trig_cmd {
	TRIG_TRACEON, TRIG_TRACEOFF, TRIG_SNAPSHOT, TRIG_STACKTRACE, TRIG_ENABLE, TRIG_DISABLE
};

static const char *const cmd_names[] = {
	[TRIG_TRACEON] = "traceon", [TRIG_TRACEOFF] = "traceoff",
	[TRIG_SNAPSHOT] = "snapshot", [TRIG_STACKTRACE] = "stacktrace",
	[TRIG_ENABLE] = "enable_event", [TRIG_DISABLE] = "disable_event",
};

struct trig {
	enum trig_cmd cmd;
	long count;			/* UNLIMITED, or what is left (atomic) */
	struct slim_filter *filter;
	int needs_cpu;			/* its filter reads CPU */
	struct slim_bufset *bufs;	/* the instance's: tracing_on, snapshot, stack */
	struct slim_event_file *file;	/* enable/disable_event: the one it flips */
};

struct trig_list {
	unsigned int nr;
	int needs_rec;			/* one has a filter, or is stacktrace */
	int slow;			/* one has no filter, or is stacktrace */
	int cond;			/* one has a filter and runs before the commit */
	struct trig *t[];
};

/* An event file's triggers; f->triggers points here (RCU). */
struct trig_set {
	struct trig_list *list;		/* RCU */
	int attached;			/* its list holds the file in soft mode */
	int soft_refs;			/* enable/disable_event naming this file */
	struct slim_event_file *file;	/* whose set this is */
	struct trig_set *next;		/* every set (slim_event_mutex) */
};

/* Every event file's set, to find the triggers that name a file going away. */
static struct trig_set *all_sets;

/* ---- the record side --------------------------------------------------- */

/* Take one from the count: 0 when there is none left. */
static int count_take(struct trig *t)
{
	long c = __atomic_load_n(&t->count, __ATOMIC_RELAXED);

	if (c == UNLIMITED)
		return 1;
	do {
		if (c <= 0)
			return 0;
	} while (!__atomic_compare_exchange_n(&t->count, &c, c - 1, 1,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return 1;
}

static void count_give_back(struct trig *t)
{
	if (__atomic_load_n(&t->count, __ATOMIC_RELAXED) != UNLIMITED)
		__atomic_fetch_add(&t->count, 1, __ATOMIC_RELAXED);
}

/* 1 if it changed something. */
static int act(struct trig *t)
{
	int want;

	switch (t->cmd) {
	case TRIG_TRACEON:
	case TRIG_TRACEOFF:
		want = t->cmd == TRIG_TRACEON;
		return slim_bufset_set_tracing_on(t->bufs, want) != want;
	case TRIG_SNAPSHOT:
		/* Refused only in a thread that reads the buffers: not counted. */
		return slim_bufset_snapshot(t->bufs) == 0;
	case TRIG_STACKTRACE:
		/*
		 * Counted whether or not it could be recorded (tracing off,
		 * no room), as the kernel counts every firing.
		 */
		slim_user_stack_record(t->bufs);
		return 1;
	case TRIG_ENABLE:
		return __atomic_fetch_and(&t->file->target.flags,
					  ~SLIM_TARGET_FL_SOFT_DISABLED, __ATOMIC_RELEASE) &
		       SLIM_TARGET_FL_SOFT_DISABLED;
	case TRIG_DISABLE:
		return !(__atomic_fetch_or(&t->file->target.flags,
					   SLIM_TARGET_FL_SOFT_DISABLED, __ATOMIC_RELEASE) &
			 SLIM_TARGET_FL_SOFT_DISABLED);
	}
	return 0;
}

/* stacktrace runs after the commit, so that its record follows the event's. */
static int is_post(const struct trig *t)
{
	return t->cmd == TRIG_STACKTRACE;
}

static void fire(struct trig *t)
{
	if (count_take(t) && !act(t))
		count_give_back(t);
}

/* comm NULL: the thread's buffer in the instance has it. */
static int passes(const struct trig *t, const void *rec, unsigned int len, const char *comm)
{
	struct slim_filter_ctx ctx;
	int ret;

	if (!t->filter)
		return 1;
	/* Most filters read no COMM or CPU: then nothing is looked up. */
	ret = slim_filter_match(t->filter, rec, len, &slim_filter_ctx_unknown);
	if (slim_likely(ret >= 0))
		return ret;
	ctx.comm = comm ? comm : slim_bufset_buffer(t->bufs)->comm;
	ctx.cpu = t->needs_cpu ? sched_getcpu() : -1;
	return slim_filter_match(t->filter, rec, len, &ctx);
}

static const struct trig_list *list_of(struct slim_target *tg)
{
	struct slim_event_file *f = (struct slim_event_file *)
		((char *)tg - offsetof(struct slim_event_file, target));
	struct trig_set *set = slim_rcu_dereference(f->triggers);

	return set ? slim_rcu_dereference(set->list) : NULL;
}

int slim_triggers_pre(struct slim_target *tg)
{
	const struct trig_list *l = list_of(tg);
	unsigned int i;

	if (!l)
		return 0;
	for (i = 0; i < l->nr; i++) {
		if (!l->t[i]->filter && !is_post(l->t[i]))
			fire(l->t[i]);
	}
	return l->needs_rec;
}

void *slim_triggers_cond(struct slim_target *tg, const void *rec, unsigned int len,
			 const char *comm)
{
	const struct trig_list *l = list_of(tg);
	struct trig *post = NULL;
	unsigned int i;

	for (i = 0; l && l->needs_rec && i < l->nr; i++) {
		struct trig *t = l->t[i];

		if ((!t->filter && !is_post(t)) || !passes(t, rec, len, comm))
			continue;
		if (is_post(t))
			post = t;	/* one at most: a second is a duplicate */
		else
			fire(t);
	}
	return post;
}

void slim_triggers_post(void *post)
{
	fire(post);
}

/* ---- the set of an event file ------------------------------------------ */

static void trig_free(struct trig *t)
{
	slim_filter_free(t->filter);
	free(t);
}

/* What the record path asks of a list, once it is filled. */
static void list_seal(struct trig_list *l)
{
	unsigned int i;

	l->needs_rec = l->slow = l->cond = 0;
	for (i = 0; i < l->nr; i++) {
		l->needs_rec |= l->t[i]->filter || is_post(l->t[i]);
		l->slow |= !l->t[i]->filter || is_post(l->t[i]);
		l->cond |= l->t[i]->filter && !is_post(l->t[i]);
	}
}

static void list_free(void *p)
{
	free(p);
}

static void soft_put(struct slim_event_file *f);

static void trig_free_rcu(void *p)
{
	trig_free(p);
}

/* The trigger leaves: undo what it set up, free it after a grace period. */
static void trig_retire(struct trig *t)
{
	if (t->file)
		soft_put(t->file);
	slim_rcu_free(t, trig_free_rcu);
}

static int set_publish(struct slim_event_file *f, struct trig_list *l,
		       struct trig_list **oldp);

/*
 * f goes (its event unloads, its instance is removed): the triggers of
 * other files that name it in enable_event/disable_event go first, so
 * that none keeps a pointer to it.
 */
static void drop_referrers(struct slim_event_file *f)
{
	struct trig_set *s;
	unsigned int i, n;

	for (s = all_sets; s; s = s->next) {
		struct trig_list *l = s->list, *c;

		if (s->file == f || !l)
			continue;
		for (i = n = 0; i < l->nr; i++)
			n += l->t[i]->file == f;
		if (!n)
			continue;
		c = malloc(sizeof(*c) + l->nr * sizeof(c->t[0]));
		if (!c) {
			/* No room for the rest: they all go, and that is said. */
			fprintf(stderr, "slimtrace: out of memory: the triggers of %s:%s are "
				"removed\n", slim_event_system(s->file->ev),
				slim_event_name(s->file->ev));
			set_publish(s->file, NULL, &l);
			for (i = 0; i < l->nr; i++)
				trig_retire(l->t[i]);
			slim_rcu_free(l, list_free);
			continue;
		}
		for (i = c->nr = 0; i < l->nr; i++)
			if (l->t[i]->file != f)
				c->t[c->nr++] = l->t[i];
		list_seal(c);
		/* The old list stays ours until its triggers are retired. */
		set_publish(s->file, c, &l);
		for (i = 0; i < l->nr; i++)
			if (l->t[i]->file == f)
				trig_retire(l->t[i]);
		slim_rcu_free(l, list_free);
	}
}

static void set_drop(struct slim_event_file *f)
{
	struct trig_set *set = f->triggers, **pp;
	unsigned int i;

	if (set->soft_refs)
		drop_referrers(f);
	for (pp = &all_sets; *pp; pp = &(*pp)->next) {
		if (*pp == set) {
			*pp = set->next;
			break;
		}
	}
	__atomic_fetch_and(&f->target.flags, ~SLIM_TARGET_FL_TRIGGER, __ATOMIC_RELEASE);
	slim_target_set_cond_triggers(&f->target, 0);
	if (set->attached)
		slim_event_file_soft_put(f);
	for (i = 0; set->list && i < set->list->nr; i++)
		trig_retire(set->list->t[i]);
	slim_rcu_free(set->list, list_free);
	slim_rcu_assign_pointer(f->triggers, NULL);
	f->triggers_drop = NULL;
	/* The record path may still read it: after a grace period. */
	slim_rcu_free(set, list_free);
}

static struct trig_set *set_of(struct slim_event_file *f)
{
	struct trig_set *set = f->triggers;

	if (set)
		return set;
	set = calloc(1, sizeof(*set));
	if (!set)
		return NULL;
	set->file = f;
	set->next = all_sets;
	all_sets = set;
	slim_rcu_assign_pointer(f->triggers, set);
	f->triggers_drop = set_drop;
	return set;
}

/*
 * Publish a new list.  A file with triggers is in soft mode, attached
 * even if not enabled, as the kernel's, so that its event fires, and
 * flagged, so that the record path runs them.  The old list goes after
 * a grace period, once the caller is done with it (*old; NULL: now).
 */
static int set_publish(struct slim_event_file *f, struct trig_list *l,
		       struct trig_list **oldp)
{
	struct trig_set *set = f->triggers;
	struct trig_list *old = set->list;
	int ret;

	if (l && l->nr && !set->attached) {
		ret = slim_event_file_soft_get(f);
		if (ret)
			return ret;
		set->attached = 1;
	}
	slim_rcu_assign_pointer(set->list, l);
	/* Only triggers with a filter: the commit runs them, the fast path stays. */
	if (l && l->slow)
		__atomic_fetch_or(&f->target.flags, SLIM_TARGET_FL_TRIGGER, __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(&f->target.flags, ~SLIM_TARGET_FL_TRIGGER, __ATOMIC_RELEASE);
	slim_target_set_cond_triggers(&f->target, l && l->cond);
	if ((!l || !l->nr) && set->attached) {
		slim_event_file_soft_put(f);
		set->attached = 0;
	}
	if (oldp)
		*oldp = old;
	else
		slim_rcu_free(old, list_free);
	return 0;
}

/* ---- soft mode --------------------------------------------------------- */

/*
 * An event named by enable_event or disable_event is in soft mode too
 * (session/instance.c): its target stays attached, and the SOFT_DISABLED
 * flag says whether it records.  Its set counts the triggers naming it,
 * so that they go first when it goes.
 */
static int soft_get(struct slim_event_file *f)
{
	struct trig_set *set = set_of(f);
	int ret;

	if (!set)
		return -ENOMEM;
	ret = slim_event_file_soft_get(f);
	if (ret)
		return ret;
	set->soft_refs++;
	return 0;
}

static void soft_put(struct slim_event_file *f)
{
	struct trig_set *set = f->triggers;

	if (!set)
		return;
	set->soft_refs--;
	slim_event_file_soft_put(f);
}

/* ---- parsing ----------------------------------------------------------- */

struct parsed {
	int remove;
	enum trig_cmd cmd;
	long count;
	struct slim_event *target;
	char *filter;			/* in the copy: the text after "if" */
};

static char *trim(char *s)
{
	size_t n;

	s += strspn(s, " \t\n");
	n = strlen(s);
	while (n && strchr(" \t\n", s[n - 1]))
		s[--n] = '\0';
	return s;
}

static int parse_count(const char *s, long *count)
{
	char *end;
	unsigned long v;

	if (!s) {
		*count = UNLIMITED;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -EINVAL;
	v = strtoul(s, &end, 10);
	if (*end || v > (unsigned long)__LONG_MAX__ - 1)
		return -EINVAL;
	*count = (long)v;
	return 0;
}

static int parse_cmd(char *word, struct parsed *p)
{
	char *name = strsep(&word, ":"), *sys = NULL, *ev = NULL;
	unsigned int i;

	for (i = 0; i < sizeof(cmd_names) / sizeof(cmd_names[0]); i++) {
		if (strcmp(name, cmd_names[i]) == 0)
			break;
	}
	if (i == sizeof(cmd_names) / sizeof(cmd_names[0]))
		return -EINVAL;
	p->cmd = (enum trig_cmd)i;
	if (p->cmd == TRIG_ENABLE || p->cmd == TRIG_DISABLE) {
		sys = strsep(&word, ":");
		ev = strsep(&word, ":");
		if (!sys || !ev)
			return -EINVAL;
		p->target = slim_event_find_locked(sys, ev);
		if (!p->target)
			return -EINVAL;
	}
	return parse_count(strsep(&word, ":"), &p->count) ? -EINVAL :
	       word ? -EINVAL : 0;
}

/* "[!]CMD[:ARGS] [if FILTER]", in place. */
static int parse(char *text, struct parsed *p)
{
	char *word, *rest;

	memset(p, 0, sizeof(*p));
	text = trim(text);
	if (*text == '!') {
		p->remove = 1;
		text++;
	}
	word = text;
	rest = word + strcspn(word, " \t");
	if (*rest) {
		*rest++ = '\0';
		rest += strspn(rest, " \t");
		if (strncmp(rest, "if", 2) != 0 || !strchr(" \t", rest[2]) || !rest[2])
			return -EINVAL;
		p->filter = rest + 3;
	}
	return parse_cmd(word, p);
}

/* ---- writing ----------------------------------------------------------- */

/* traceon and traceoff are one kind, as enable_event and disable_event of one event are. */
static int same_kind(const struct trig *t, const struct parsed *p, struct slim_event_file *tf)
{
	int onoff = p->cmd == TRIG_TRACEON || p->cmd == TRIG_TRACEOFF;

	if (onoff)
		return t->cmd == TRIG_TRACEON || t->cmd == TRIG_TRACEOFF;
	if (p->cmd == TRIG_SNAPSHOT || p->cmd == TRIG_STACKTRACE)
		return t->cmd == p->cmd;
	return (t->cmd == TRIG_ENABLE || t->cmd == TRIG_DISABLE) && t->file == tf;
}

static int find(const struct trig_list *l, const struct parsed *p,
		struct slim_event_file *tf)
{
	unsigned int i;

	for (i = 0; l && i < l->nr; i++) {
		if (same_kind(l->t[i], p, tf))
			return (int)i;
	}
	return -1;
}

/* A copy of l without entry skip (-1: none), with first (if any) in front. */
static struct trig_list *list_copy(const struct trig_list *l, int skip, struct trig *first)
{
	unsigned int nr = l ? l->nr : 0, i, n = 0;
	struct trig_list *c = malloc(sizeof(*c) + (nr + 1) * sizeof(c->t[0]));

	if (!c)
		return NULL;
	if (first)
		c->t[n++] = first;
	for (i = 0; i < nr; i++) {
		if ((int)i != skip)
			c->t[n++] = l->t[i];
	}
	c->nr = n;
	list_seal(c);
	return c;
}

static int remove_one(struct slim_event_file *f, const struct parsed *p,
		      struct slim_event_file *tf)
{
	struct trig_set *set = f->triggers;
	struct trig_list *l;
	struct trig *gone;
	int i = set ? find(set->list, p, tf) : -1;

	if (i < 0)
		return 0;	/* the kernel says nothing either */
	gone = set->list->t[i];
	l = list_copy(set->list, i, NULL);
	if (!l)
		return -ENOMEM;
	set_publish(f, l, NULL);
	trig_retire(gone);
	return 0;
}

static int compile(struct slim_instance *inst, struct slim_event *ev, const char *text,
		   struct slim_filter **f)
{
	struct slim_filter_error err;
	int ret;

	*f = NULL;
	if (!text)
		return 0;
	memset(&err, 0, sizeof(err));
	ret = slim_filter_compile(slim_event_fields(ev), text, f, &err);
	if (ret == -EINVAL)
		slim_error_log(&inst->log, FILTER_LOC, err.msg[0] ? err.msg : "Error",
			       text, err.msg[0] ? err.pos : -1);
	return ret;
}

static int add_one(struct slim_event_file *f, const struct parsed *p,
		   struct slim_event_file *tf, struct slim_filter *flt)
{
	struct trig_set *set = f->triggers;
	struct trig_list *l;
	struct trig *t = calloc(1, sizeof(*t));
	int ret = -ENOMEM;

	if (!t)
		goto fail;
	*t = (struct trig){ p->cmd, p->count, flt, flt && slim_filter_needs_cpu(flt),
			    f->inst->bufs, tf };
	/* As the kernel: the spare is allocated now, so that firing never allocates. */
	if (p->cmd == TRIG_SNAPSHOT && (ret = slim_bufset_snap_alloc(f->inst->bufs)))
		goto fail;
	/* The event and the unwinder, made ready now so that firing does neither. */
	if (p->cmd == TRIG_STACKTRACE && (ret = slim_user_stack_prepare()))
		goto fail;
	if (tf && (ret = soft_get(tf)))
		goto fail;
	l = list_copy(set->list, -1, t);
	ret = l ? set_publish(f, l, NULL) : -ENOMEM;
	if (!ret)
		return 0;
	free(l);
	if (tf)
		soft_put(tf);
fail:
	free(t);
	slim_filter_free(flt);
	return ret;
}

static void clear_all(struct slim_event_file *f)
{
	struct trig_set *set = f->triggers;
	struct trig_list *old;
	unsigned int i;

	if (!set || !set->list)
		return;
	set_publish(f, NULL, &old);
	for (i = 0; i < old->nr; i++)
		trig_retire(old->t[i]);
	slim_rcu_free(old, list_free);
}

static int refuse(struct slim_instance *inst, const char *msg, const char *cmd)
{
	slim_error_log(&inst->log, TRIGGER_LOC, msg, cmd, -1);
	return -EINVAL;
}

static int apply(struct slim_instance *inst, struct slim_event *ev, const char *text,
		 struct parsed *p)
{
	struct slim_event_file *f = slim_event_file(inst, ev, 1), *tf = NULL;
	struct slim_filter *flt;
	int ret;

	if (!f || !set_of(f))
		return -ENOMEM;
	if (p->target && !(tf = slim_event_file(inst, p->target, 1)))
		return -ENOMEM;
	if (p->remove)
		return remove_one(f, p, tf);
	if (find(((struct trig_set *)f->triggers)->list, p, tf) >= 0) {
		slim_error_log(&inst->log, TRIGGER_LOC, "Trigger already exists", text, -1);
		return -EEXIST;
	}
	ret = compile(inst, ev, p->filter, &flt);
	if (ret)
		return ret;
	return add_one(f, p, tf, flt);
}

int slim_trigger_write(struct slim_instance *inst, struct slim_event *ev,
		       const char *text, int append)
{
	char *copy = strdup(text);
	struct slim_event_file *f;
	struct parsed p;
	int ret;

	if (!copy)
		return -ENOMEM;
	/* As the kernel: an open for truncation clears, whatever follows. */
	f = append ? NULL : slim_event_file(inst, ev, 0);
	if (f)
		clear_all(f);
	if (!*trim(copy)) {
		free(copy);
		return 0;
	}
	ret = parse(copy, &p);
	if (ret)
		ret = refuse(inst, (p.cmd == TRIG_ENABLE || p.cmd == TRIG_DISABLE) &&
			     !p.target ? "Invalid event or command" : "Invalid trigger",
			     text);
	else
		ret = apply(inst, ev, text, &p);
	free(copy);
	return ret;
}

/* ---- reading ----------------------------------------------------------- */

static void print_one(const struct trig *t, struct slim_seq *s)
{
	long c = __atomic_load_n(&t->count, __ATOMIC_RELAXED);

	slim_seq_puts(s, cmd_names[t->cmd]);
	if (t->file)
		slim_seq_printf(s, ":%s:%s", slim_event_system(t->file->ev),
				slim_event_name(t->file->ev));
	if (c == UNLIMITED)
		slim_seq_puts(s, ":unlimited");
	else
		slim_seq_printf(s, ":count=%ld", c);
	if (t->filter)
		slim_seq_printf(s, " if %s", slim_filter_text(t->filter));
	slim_seq_puts(s, "\n");
}

int slim_trigger_print(struct slim_instance *inst, struct slim_event *ev,
		       struct slim_seq *s)
{
	struct slim_event_file *f = slim_event_file(inst, ev, 0);
	struct trig_set *set = f ? f->triggers : NULL;
	unsigned int i;

	if (!set || !set->list || !set->list->nr)
		return slim_seq_puts(s, "# Available triggers:\n"
				     "# traceon traceoff snapshot stacktrace enable_event "
				     "disable_event\n");
	for (i = 0; i < set->list->nr; i++)
		print_one(set->list->t[i], s);
	return 0;
}
