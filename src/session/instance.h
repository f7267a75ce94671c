/* SPDX-License-Identifier: MIT */
/*
 * Instances and their event files (src/session/): the kernel's
 * trace_array and trace_event_file.
 *
 * An instance is an independent session: its own buffer set (size,
 * overwrite mode, tracing_on, clock, lost counts), trace_options,
 * error_log, and one event file per event it has touched: enabled or
 * not, and its filter.  The top level is the instance without a name;
 * it exists from the start and cannot be removed.
 *
 * Everything here runs with slim_event_mutex held (the control files),
 * except where a function says otherwise.
 */
#ifndef SLIM_SESSION_INSTANCE_H
#define SLIM_SESSION_INSTANCE_H

#include "core/internal.h"
#include "ctl/error_log.h"
#include "events/target.h"

#pragma GCC visibility push(hidden)

struct slim_seq;
struct slim_bufset;

#define SLIM_INSTANCE_NAME_MAX	255

/* trace_options that change how the trace files print */
enum {
	SLIM_TRACE_OPT_RAW = 1 << 0,
	SLIM_TRACE_OPT_HEX = 1 << 1,
	SLIM_TRACE_OPT_BIN = 1 << 2,
};

/* The per-(instance, event) state: the kernel's trace_event_file. */
struct slim_event_file {
	struct slim_target target;	/* what the record path sees */
	struct slim_event *ev;
	struct slim_instance *inst;
	int enabled;			/* enabled by the user: records */
	int soft_refs;			/* soft mode: triggers that need it attached */
	char *filter_note;		/* a refused filter's message, read back */
	/* Triggers (src/trigger/): owned there; dropped through the hook. */
	void *triggers;
	void (*triggers_drop)(struct slim_event_file *f);
};

struct slim_sys_note;

struct slim_instance {
	char *name;			/* NULL: the top level */
	struct slim_bufset *bufs;
	unsigned int trace_options;
	struct slim_error_log log;
	struct slim_event_file **files;	/* by event id, NULL where untouched */
	unsigned int nr_files;
	struct slim_sys_note *sys_filters;	/* events/<sys>/filter texts */
	int busy;			/* open trace_pipe streams, recordings */
	struct slim_instance *next;
};

extern struct slim_instance slim_instance_top;

/* instances/NAME: 0 or -EEXIST, -ENOENT, -EBUSY, -EINVAL, -ENOMEM, -ENOSPC. */
int slim_instance_create(const char *name);
int slim_instance_remove(const char *name);
/* NULL: no such instance.  A NULL or empty name is the top level. */
struct slim_instance *slim_instance_find(const char *name);
/* Every instance, the top level first, until fn returns nonzero. */
int slim_instance_for_each(int (*fn)(struct slim_instance *inst, void *arg), void *arg);

/* An instance stays while busy (trace_pipe open, recording): rmdir says -EBUSY. */
void slim_instance_get_busy(struct slim_instance *inst);
void slim_instance_put_busy(struct slim_instance *inst);

/* ev's file in inst; with create, made if missing (NULL: -ENOMEM). */
struct slim_event_file *slim_event_file(struct slim_instance *inst,
					struct slim_event *ev, int create);
int slim_instance_enable(struct slim_instance *inst, struct slim_event *ev, int enable);
int slim_instance_enabled(struct slim_instance *inst, const struct slim_event *ev);
/*
 * Soft mode, the kernel's SOFT_MODE: the file's target stays attached
 * while a trigger needs it (its own, or another's enable_event and
 * disable_event), soft-disabled unless the user enabled it, so that
 * the event still fires.  enable then only flips SOFT_DISABLED.
 */
int slim_event_file_soft_get(struct slim_event_file *f);
void slim_event_file_soft_put(struct slim_event_file *f);

/* set_event: one word (with '!': disable); -EINVAL when it names nothing. */
int slim_instance_set_event(struct slim_instance *inst, const char *word);

/* The filter files (src/session/filter_files.c). */
int slim_event_filter_write(struct slim_instance *inst, struct slim_event *ev,
			    const char *text);
int slim_event_filter_print(struct slim_instance *inst, struct slim_event *ev,
			    struct slim_seq *s);
int slim_system_filter_write(struct slim_instance *inst, const char *system,
			     const char *text);
int slim_system_filter_print(struct slim_instance *inst, const char *system,
			     struct slim_seq *s);
void slim_system_filters_free(struct slim_instance *inst);

#pragma GCC visibility pop

#endif
