// SPDX-License-Identifier: MIT
/*
 * Dynamic events: a class per event, made from a parsed definition and
 * given to the registry as a loaded object's event would be, so that
 * the control files, instances, consumers and the recorder see an event
 * like any other.  All changes hold slim_event_mutex; firing takes no
 * lock: one load of the enable word, then the record path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slimtrace/output.h>
#include "core/internal.h"
#include "ctl/error_log.h"
#include "dynevent/dynevent.h"
#include "session/instance.h"

static struct slim_dynevent *dyn_list;	/* in definition order */

/*
 * A program whose only events are dynamic still gets start-up (the
 * environment, the control endpoint): a static link keeps it this way.
 */
extern const char slim_startup_linked;
static const char *const keep_startup __attribute__((used)) = &slim_startup_linked;

/* ---- the class ----------------------------------------------------------- */

static const char *num_fmt(const struct slim_dyn_field *f)
{
	int wide = f->size == 8;

	switch (f->kind) {
	case SLIM_DYN_SINT:
		/*
		 * libtraceevent reads a field as unsigned: the length
		 * modifier makes it print a narrow one with its sign.
		 */
		return wide ? "%lld" : f->size == 2 ? "%hd" : f->size == 1 ? "%hhd" : "%d";
	case SLIM_DYN_HEX:
		return wide ? "0x%llx" : "0x%x";
	default:
		return wide ? "%llu" : "%u";
	}
}

/* The print fmt: "a=%u s=%s", REC->a, __get_str(s) (strings quoted in eprobes). */
static void print_fmt(struct slim_seq *s, const struct slim_dyn_def *def)
{
	const char *q = def->kind == 'e' ? "\\\"" : "";
	unsigned int i;

	slim_seq_putc(s, '"');
	for (i = 0; i < def->nr; i++) {
		const struct slim_dyn_field *f = &def->f[i];
		int str = f->kind >= SLIM_DYN_CHARS;

		slim_seq_printf(s, "%s%s=%s%s%s", i ? " " : "", f->name, str ? q : "",
				str ? "%s" : num_fmt(f), str ? q : "");
	}
	slim_seq_putc(s, '"');
	for (i = 0; i < def->nr; i++) {
		const struct slim_dyn_field *f = &def->f[i];

		if (f->kind == SLIM_DYN_DATA_LOC)
			slim_seq_printf(s, ", __get_str(%s)", f->name);
		else if (f->kind == SLIM_DYN_REL_LOC)
			slim_seq_printf(s, ", __get_rel_str(%s)", f->name);
		else if (f->kind == SLIM_DYN_ARRAY)
			slim_seq_printf(s, ", __print_hex(REC->%s, %u)", f->name, f->size);
		else
			slim_seq_printf(s, ", REC->%s", f->name);
	}
}

static void print_value(struct slim_seq *s, const struct slim_dyn_field *f,
			const unsigned char *rec, unsigned int len, int quote)
{
	uint64_t v = slim_load_uint(rec + f->offset, f->size);
	const char *str;
	uint32_t loc;
	unsigned int i;

	switch (f->kind) {
	case SLIM_DYN_CHARS:
		str = (const char *)rec + f->offset;
		slim_seq_printf(s, quote ? "\"%.*s\"" : "%.*s", (int)strnlen(str, f->size), str);
		return;
	case SLIM_DYN_ARRAY:
		for (i = 0; i < f->size; i++)
			slim_seq_printf(s, "%s%02x", i ? " " : "", rec[f->offset + i]);
		return;
	case SLIM_DYN_DATA_LOC:
	case SLIM_DYN_REL_LOC:
		loc = (uint32_t)v;
		if (f->kind == SLIM_DYN_REL_LOC)
			loc = slim_rel_to_data_loc(loc, f->offset + 4);
		str = slim_dyn_ptr(rec, len, loc);
		slim_seq_printf(s, quote ? "\"%.*s\"" : "%.*s",
				(int)strnlen(str, slim_dyn_len(rec, len, loc)), str);
		return;
	case SLIM_DYN_SINT:
		if (f->size < 8 && (v & (1ull << (f->size * 8 - 1))))
			v |= ~0ull << (f->size * 8);
		slim_seq_printf(s, "%lld", (long long)v);
		return;
	case SLIM_DYN_HEX:
		slim_seq_printf(s, "0x%llx", (unsigned long long)v);
		return;
	default:
		slim_seq_printf(s, "%llu", (unsigned long long)v);
	}
}

static int dyn_print(struct slim_seq *s, struct slim_seq *p, const struct slim_event *ev,
		     const void *rec, unsigned int len)
{
	const struct slim_dynevent *d = (const struct slim_dynevent *)ev;
	unsigned int i, start = s->len;

	(void)p;
	for (i = 0; i < d->def.nr; i++) {
		const struct slim_dyn_field *f = &d->def.f[i];

		if (f->offset + f->size > len)
			break;
		slim_seq_printf(s, "%s%s=", i ? " " : "", f->name);
		print_value(s, f, rec, len, d->def.kind == 'e');
	}
	return s->overflow ? -1 : (int)(s->len - start);
}

