/* SPDX-License-Identifier: MIT */
/*
 * Events and event classes (seed patches 1, 3-9).
 *
 * Everything that the events of one kind share lives once, in their
 * class: the system name, the probe, the consumer probe, reg(), the field
 * table (or get_fields()), raw_init() and the printers.  An event is
 * little more than its tracepoint, its id, a flags word, a filter slot
 * and a data pointer.
 *
 * An event comes in two halves.  The writable half, struct slim_event,
 * is what the hot path touches.  The constant half, struct
 * slim_event_desc, sits in the "slim_events" ELF section and holds the
 * name, the class and an optional print override, as offsets relative to
 * itself so that a position-independent program needs no relocation for
 * it.  The id (event.type, the common_type of every record) links the
 * two: there is no second copy of it (patch 8).
 */
#ifndef SLIMTRACE_EVENT_H
#define SLIMTRACE_EVENT_H

#include <stdint.h>
#include <slimtrace/compiler.h>
#include <slimtrace/field.h>
#include <slimtrace/tracepoint.h>

SLIM_BEGIN_DECLS

struct slim_seq;
struct slim_event;
struct slim_filter;

/* The kernel's enum trace_reg. */
enum slim_reg {
	SLIM_REG_REGISTER,
	SLIM_REG_UNREGISTER,
	SLIM_REG_PERF_REGISTER,		/* attach the class's consumer probe */
	SLIM_REG_PERF_UNREGISTER,
};

/*
 * Flags of an event: one word (patch 9), for what is event-wide.  What
 * belongs to one instance (enabled there, its filter) lives in that
 * instance's event file.
 */
enum {
	SLIM_EVENT_FL_ENABLED		= 1 << 0,	/* REGISTER done: enabled in an instance */
	SLIM_EVENT_FL_CONSUMER		= 1 << 2,	/* PERF_REGISTER done: a consumer is attached */
};

/*
 * Formats one record.  s receives the text; p is a scratch sequence for
 * helpers such as __print_flags() whose result is printed with %s.
 */
typedef int (*slim_print_fn)(struct slim_seq *s, struct slim_seq *p,
			     const struct slim_event *ev,
			     const void *rec, unsigned int len);

/* The kernel's trace_event_functions: NULL slots use the generic ones. */
struct slim_event_funcs {
	slim_print_fn trace;	/* the TP_printk() text */
	slim_print_fn raw;	/* trace_options raw */
	slim_print_fn hex;	/* trace_options hex */
	slim_print_fn binary;	/* trace_options bin */
};

struct slim_event_class {
	/* Field table; its strings start with the system name. */
	struct slim_field_table fields;
	uint16_t print_fmt;		/* offset of the print fmt in fields.strings */
	slim_probe_func probe;		/* called as probe(args..., event) */
	/*
	 * The consumer probe, or NULL: then probe serves the consumers too
	 * (slim_event_reserve() hands it every target of the event).
	 */
	slim_probe_func perf_probe;
	/*
	 * Called once when the event's first instance enables it
	 * (REGISTER) and once when the last disables it (UNREGISTER); the
	 * same for the first and last consumer (PERF_REGISTER/UNREGISTER).
	 * NULL: slim_event_reg(), which attaches probe/perf_probe.
	 */
	int (*reg)(struct slim_event *ev, enum slim_reg type);
	/* For classes whose events differ in fields (the syscall case). */
	const struct slim_field_table *(*get_fields)(const struct slim_event *ev);
	int (*raw_init)(struct slim_event *ev);
	struct slim_event_funcs funcs;
};

/* The embedded trace_event: its type is the event's id. */
struct slim_trace_event {
	int type;
};

struct slim_targets;

struct slim_event {
	struct slim_tracepoint tp;
	struct slim_trace_event event;
	unsigned int flags;
	/* RCU: where records go (instances' event files, consumers). */
	const struct slim_targets *targets;
	void *data;			/* the class's own use (a dynamic event's probe...) */
};

/* What DEFINE_EVENT_PRINT overrides. */
struct slim_event_print {
	const char *print_fmt;
	slim_print_fn trace;
};

typedef const struct slim_event_class *(*slim_class_getter)(void);

/* The constant half, in the "slim_events" section. */
struct slim_event_desc {
	int32_t event;		/* struct slim_event */
	int32_t name;		/* its name */
#ifdef __cplusplus
	int32_t event_class;	/* C++ reserves the kernel's name */
#else
	int32_t class;		/* slim_class_getter */
#endif
	int32_t print;		/* struct slim_event_print, or 0 */
};

