// SPDX-License-Identifier: MIT
/*
 * Instances: independent sessions, each with its own buffers and its
 * own event files, created and removed like the kernel's
 * instances/NAME directories.
 *
 * An event file is made the first time an instance touches an event
 * (enables it, or sets its filter) and lives until the instance is
 * removed or the event's object is unloaded.  Enabling attaches the
 * file's target to the event; the record path then writes into the
 * instance's buffers.  An event enabled nowhere has no target and no
 * probe: it costs only the disabled call site.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "buffers/buffer.h"
#include "events/set_event.h"
#include "filter/filter.h"
#include "session/instance.h"

struct slim_instance slim_instance_top = {
	.bufs = &slim_bufset_top,
};

/* The named instances, in creation order, after the top level. */
static struct slim_instance *instances;

/* ---- event files ------------------------------------------------------- */

static int grow_files(struct slim_instance *inst, unsigned int id)
{
	unsigned int n = inst->nr_files ? inst->nr_files : 64;
	struct slim_event_file **f;

	while (n <= id)
		n *= 2;
	f = realloc(inst->files, n * sizeof(*f));
	if (!f)
		return -ENOMEM;
	memset(f + inst->nr_files, 0, (n - inst->nr_files) * sizeof(*f));
	inst->files = f;
	inst->nr_files = n;
	return 0;
}

struct slim_event_file *slim_event_file(struct slim_instance *inst,
					struct slim_event *ev, int create)
{
	unsigned int id = (unsigned int)ev->event.type;
	struct slim_event_file *f;

	if (!id)
		return NULL;
	if (id < inst->nr_files && inst->files[id])
		return inst->files[id];
	if (!create || (id >= inst->nr_files && grow_files(inst, id)))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->target.kind = SLIM_TARGET_BUFFERS;
	f->target.bufs = inst->bufs;
	f->ev = ev;
	f->inst = inst;
	inst->files[id] = f;
	return f;
}

int slim_instance_enable(struct slim_instance *inst, struct slim_event *ev, int enable)
{
	struct slim_event_file *f;
	int ret;

	if (!slim_event_entry(ev))
		return -ENOENT;
	f = slim_event_file(inst, ev, enable);
	if (!f)
		return enable ? -ENOMEM : 0;
	if (!!enable == f->enabled)
		return 0;
	if (f->soft_refs) {
		/* Attached for its triggers: enable says whether it records. */
		if (enable)
			__atomic_fetch_and(&f->target.flags, ~SLIM_TARGET_FL_SOFT_DISABLED,
					   __ATOMIC_RELEASE);
		else
			__atomic_fetch_or(&f->target.flags, SLIM_TARGET_FL_SOFT_DISABLED,
					  __ATOMIC_RELEASE);
		f->enabled = !!enable;
		return 0;
	}
	/* A trigger's disable_event may have left it soft-disabled. */
	if (enable)
		__atomic_fetch_and(&f->target.flags, ~SLIM_TARGET_FL_SOFT_DISABLED,
				   __ATOMIC_RELEASE);
	ret = enable ? slim_event_target_add(ev, &f->target) :
		       slim_event_target_del(ev, &f->target);
	if (!ret)
		f->enabled = !!enable;
	return ret;
}

int slim_event_file_soft_get(struct slim_event_file *f)
{
	int ret;

	if (!f->soft_refs && !f->enabled) {
		__atomic_fetch_or(&f->target.flags, SLIM_TARGET_FL_SOFT_DISABLED,
				  __ATOMIC_RELEASE);
		ret = slim_event_target_add(f->ev, &f->target);
		if (ret) {
			__atomic_fetch_and(&f->target.flags, ~SLIM_TARGET_FL_SOFT_DISABLED,
					   __ATOMIC_RELEASE);
			return ret;
		}
	}
	f->soft_refs++;
	return 0;
}

void slim_event_file_soft_put(struct slim_event_file *f)
{
	if (--f->soft_refs)
		return;
	/* Detached if the user did not enable it; the next enable clears the flag. */
	if (!f->enabled)
		slim_event_target_del(f->ev, &f->target);
	else
		__atomic_fetch_and(&f->target.flags, ~SLIM_TARGET_FL_SOFT_DISABLED,
				   __ATOMIC_RELEASE);
}

int slim_instance_enabled(struct slim_instance *inst, const struct slim_event *ev)
{
	unsigned int id = (unsigned int)ev->event.type;

	return id < inst->nr_files && inst->files[id] && inst->files[id]->enabled;
}

static void file_free(void *p)
{
	struct slim_event_file *f = p;

	slim_filter_free(f->target.filter);
	free(f->filter_note);
	free(f);
}

