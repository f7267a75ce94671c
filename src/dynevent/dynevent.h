/* SPDX-License-Identifier: MIT */
/*
 * Dynamic events inside the library: the parsed definition
 * (src/dynevent/parse.c), the events themselves (dynevent.c), event
 * probes (eprobe.c), and what the `dynamic_events` file calls.
 */
#ifndef SLIM_DYNEVENT_INT_H
#define SLIM_DYNEVENT_INT_H

#include <stdint.h>
#include <slimtrace/dynevent.h>
#include <slimtrace/event.h>

#pragma GCC visibility push(hidden)

struct slim_seq;

#define SLIM_DYN_NAME_MAX	64
#define SLIM_DYN_MAX_FIELDS	32
#define SLIM_DYN_USER_SYSTEM	"user_events"
#define SLIM_DYN_EPROBE_GROUP	"eprobes"

/* How a field is stored and printed. */
enum slim_dyn_kind {
	SLIM_DYN_UINT,		/* u8..u64, unsigned int... */
	SLIM_DYN_SINT,		/* s8..s64, int, long... */
	SLIM_DYN_HEX,		/* an eprobe's :x8..:x64 */
	SLIM_DYN_CHARS,		/* char[N] */
	SLIM_DYN_ARRAY,		/* another TYPE[N], or struct TYPE NAME SIZE */
	SLIM_DYN_DATA_LOC,	/* __data_loc char[], an eprobe's :string */
	SLIM_DYN_REL_LOC,	/* __rel_loc char[] */
};

struct slim_dyn_field {
	char type[48];		/* as the format file shows it: "u32", "char[16]"... */
	char name[SLIM_DYN_NAME_MAX];
	char text[128];		/* as read back: "u32 count", "name=$f:u32" */
	uint16_t offset, size;
	uint8_t kind, is_signed;
	/* An eprobe's argument: the source field. */
	char src[SLIM_DYN_NAME_MAX];
	uint16_t src_offset, src_size;
	uint8_t src_kind, src_signed;
};

/* What one command says, before anything is made. */
struct slim_dyn_def {
	char kind;		/* 'u', 'e', or '-' (remove) */
	char system[SLIM_DYN_NAME_MAX], name[SLIM_DYN_NAME_MAX];
	char src_system[SLIM_DYN_NAME_MAX], src_name[SLIM_DYN_NAME_MAX];
	struct slim_dyn_field f[SLIM_DYN_MAX_FIELDS];
	unsigned int nr;
	unsigned int size;	/* fixed part, common header included */
};

/* Why a command was refused: the kernel's message and the caret column. */
struct slim_dyn_error {
	const char *loc, *msg;
	int pos;
};

/*
 * One command line into def: 0, or -errno with err filled.  An eprobe's
 * argument types come later, from its source (slim_dyn_resolve_args).
 */
int slim_dyn_parse(const char *line, struct slim_dyn_def *def, struct slim_dyn_error *err);
/* An eprobe's arguments against its source's fields: 0 or -errno. */
int slim_dyn_resolve_args(struct slim_dyn_def *def, const struct slim_field_table *src,
			  const char *line, struct slim_dyn_error *err);

/*
 * The `dynamic_events` file, with slim_event_mutex held: a refused
 * command is reported in the top level's error_log.
 */
int slim_dyn_ctl_write(const char *text, int append);
int slim_dyn_ctl_read(struct slim_seq *s);

/* The eprobe part of a dynamic event (eprobe.c). */
struct slim_dynevent;
int slim_eprobe_attach(struct slim_dynevent *d);
void slim_eprobe_detach(struct slim_dynevent *d);

#pragma GCC visibility pop

#pragma GCC visibility push(hidden)
/* A dynamic event; ev first, so the event leads back to it. */
struct slim_dynevent {
	struct slim_event ev;
	struct slim_event_class class;
	struct slim_dyn_def def;
	char *strings;
	struct slim_field *fields;
	unsigned int enabled;		/* 1: buffers, 2: consumers */
	int handles;			/* C API handles held */
	struct slim_event *src;		/* an eprobe's source, NULL once unloaded */
	struct slim_dynevent *next;
};
#pragma GCC visibility pop

#endif