static int dyn_reg(struct slim_event *ev, enum slim_reg type)
{
	struct slim_dynevent *d = (struct slim_dynevent *)ev;
	unsigned int bit = type <= SLIM_REG_UNREGISTER ? 1 : 2;
	int on = type == SLIM_REG_REGISTER || type == SLIM_REG_PERF_REGISTER;
	unsigned int was = d->enabled, now = on ? was | bit : was & ~bit;
	int ret;

	/* An eprobe takes its source's records while anything takes its own. */
	if (d->def.kind == 'e' && !was && now) {
		ret = slim_eprobe_attach(d);
		if (ret)
			return ret;
	} else if (d->def.kind == 'e' && was && !now) {
		slim_eprobe_detach(d);
	}
	__atomic_store_n(&d->enabled, now, __ATOMIC_RELEASE);
	return 0;
}

/* The strings blob: system, each field's type and name, the print fmt. */
static int build_class(struct slim_dynevent *d)
{
	struct slim_seq s;
	unsigned int i, at;
	int ret;

	d->fields = calloc(d->def.nr ? d->def.nr : 1, sizeof(*d->fields));
	if (!d->fields)
		return -ENOMEM;
	slim_seq_init_dynamic(&s);
	slim_seq_puts(&s, d->def.system);
	slim_seq_putc(&s, 0);
	for (i = 0; i < d->def.nr; i++) {
		const struct slim_dyn_field *f = &d->def.f[i];
		struct slim_field *sf = &d->fields[i];

		sf->type = (uint16_t)s.len;
		slim_seq_puts(&s, f->type);
		slim_seq_putc(&s, 0);
		sf->name = (uint16_t)s.len;
		slim_seq_puts(&s, f->name);
		slim_seq_putc(&s, 0);
		sf->offset = f->offset, sf->size = f->size, sf->is_signed = f->is_signed;
		sf->filter_type = f->kind == SLIM_DYN_ARRAY ? SLIM_FILTER_OTHER : SLIM_FILTER_AUTO;
	}
	at = s.len;
	print_fmt(&s, &d->def);
	slim_seq_putc(&s, 0);
	if (s.overflow || s.len > 0xffff) {
		ret = s.overflow ? -ENOMEM : -E2BIG;
		slim_seq_free(&s);
		return ret;
	}
	d->strings = s.buf;
	d->class = (struct slim_event_class){
		.fields = { d->strings, d->fields, (uint16_t)d->def.nr, (uint16_t)d->def.size },
		.print_fmt = (uint16_t)at,
		.reg = dyn_reg,
		.funcs = { .trace = dyn_print },
	};
	return 0;
}

static void dyn_free(void *p)
{
	struct slim_dynevent *d = p;

	free(d->strings);
	free(d->fields);
	free(d);
}

/* ---- define, remove ------------------------------------------------------ */

static int log_error(const char *line, const struct slim_dyn_error *err, int ret)
{
	slim_error_log(&slim_instance_top.log, err->loc ? err->loc : "dynamic_events",
		       err->msg ? err->msg : "Error", line, err->pos);
	return ret;
}

static struct slim_dynevent *find_dyn(const char *system, const char *name)
{
	struct slim_dynevent *d;

	for (d = dyn_list; d; d = d->next) {
		if (!strcmp(d->def.name, name) && (!system || !system[0] ||
						   !strcmp(d->def.system, system)))
			return d;
	}
	return NULL;
}

static int is_source(const struct slim_dynevent *d)
{
	const struct slim_dynevent *e;

	for (e = dyn_list; e; e = e->next) {
		if (e->def.kind == 'e' && e->src == &d->ev)
			return 1;
	}
	return 0;
}

/* Held, enabled or consumed: what keeps the event whatever else goes. */
static int in_use(const struct slim_dynevent *d)
{
	return d->handles > 0 || d->enabled ||
	       (d->ev.flags & (SLIM_EVENT_FL_ENABLED | SLIM_EVENT_FL_CONSUMER));
}

static int busy(const struct slim_dynevent *d)
{
	return in_use(d) || is_source(d);
}

static int resolve_source(struct slim_dynevent *d, const char *line, struct slim_dyn_error *err)
{
	d->src = slim_event_find_locked(d->def.src_system, d->def.src_name);
	if (!d->src) {
		err->loc = "event_probe";
		err->msg = "Attached event does not exist";
		err->pos = (int)(strstr(line, d->def.src_name) - line) -
			   (int)strlen(d->def.src_system) - 1;
		return -ENOENT;
	}
	return slim_dyn_resolve_args(&d->def, slim_event_fields(d->src), line, err);
}