/* TRACE_EVENT_FN's functions, in the "slim_event_fns" section. */
struct slim_event_fns {
	struct slim_event *event;
	int (*reg)(void);	/* before the first probe; an error refuses it */
	void (*unreg)(void);	/* after the last probe is gone */
};

/* TRACE_DEFINE_ENUM / TRACE_DEFINE_SIZEOF, in the "slim_eval_maps" section. */
struct slim_eval_map {
	const char *system;
	const char *name;	/* "NAME" or "sizeof(TYPE)" */
	long long value;
};

/*
 * The sections of one loaded object (the executable or a shared object),
 * announced by the constructor that CREATE_TRACE_POINTS generates; the
 * destructor withdraws them when the object is unloaded.  Calls for the
 * same object are counted, so every file that defines events may call.
 * size is sizeof(struct slim_object_sections) as the object saw it, so
 * that a later library can tell which members an object knows.
 */
struct slim_object_sections {
	unsigned int size;
	const struct slim_event_desc *ev_start, *ev_stop;
	const struct slim_tracepoint_desc *tp_start, *tp_stop;
	const struct slim_event_fns *fns_start, *fns_stop;
	const struct slim_eval_map *maps_start, *maps_stop;
};

SLIM_EXPORT void slim_object_register(const struct slim_object_sections *s);
/* The same for objects built before the fns and eval map sections. */
SLIM_EXPORT void slim_sections_register(const struct slim_event_desc *ev_start,
					const struct slim_event_desc *ev_stop,
					const struct slim_tracepoint_desc *tp_start,
					const struct slim_tracepoint_desc *tp_stop);
SLIM_EXPORT void slim_sections_unregister(const struct slim_event_desc *ev_start,
					  const struct slim_tracepoint_desc *tp_start);

/* Look-ups.  The returned strings live as long as the event's object is loaded. */
SLIM_EXPORT struct slim_event *slim_event_find(const char *system, const char *name);
SLIM_EXPORT struct slim_event *slim_event_by_id(int id);
SLIM_EXPORT const char *slim_event_name(const struct slim_event *ev);
SLIM_EXPORT const char *slim_event_system(const struct slim_event *ev);
/* Two functions named as the structs they return, as C allows: quiet for g++ -Wshadow. */
#ifdef __cplusplus
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#endif
SLIM_EXPORT const struct slim_event_class *slim_event_class(const struct slim_event *ev);
SLIM_EXPORT const struct slim_event_funcs *slim_event_funcs(const struct slim_event *ev);
#ifdef __cplusplus
#pragma GCC diagnostic pop
#endif
SLIM_EXPORT const char *slim_event_print_fmt(const struct slim_event *ev);
SLIM_EXPORT const struct slim_field_table *slim_event_fields(const struct slim_event *ev);
/*
 * Calls fn for every loaded event, in id order, until fn returns nonzero.
 * The library's internal events (ftrace:user_stack) are not among them,
 * as slim_event_find() does not find them: they cannot be enabled.
 */
SLIM_EXPORT int slim_event_for_each(int (*fn)(struct slim_event *ev, void *arg), void *arg);

/* Start or stop recording an event in the top-level instance: 0 or -errno. */
SLIM_EXPORT int slim_event_enable(struct slim_event *ev, int enable);
/* The default reg(): what a class without its own reg() gets. */
SLIM_EXPORT int slim_event_reg(struct slim_event *ev, enum slim_reg type);

/*
 * The record path, called by class probes.  An event may go to several
 * targets (each instance where it is enabled, each consumer); a probe
 * writes the record once per target:
 *
 *	for (rec = slim_event_reserve(&r, ev, size); rec;
 *	     rec = slim_event_commit_next(&r))
 *		fill rec;
 *
 * The fields are private to the record path.
 */
struct slim_reserve {
	void *rec;
	struct slim_event *ev;
	const struct slim_targets *targets;
	void *target;		/* the one being written */
	void *buffer;		/* its thread buffer, or NULL for a consumer */
	void *rb;		/* the buffer's ring as it was at reserve time */
	uint64_t ts;
	unsigned int len;
	unsigned int next, end;	/* the targets still to write */
};
/*
 * Room for a record of size bytes in the event's first target, common
 * header filled, 4-byte aligned (SLIM_RECORD_ALIGN); NULL when there is
 * none (or every one lost it, counted).
 * Only from a probe: the tracepoint's RCU read-side section keeps the
 * targets alive until the last commit.
 */