/* Detach and drop ev's file in inst (its event or the instance goes). */
static void file_drop(struct slim_instance *inst, unsigned int id)
{
	struct slim_event_file *f = id < inst->nr_files ? inst->files[id] : NULL;

	if (!f)
		return;
	if (f->triggers_drop)
		f->triggers_drop(f);
	if (f->enabled || f->soft_refs)
		slim_event_target_del(f->ev, &f->target);
	inst->files[id] = NULL;
	/* The record path may still hold it: free after a grace period. */
	slim_rcu_free(f, file_free);
}

SLIM_EXPORT int slim_event_enable(struct slim_event *ev, int enable)
{
	int ret;

	pthread_mutex_lock(&slim_event_mutex);
	ret = slim_instance_enable(&slim_instance_top, ev, enable);
	pthread_mutex_unlock(&slim_event_mutex);
	return ret;
}

/* ---- set_event --------------------------------------------------------- */

struct apply_arg {
	struct slim_instance *inst;
	const char *spec;
	int enable, matched, err;
};

static int apply_one(struct slim_event *ev, void *arg)
{
	struct apply_arg *a = arg;
	int ret;

	if (!slim_set_event_matches(ev, a->spec))
		return 0;
	a->matched++;
	ret = slim_instance_enable(a->inst, ev, a->enable);
	if (ret && !a->err)
		a->err = ret;
	return 0;
}

int slim_instance_set_event(struct slim_instance *inst, const char *word)
{
	struct apply_arg a = { .inst = inst, .enable = 1 };

	word += strspn(word, " \t");
	if (*word == '!') {
		a.enable = 0;
		word++;
	}
	a.spec = word;
	if (!*word)
		return 0;
	slim_event_for_each(apply_one, &a);
	if (!a.matched)
		return -EINVAL;
	return a.err;
}

/* ---- instances --------------------------------------------------------- */

struct slim_instance *slim_instance_find(const char *name)
{
	struct slim_instance *inst;

	if (!name || !*name)
		return &slim_instance_top;
	for (inst = instances; inst; inst = inst->next) {
		if (strcmp(inst->name, name) == 0)
			return inst;
	}
	return NULL;
}

int slim_instance_for_each(int (*fn)(struct slim_instance *inst, void *arg), void *arg)
{
	struct slim_instance *inst;
	int ret = fn(&slim_instance_top, arg);

	for (inst = instances; inst && !ret; inst = inst->next)
		ret = fn(inst, arg);
	return ret;
}

static int valid_name(const char *name)
{
	size_t n = strlen(name);

	return n > 0 && n <= SLIM_INSTANCE_NAME_MAX && !strchr(name, '/') &&
	       strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

int slim_instance_create(const char *name)
{
	struct slim_instance *inst, **tail;
	int err = 0;

	if (!name || !valid_name(name))
		return -EINVAL;
	if (slim_instance_find(name))
		return -EEXIST;
	inst = calloc(1, sizeof(*inst));
	if (!inst)
		return -ENOMEM;
	inst->name = strdup(name);
	inst->bufs = inst->name ? slim_bufset_new(&err) : NULL;
	if (!inst->bufs) {
		free(inst->name);
		free(inst);
		return err ? err : -ENOMEM;
	}
	for (tail = &instances; *tail; tail = &(*tail)->next)
		;
	*tail = inst;
	return 0;
}

int slim_instance_remove(const char *name)
{
	struct slim_instance *inst, **p;
	unsigned int id;

	if (!name || !valid_name(name))
		return -EINVAL;
	for (p = &instances; *p && strcmp((*p)->name, name) != 0; p = &(*p)->next)
		;
	inst = *p;
	if (!inst)
		return -ENOENT;
	if (inst->busy)
		return -EBUSY;
	/* Triggers first: one may act on another event file of the instance. */
	for (id = 0; id < inst->nr_files; id++) {
		if (inst->files[id] && inst->files[id]->triggers_drop)
			inst->files[id]->triggers_drop(inst->files[id]);
	}
	for (id = 0; id < inst->nr_files; id++)
		file_drop(inst, id);
	*p = inst->next;
	/* No thread is still recording into its buffers after this. */
	slim_rcu_synchronize();
	slim_bufset_free(inst->bufs);
	slim_system_filters_free(inst);
	slim_error_log_clear(&inst->log);
	free(inst->files);
	free(inst->name);
	free(inst);
	return 0;
}

void slim_instance_get_busy(struct slim_instance *inst)
{
	inst->busy++;
}

void slim_instance_put_busy(struct slim_instance *inst)
{
	inst->busy--;
}

/* ---- what the registry tells ------------------------------------------ */

static void event_unloading(struct slim_event *ev, void *arg)
{
	struct slim_instance *inst;

	(void)arg;
	file_drop(&slim_instance_top, (unsigned int)ev->event.type);
	for (inst = instances; inst; inst = inst->next)
		file_drop(inst, (unsigned int)ev->event.type);
}

static struct slim_event_observer observer = {
	.unloading = event_unloading,
};

/* Early, so that it is there before any object can be unloaded. */
__attribute__((constructor(101))) static void session_init(void)
{
	slim_event_observer_add(&observer);
}