static int define_locked(const char *line, struct slim_dyn_def *def, struct slim_dynevent **out,
			 struct slim_dyn_error *err)
{
	struct slim_dynevent *d, **p;
	int ret;

	/* ftrace:user_stack too: two formats under one name would confuse readers. */
	if (slim_event_name_taken_locked(def->system, def->name)) {
		err->loc = def->kind == 'e' ? "event_probe" : "user_events";
		err->msg = "Given group/event name is already used by another event";
		err->pos = (int)(strstr(line, def->name) - line);
		return -EEXIST;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->def = *def;
	ret = def->kind == 'e' ? resolve_source(d, line, err) : 0;
	if (!ret)
		ret = build_class(d);
	if (!ret)
		ret = slim_registry_add_event(&d->ev, d->def.name, &d->class);
	if (ret) {
		dyn_free(d);
		return ret;
	}
	for (p = &dyn_list; *p; p = &(*p)->next)
		;
	*p = d;
	*out = d;
	return 0;
}

static int remove_locked(struct slim_dynevent *d)
{
	struct slim_dynevent **p;

	if (busy(d))
		return -EBUSY;
	for (p = &dyn_list; *p != d; p = &(*p)->next)
		;
	*p = d->next;
	slim_registry_remove_event(&d->ev);
	/* An eprobe's callback or a reader may still be inside it. */
	slim_rcu_free(d, dyn_free);
	return 0;
}

static int remove_cmd(const char *line, const struct slim_dyn_def *def,
		      struct slim_dyn_error *err)
{
	struct slim_dynevent *d = find_dyn(def->system, def->name);
	int ret;

