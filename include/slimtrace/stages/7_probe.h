/* SPDX-License-Identifier: MIT */
/*
 * Stage 7: the class's probe, __slim_probe_<class>(args..., event).
 *
 * It sizes the dynamic fields (stage 6), then for each target of the
 * event (each instance where it is enabled, each consumer) reserves a
 * record, stores each dynamic field's __data_loc word, runs
 * TP_fast_assign on the record and commits; the commit runs that
 * target's filter first when it has one.  One probe serves every event
 * of the class: the event arrives as the probe's data (seed patch 3).
 * The common case (one instance, no filter) is reserved and committed
 * inline, without a call (static/record.h, which is ABI); the record
 * size is then a constant for a class without dynamic fields.
 */

#define DECLARE_TRACE(name, proto, args)		__SLIM_END
#define DECLARE_TRACE_NOARGS(name)			__SLIM_END
#define DEFINE_EVENT(template, name, proto, args)	__SLIM_END
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)	__SLIM_END

#define __field(type, item)
#define __field_ext(type, item, ft)
#define __field_struct(type, item)
#define __field_struct_ext(type, item, ft)
#define __array(type, item, len)
/* Each locator: record-relative, or relative to the locator's own end. */
#define __slim_loc___data_loc_(item)	__dyn.item
#define __slim_loc___rel_loc_(item)					\
	slim_rel_loc(__dyn.item, (unsigned int)__slim_rel_end(item))
#define __slim_dyn(loc, item, text, is_signed, bytes)			\
	__entry->loc##item = __slim_loc_##loc(item);
#define __slim_str(loc, item, text, src)				\
	__entry->loc##item = __slim_loc_##loc(item);
#define __slim_strn(loc, item, text, src, len)				\
	__entry->loc##item = __slim_loc_##loc(item);