SLIM_EXPORT void *slim_event_reserve(struct slim_reserve *r, struct slim_event *ev,
				     unsigned int size);
/* Runs the target's filter, then commits or discards. */
SLIM_EXPORT void slim_event_commit(struct slim_reserve *r);
/* slim_event_commit(), then room in the next target (NULL: done). */
SLIM_EXPORT void *slim_event_commit_next(struct slim_reserve *r);
/* Like slim_event_reserve(), for a class's own perf_probe: consumers only. */
SLIM_EXPORT void *slim_consumer_reserve(struct slim_reserve *r, struct slim_event *ev,
					unsigned int size);

/* Bounds-checked access to a dynamic field of a record (read side). */
static inline const void *slim_dyn_ptr(const void *rec, unsigned int len, uint32_t loc)
{
	uint32_t off = slim_data_loc_offset(loc), n = slim_data_loc_len(loc);

	if (off > len || n > len - off)
		return "";
	return (const char *)rec + off;
}

static inline unsigned int slim_dyn_len(const void *rec, unsigned int len, uint32_t loc)
{
	uint32_t off = slim_data_loc_offset(loc), n = slim_data_loc_len(loc);

	(void)rec;
	return (off > len || n > len - off) ? 0 : n;
}

/*
 * Room for one dynamic field while sizing a record: returns its
 * __data_loc word and advances *off; a field or record too large for the
 * 16-bit encoding makes *off 0, and the event is then lost.
 */
static inline uint32_t slim_dyn_add(unsigned int *off, unsigned long len)
{
	uint32_t loc = *off | (uint32_t)len << 16;

	if (!*off || len > 0xffff || *off + len > 0xffff) {
		*off = 0;
		return 0;
	}
	*off += (unsigned int)len;
	return loc;
}

/* __assign_str(): copy what was measured, and always end it. */
static inline void slim_assign_str(char *dst, const char *src, unsigned int len)
{
	memcpy(dst, src, len - 1);
	dst[len - 1] = '\0';
}

/*
 * A __rel_loc word: the offset counts from the end of the locator, at
 * byte field_end of the record.  loc is the record-relative word that
 * slim_dyn_add() returned.
 */
static inline uint32_t slim_rel_loc(uint32_t loc, unsigned int field_end)
{
	return loc ? (loc & 0xffff0000u) | ((slim_data_loc_offset(loc) - field_end) & 0xffffu)
		   : 0;
}

/* Read side: the record-relative word of a __rel_loc field, 0 if it cannot be one. */
static inline uint32_t slim_rel_to_data_loc(uint32_t rel, unsigned int field_end)
{
	uint32_t off = slim_data_loc_offset(rel) + field_end;

	return off > 0xffff ? 0 : (rel & 0xffff0000u) | off;
}

/* __bitmask(): nr_bits in whole longs, the kernel's record size. */
static inline unsigned long slim_bitmask_bytes(unsigned long nr_bits)
{
	return (nr_bits + 8 * sizeof(long) - 1) / (8 * sizeof(long)) * sizeof(long);
}

/* __cpumask(): the possible CPUs (the kernel's nr_cpumask_bits), set once. */
extern SLIM_EXPORT unsigned int slim_nr_cpu_ids;
SLIM_EXPORT unsigned int slim_cpumask_bits_init(void);

static inline unsigned int slim_cpumask_bits(void)
{
	unsigned int n = SLIM_READ_ONCE(slim_nr_cpu_ids);

	return n ? n : slim_cpumask_bits_init();
}

/* __assign_bitmask() and friends: never more than the record holds. */
static inline void slim_assign_bits(void *dst, unsigned int room, const void *src,
				    unsigned long len)
{
	if (src)
		memcpy(dst, src, len < room ? len : room);
	else
		memset(dst, 0, room);
}

/*
 * __vstring(): the bytes vsnprintf(fmt, *ap) needs, its NUL included,
 * and __assign_vstr(), which formats into them; ap is left as it was.
 * The one formatting done while recording, at the header's request.
 */
SLIM_EXPORT unsigned long slim_vstr_len(const char *fmt, slim_va_list *ap);
SLIM_EXPORT void slim_assign_vstr(char *dst, unsigned int len, const char *fmt,
				  slim_va_list *ap);

SLIM_END_DECLS

#endif /* SLIMTRACE_EVENT_H */