	if (!d) {
		err->msg = "No such event";
		err->pos = (int)(strstr(line, def->name) - line);
		return -ENOENT;
	}
	ret = remove_locked(d);
	if (ret) {
		err->msg = "Event is in use";
		err->pos = (int)(strstr(line, def->name) - line);
	}
	return ret;
}

/* One command: 0 or -errno, the refusal logged. */
static int command_locked(const char *line, struct slim_dynevent **out)
{
	struct slim_dyn_error err = { 0 };
	struct slim_dyn_def *def = malloc(sizeof(*def));
	struct slim_dynevent *d = NULL;
	int ret;

	if (!def)
		return -ENOMEM;
	ret = slim_dyn_parse(line, def, &err);
	if (!ret && def->kind == '-')
		ret = out ? -EINVAL : remove_cmd(line, def, &err);
	else if (!ret)
		ret = define_locked(line, def, &d, &err);
	free(def);
	if (ret && ret != -ENOMEM)
		return log_error(line, &err, ret);
	if (out)
		*out = d;
	return ret;
}

/* ---- the dynamic_events file -------------------------------------------- */

/* A truncating write removes every event first, or none if one is busy. */
static int remove_all(void)
{
	struct slim_dynevent *d;

	/* A source is not kept by its eprobes: they all go too. */
	for (d = dyn_list; d; d = d->next) {
		if (in_use(d))
			return -EBUSY;
	}
	/* Eprobes first: they are what keeps their sources busy. */
	for (d = dyn_list; d;) {
		struct slim_dynevent *next = d->next;

		if (d->def.kind == 'e')
			remove_locked(d);
		d = next;
	}
	while (dyn_list)
		remove_locked(dyn_list);
	return 0;
}

int slim_dyn_ctl_write(const char *text, int append)
{
	char *copy = strdup(text), *line, *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	if (!append)
		ret = remove_all();
	for (line = strtok_r(copy, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		char *hash = strchr(line, '#');

		if (hash)
			*hash = '\0';
		if (line[strspn(line, " \t")])
			ret = command_locked(line, NULL);
	}
	free(copy);
	return ret;
}

/* As the kernel reads them back: u:NAME f1; f2 and e:GRP/NAME SYS.EV args. */
static void show(struct slim_seq *s, const struct slim_dynevent *d)
{
	unsigned int i;

	if (d->def.kind == 'u' && !strcmp(d->def.system, SLIM_DYN_USER_SYSTEM))
		slim_seq_printf(s, "u:%s", d->def.name);
	else
		slim_seq_printf(s, "%c:%s/%s", d->def.kind, d->def.system, d->def.name);
	if (d->def.kind == 'e')
		slim_seq_printf(s, " %s.%s", d->def.src_system, d->def.src_name);
	for (i = 0; i < d->def.nr; i++)
		slim_seq_printf(s, "%s%s", d->def.kind == 'u' && i ? "; " : " ", d->def.f[i].text);
	slim_seq_putc(s, '\n');
}

int slim_dyn_ctl_read(struct slim_seq *s)
{
	const struct slim_dynevent *d;

	for (d = dyn_list; d; d = d->next)
		show(s, d);
	return 0;
}

/* An eprobe's source is unloaded: it keeps its definition, not its source. */
static void dyn_unloading(struct slim_event *ev, void *arg)
{
	struct slim_dynevent *d;

	(void)arg;
	for (d = dyn_list; d; d = d->next) {
		if (d->src == ev)
			d->src = NULL;
	}
}

static struct slim_event_observer observer = { .unloading = dyn_unloading };

__attribute__((constructor(102))) static void dyn_init(void)
{
	slim_event_observer_add(&observer);
}

/* ---- the C API ------------------------------------------------------------ */

SLIM_EXPORT int slim_dynevent_create(const char *text, struct slim_dynevent **ev)
{
	int ret;

	if (!text || !ev)
		return -EINVAL;
	pthread_mutex_lock(&slim_event_mutex);
	ret = command_locked(text, ev);
	if (!ret)
		(*ev)->handles++;
	pthread_mutex_unlock(&slim_event_mutex);
	return ret;
}

SLIM_EXPORT void slim_dynevent_release(struct slim_dynevent *ev)
{
	if (!ev)
		return;
	pthread_mutex_lock(&slim_event_mutex);
	ev->handles--;
	pthread_mutex_unlock(&slim_event_mutex);
}

SLIM_EXPORT int slim_dynevent_remove(struct slim_dynevent *ev)
{
	int ret;

	if (!ev)
		return -EINVAL;
	pthread_mutex_lock(&slim_event_mutex);
	ev->handles--;
	ret = remove_locked(ev);
	if (ret)
		ev->handles++;
	pthread_mutex_unlock(&slim_event_mutex);
	return ret;
}

SLIM_EXPORT const volatile unsigned int *slim_dynevent_enabled(const struct slim_dynevent *ev)
{
	return &ev->enabled;
}

SLIM_EXPORT struct slim_event *slim_dynevent_event(struct slim_dynevent *ev)
{
	return ev ? &ev->ev : NULL;
}

/* ---- firing ---------------------------------------------------------------- */

/* Bytes [off, off+n) of the payload the iovecs carry. */
static void iov_read(const struct iovec *iov, int nr, size_t off, void *dst, size_t n)
{
	unsigned char *out = dst;
	int i;

	for (i = 0; i < nr && n; i++) {
		size_t l = iov[i].iov_len, k;

		if (off >= l) {
			off -= l;
			continue;
		}
		k = l - off < n ? l - off : n;
		memcpy(out, (const char *)iov[i].iov_base + off, k);
		out += k, n -= k, off = 0;
	}
}

/* The kernel's validation: every string inside the record, NUL-ended. */
static int validate(const struct slim_dynevent *d, const struct iovec *iov, int nr,
		    size_t rec_len)
{
	unsigned int i;

	for (i = 0; i < d->def.nr; i++) {
		const struct slim_dyn_field *f = &d->def.f[i];
		uint32_t loc, start, n;
		char last;

		if (f->kind != SLIM_DYN_DATA_LOC && f->kind != SLIM_DYN_REL_LOC)
			continue;
		iov_read(iov, nr, f->offset - 8, &loc, 4);
		start = (loc & 0xffff) + (f->kind == SLIM_DYN_REL_LOC ? f->offset + 4u : 0);
		n = loc >> 16;
		if (!n || start < d->def.size || start + n > rec_len)
			return -EFAULT;
		iov_read(iov, nr, start + n - 1 - 8, &last, 1);
		if (last)
			return -EFAULT;
	}
	return 0;
}

static SLIM_COLD int fire_slow(struct slim_dynevent *d, const struct iovec *iov, int nr)
{
	struct slim_reserve r;
	size_t total = 0;
	char *rec;
	unsigned long tok;
	int i, ret;

	if (d->def.kind != 'u' || nr < 0)
		return -EINVAL;
	for (i = 0; i < nr; i++)
		total += iov[i].iov_len;
	if (total + 8 < d->def.size)
		return -EINVAL;
	if (total > 0xffff - 8)
		return -E2BIG;
	ret = validate(d, iov, nr, total + 8);
	if (ret)
		return ret;
	tok = slim_rcu_read_lock();
	for (rec = slim_event_reserve(&r, &d->ev, (unsigned int)total + 8); rec;
	     rec = slim_event_commit_next(&r))
		iov_read(iov, nr, 0, rec + 8, total);
	slim_rcu_read_unlock(tok);
	return 0;
}

SLIM_EXPORT int slim_dynevent_fire(struct slim_dynevent *ev, const struct iovec *iov, int nr)
{
	if (slim_likely(!SLIM_READ_ONCE(ev->enabled)))
		return 0;
	return fire_slow(ev, iov, nr);
}