/* In TP_fast_assign: __entry is the record being written. */
#define __get_dynamic_array(field)					\
	((void *)((char *)__entry + slim_data_loc_offset(__entry->__data_loc_##field)))
#define __get_dynamic_array_len(field)					\
	slim_data_loc_len(__entry->__data_loc_##field)
#define __slim_rel_end(field)						\
	(offsetof(__typeof__(*__entry), __rel_loc_##field) + 4)
/* From the record, not the locator: the compiler sees the record's size. */
#define __get_rel_dynamic_array(field)					\
	((void *)((char *)__entry + __slim_rel_end(field) +		\
		  slim_data_loc_offset(__entry->__rel_loc_##field)))
#define __get_rel_dynamic_array_len(field)				\
	slim_data_loc_len(__entry->__rel_loc_##field)
#define __get_str(field)	((char *)__get_dynamic_array(field))
#define __get_rel_str(field)	((char *)__get_rel_dynamic_array(field))
#define __get_bitmask(field)	((char *)__get_dynamic_array(field))
#define __get_rel_bitmask(field) ((char *)__get_rel_dynamic_array(field))
#define __get_cpumask(field)	((char *)__get_dynamic_array(field))
#define __get_rel_cpumask(field) ((char *)__get_rel_dynamic_array(field))
#define __get_sockaddr(field)	((struct sockaddr *)__get_dynamic_array(field))
#define __get_rel_sockaddr(field) ((struct sockaddr *)__get_rel_dynamic_array(field))

/*
 * The kernel's forms, old and new: __assign_str(dst) and
 * __assign_str(dst, src), __assign_str_len(dst, src, len) (before 6.10).
 * Each copies what stage 6 measured.  The ~ keeps "..." non-empty.
 */
#define __assign_str(...)		__slim_assign_str(__VA_ARGS__, ~)
#define __slim_assign_str(dst, ...)					\
	slim_assign_str(__get_str(dst), __dyn.dst##__src,		\
			__get_dynamic_array_len(dst))
#define __assign_str_len(dst, src, len)	__slim_assign_str(dst, ~)
#define __assign_rel_str(...)		__slim_assign_rel_str(__VA_ARGS__, ~)
#define __slim_assign_rel_str(dst, ...)					\
	slim_assign_str(__get_rel_str(dst), __dyn.dst##__src,		\
			__get_rel_dynamic_array_len(dst))
#define __assign_rel_str_len(dst, src, len) __slim_assign_rel_str(dst, ~)
#define __assign_vstr(dst, fmt, va)					\
	slim_assign_vstr(__get_str(dst), __get_dynamic_array_len(dst), fmt, va)
#define __assign_bitmask(dst, src, nr_bits)				\
	slim_assign_bits(__get_bitmask(dst), __get_dynamic_array_len(dst), \
			 src, slim_bitmask_bytes(nr_bits))
#define __assign_rel_bitmask(dst, src, nr_bits)				\
	slim_assign_bits(__get_rel_bitmask(dst),			\
			 __get_rel_dynamic_array_len(dst), src,		\
			 slim_bitmask_bytes(nr_bits))
#define __assign_cpumask(dst, src)					\
	slim_assign_bits(__get_cpumask(dst), __get_dynamic_array_len(dst), \
			 src, __get_dynamic_array_len(dst))
#define __assign_rel_cpumask(dst, src)					\
	slim_assign_bits(__get_rel_cpumask(dst),			\
			 __get_rel_dynamic_array_len(dst), src,		\
			 __get_rel_dynamic_array_len(dst))
#define __assign_sockaddr(dst, src, len)				\
	slim_assign_bits(__get_dynamic_array(dst), __get_dynamic_array_len(dst), \
			 src, (unsigned long)(len))
#define __assign_rel_sockaddr(dst, src, len)				\
	slim_assign_bits(__get_rel_dynamic_array(dst),			\
			 __get_rel_dynamic_array_len(dst), src, (unsigned long)(len))
#define TP_fast_assign(...)	__VA_ARGS__

/*
 * Every target but the fast path's: the reserve, then the record written
 * once per target (each commit runs that target's filter).  The assign
 * comes last, whole, whatever commas it holds.
 */
#define __SLIM_PROBE_TARGETS(name, ev, size, tstruct, ...)		\
	{								\
		struct slim_reserve __r;				\
									\
		for (__entry = (slim_rec_##name *)			\
			slim_event_reserve(&__r, ev, size);		\
		     __entry; __entry = (slim_rec_##name *)		\
			slim_event_commit_next(&__r)) {			\
			tstruct						\
			{ __VA_ARGS__; }				\
		}							\
	}

/* The fast path's record, written and committed (or filtered). */
#define __SLIM_PROBE_FAST(name, room, commit, tstruct, ...)		\
	if (slim_likely((room).rec != NULL)) {				\
		__entry = (slim_rec_##name *)(room).rec;		\
		tstruct							\
		{ __VA_ARGS__; }					\
		commit((struct slim_abi_writer *)(room).w);		\
		return;							\
	}

/* A probe's locals; __size is the record's, dynamic fields measured. */
#define __SLIM_PROBE_LOCALS(name)					\
	struct slim_dyn_##name __dyn;					\
	slim_rec_##name *__entry;					\
	struct slim_record_room __room;					\
	unsigned int __size

/*
 * The room a fast path gave (fast(ev, esize)) written, or, when it
 * handed the event back, every target's through the reserve.
 */
#define __SLIM_PROBE_ROOM_OR_TARGETS(name, fast, ev, commit, tstruct, ...) \
	__room = fast((struct slim_event *)(ev), slim_record_esize(__size)); \
	__SLIM_PROBE_FAST(name, __room, commit, tstruct, __VA_ARGS__)	\
	if (__room.w)							\
		__SLIM_PROBE_TARGETS(name, (struct slim_event *)__room.w, \
				     __size, tstruct, __VA_ARGS__)

#ifndef SLIM_RECORD_INLINE
/*
 * The default: the fast path (static/record.h) is one out-of-line copy
 * per file (define_trace.h), shared by its classes, and the probe calls
 * it.  The probe holds no loop and no struct slim_reserve on that path,
 * so that it saves no more registers than the arguments need across the
 * call, and it ends in a tail call to the commit.  Anything else builds
 * the reserve; the fast path hands the event back for it.
 */
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)	\
	static void __slim_probe_##name(proto, void *__data)		\
	{								\
		__SLIM_PROBE_LOCALS(name);				\
									\
		__size = __slim_dyn_size_##name(&__dyn, args);		\
		__SLIM_PROBE_ROOM_OR_TARGETS(name, __slim_record_fast,	\
			__data, __slim_record_commit, tstruct, assign)	\
	}								\
	__SLIM_END
#else
/*
 * SLIM_RECORD_INLINE (defined before the trace header is read with
 * CREATE_TRACE_POINTS): the fast path inline in each class's probe, for
 * the events that fire most.  The record's size and header are then
 * constants and the probe, a leaf on that path, needs no frame: about
 * 20 instructions fewer per event, for about 420 bytes more per class
 * (docs/dialect.md).  The other cases go to the class's slow probe,
 * out of line and cold, handed the event: a clock other than the
 * counter to the library's copy of the fast path, the rest to the
 * reserve.
 */
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)	\
	static __attribute__((__noinline__, __cold__)) void		\
	__slim_probe_slow_##name(proto, struct slim_event *__ev)	\
	{								\
		__SLIM_PROBE_LOCALS(name);				\
									\
		__size = __slim_dyn_size_##name(&__dyn, args);		\
		__SLIM_PROBE_ROOM_OR_TARGETS(name, slim_record_fast_clock, \
			__ev, slim_record_commit, tstruct, assign)	\
	}								\
	static void __slim_probe_##name(proto, void *__data)		\
	{								\
		__SLIM_PROBE_LOCALS(name);				\
									\
		__size = __slim_dyn_size_##name(&__dyn, args);		\
		__room = slim_record_fast_leaf((struct slim_event *)__data, \
					       slim_record_esize(__size)); \
		__SLIM_PROBE_FAST(name, __room, slim_record_commit,	\
				  tstruct, assign)			\
		if (__room.w)						\
			__slim_probe_slow_##name(args,			\
				(struct slim_event *)__room.w);		\
	}								\
	__SLIM_END
#endif
