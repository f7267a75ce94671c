/* SPDX-License-Identifier: MIT */
/*
 * The kernel's trace dialect, first pass: what every file that includes
 * a trace header sees.  It declares; the one file that defines
 * CREATE_TRACE_POINTS before including the header also gets the
 * definitions, from define_trace.h and the stage headers in stages/.
 * docs/dialect.md walks through every stage with an example.
 *
 * A tracepoint declared here produces:
 *	trace_<name>(proto)			the call site
 *	trace_<name>_enabled()
 *	register_trace_<name>(probe)		probe(args...)
 *	unregister_trace_<name>(probe)
 *	register_trace_<name>_data(probe, data)	probe(args..., data)
 *	unregister_trace_<name>_data(probe, data)
 */

/* Parts that never change between passes. */
#ifndef SLIMTRACE_DIALECT_H
#define SLIMTRACE_DIALECT_H

/* ISO C's variadic macros: a strict -Wpedantic build takes them all. */
#define PARAMS(...)		__VA_ARGS__
#define TP_PROTO(...)		__VA_ARGS__
#define TP_ARGS(...)		__VA_ARGS__
#define TP_CONDITION(...)	__VA_ARGS__

/*
 * The call site: one load of the probe array and one branch, not taken
 * while nothing is attached; the call itself is out of line (the
 * iterators are declared cold), reached only when enabled.  On x86-64 the
 * test is an asm goto: a compare with the probe pointer and a jump, with
 * the pointer's address left in a register for the call, which makes the
 * smallest call site the compiler can then move out of line (about 37
 * bytes with gcc -O2, docs/dialect.md).  That lea is on the hot path; an
 * "i" operand would move it to the cold one but cost 4 bytes per call
 * site (docs/benchmarks.md).  Elsewhere, a volatile load.  An
 * event's iterator belongs to its class, so a DEFINE_EVENT adds no
 * function of its own.
 */
#if defined(__x86_64__) && !defined(SLIM_NO_ASM_GOTO)
#define __SLIM_TP_TEST(tp, label)					\
	__asm__ goto("cmpq $0, %0\n\tjne %l[" #label "]"		\
		     : : "m"((tp)->probes) : : label)
#else
#define __SLIM_TP_TEST(tp, label)					\
	do {								\
		if (slim_unlikely(SLIM_PTR_SET((tp)->probes)))		\
			goto label;					\
	} while (0)
#endif

#define __SLIM_TRACE_CALL(tp, iter, proto, args)			\
	do {								\
		__SLIM_TP_TEST(tp, slim_call);				\
		break;							\
	slim_call:							\
		iter(args, tp);						\
	} while (0)

/* TRACE_EVENT_CONDITION: the condition is evaluated only when enabled. */
#define __SLIM_TRACE_CALL_COND(tp, iter, proto, args, cond)		\
	do {								\
		__SLIM_TP_TEST(tp, slim_call);				\
		break;							\
	slim_call:							\
		if (cond)						\
			iter(args, tp);					\
	} while (0)

#define __SLIM_TRACE_CALL_NOARGS(tp, iter)				\
	do {								\
		__SLIM_TP_TEST(tp, slim_call);				\
		break;							\
	slim_call:							\
		iter(tp);						\
	} while (0)

/*
 * Call sites see the iterators as cold: the compiler then moves the call
 * out of line and the disabled path falls through its branch, as the
 * kernel's static branches do.  The file that defines them does not.
 */
#ifdef CREATE_TRACE_POINTS
# define __SLIM_ITER_COLD
#else
# define __SLIM_ITER_COLD __attribute__((__cold__))
#endif

/* The register_trace_* family, for a tracepoint object tp. */
#define __SLIM_REGISTER_FUNCS(name, tp, proto, data_proto)		\
	static inline int						\
	register_trace_##name(void (*__slim_probe)(proto))		\
	{								\
		return slim_tracepoint_probe_register(tp,		\
			(slim_probe_func)__slim_probe, NULL,		\
			SLIM_PROBE_NODATA);				\
	}								\
	static inline int						\
	unregister_trace_##name(void (*__slim_probe)(proto))		\
	{								\
		return slim_tracepoint_probe_unregister(tp,		\
			(slim_probe_func)__slim_probe, NULL,		\
			SLIM_PROBE_NODATA);				\
	}								\
	static inline int						\
	register_trace_##name##_data(void (*__slim_probe)(data_proto),	\
				     void *__slim_data)			\
	{								\
		return slim_tracepoint_probe_register(tp,		\
			(slim_probe_func)__slim_probe, __slim_data,	\
			SLIM_PROBE_DATA);				\
	}								\
	static inline int						\
	unregister_trace_##name##_data(void (*__slim_probe)(data_proto), \
				       void *__slim_data)		\
	{								\
		return slim_tracepoint_probe_unregister(tp,		\
			(slim_probe_func)__slim_probe, __slim_data,	\
			SLIM_PROBE_DATA);				\
	}								\
	static inline int trace_##name##_enabled(void)			\
	{								\
		return slim_tracepoint_enabled(tp);			\
	}

/* A mismatch would otherwise surface later as a puzzling call error. */
#define __SLIM_CHECK_ARITY(name, proto, args)				\
	SLIM_STATIC_ASSERT(SLIM_NARGS(proto) == SLIM_NARGS(args),	\
			   "TP_PROTO and TP_ARGS of " #name " differ in arity")

/* Bare tracepoints: the tracepoint object and its iterator. */
#define __SLIM_DECLARE_TRACE(name, proto, args)				\
	SLIM_EXTERN SLIM_HIDDEN struct slim_tracepoint __tracepoint_##name; \
	SLIM_EXTERN SLIM_HIDDEN __SLIM_ITER_COLD			\
	void __slim_iter_tp_##name(proto, struct slim_tracepoint *tp);	\
	__SLIM_CHECK_ARITY(name, PARAMS(proto), PARAMS(args));		\
	static inline void trace_##name(proto)				\
	{								\
		__SLIM_TRACE_CALL(&__tracepoint_##name,			\
				  __slim_iter_tp_##name, PARAMS(proto),	\
				  PARAMS(args));			\
	}								\
	__SLIM_REGISTER_FUNCS(name, &__tracepoint_##name, PARAMS(proto), \
			      PARAMS(proto, void *))				\
	__SLIM_END

#define __SLIM_DECLARE_TRACE_COND(name, proto, args, cond)		\
	SLIM_EXTERN SLIM_HIDDEN struct slim_tracepoint __tracepoint_##name; \
	SLIM_EXTERN SLIM_HIDDEN __SLIM_ITER_COLD			\
	void __slim_iter_tp_##name(proto, struct slim_tracepoint *tp);	\
	__SLIM_CHECK_ARITY(name, PARAMS(proto), PARAMS(args));		\
	static inline void trace_##name(proto)				\
	{								\
		__SLIM_TRACE_CALL_COND(&__tracepoint_##name,		\
				       __slim_iter_tp_##name, PARAMS(proto), \
				       PARAMS(args), PARAMS(cond));	\
	}								\
	__SLIM_REGISTER_FUNCS(name, &__tracepoint_##name, PARAMS(proto), \
			      PARAMS(proto, void *))				\
	__SLIM_END

#define __SLIM_DECLARE_TRACE_NOARGS(name)				\
	SLIM_EXTERN SLIM_HIDDEN struct slim_tracepoint __tracepoint_##name; \
	SLIM_EXTERN SLIM_HIDDEN __SLIM_ITER_COLD			\
	void __slim_iter_tp_##name(struct slim_tracepoint *tp);		\
	static inline void trace_##name(void)				\
	{								\
		__SLIM_TRACE_CALL_NOARGS(&__tracepoint_##name,		\
					 __slim_iter_tp_##name);	\
	}								\
	__SLIM_REGISTER_FUNCS(name, &__tracepoint_##name, void, void *)	\
	__SLIM_END

/*
 * Events: the event object; the iterator is its class's.  call is
 * __SLIM_TRACE_CALL, or __SLIM_TRACE_CALL_COND with the condition as
 * its last argument.
 */
#define __SLIM_DECLARE_EVENT_CALL(template, name, proto, args, call, ...) \
	SLIM_EXTERN SLIM_HIDDEN struct slim_event slim_event_##name;	\
	/* An unknown class stops here: slim_class_<template> undeclared. */ \
	SLIM_STATIC_ASSERT(sizeof(&slim_class_##template) != 0,	\
			   "DEFINE_EVENT " #name ": no DECLARE_EVENT_CLASS " \
			   #template);					\
	__SLIM_CHECK_ARITY(name, PARAMS(proto), PARAMS(args));		\
	static inline void trace_##name(proto)				\
	{								\
		call(&slim_event_##name.tp, __slim_iter_##template,	\
		     PARAMS(proto), PARAMS(args), __VA_ARGS__);		\
	}								\
	__SLIM_REGISTER_FUNCS(name, &slim_event_##name.tp, PARAMS(proto), \
			      PARAMS(proto, void *))				\
	__SLIM_END

#define __SLIM_DECLARE_EVENT(template, name, proto, args)		\
	__SLIM_DECLARE_EVENT_CALL(template, name, PARAMS(proto),	\
				  PARAMS(args), __SLIM_TRACE_CALL_1, 0)
#define __SLIM_DECLARE_EVENT_COND(template, name, proto, args, cond)	\
	__SLIM_DECLARE_EVENT_CALL(template, name, PARAMS(proto),	\
				  PARAMS(args), __SLIM_TRACE_CALL_COND,	\
				  PARAMS(cond))
/* The plain call, with the unused condition slot of the macro above. */
#define __SLIM_TRACE_CALL_1(tp, iter, proto, args, unused)		\
	__SLIM_TRACE_CALL(tp, iter, PARAMS(proto), PARAMS(args))

#define __SLIM_DECLARE_CLASS(name, proto, args)			\
	SLIM_EXTERN SLIM_HIDDEN						\
	const struct slim_event_class *slim_class_##name(void);		\
	SLIM_EXTERN SLIM_HIDDEN __SLIM_ITER_COLD			\
	void __slim_iter_##name(proto, struct slim_tracepoint *tp);	\
	__SLIM_CHECK_ARITY(name, PARAMS(proto), PARAMS(args))

/* Ends a macro's expansion with a declaration the user's ';' closes. */
#define __SLIM_END	SLIM_STATIC_ASSERT(1, "")

/*
 * The iterator: calls every probe attached to tp, each through its own
 * type, inside an RCU read-side section so that a probe array being
 * replaced stays valid until every caller is done with it.
 */
#define __SLIM_DEFINE_ITER(iter, proto, args)				\
	static __attribute__((__noinline__, __cold__)) void		\
	iter##_all(proto, struct slim_tracepoint *__slim_tp)		\
	{								\
		const struct slim_probe *__slim_p;			\
		unsigned long __slim_tok;				\
									\
		__slim_tok = slim_rcu_read_lock();			\
		__slim_p = slim_rcu_dereference(__slim_tp->probes);	\
		__SLIM_PROBE_LOOP(__slim_p, PARAMS(proto), PARAMS(args)) \
		slim_rcu_read_unlock(__slim_tok);			\
	}								\
	SLIM_HIDDEN void iter(proto, struct slim_tracepoint *__slim_tp)	\
	{								\
		const struct slim_probe *__slim_p;			\
									\
		if (slim_unlikely(!slim_rcu_read_enter_fast())) {	\
			iter##_all(args, __slim_tp);			\
			return;						\
		}							\
		__slim_p = slim_rcu_dereference(__slim_tp->probes);	\
		if (slim_unlikely(!__SLIM_ONE_DATA_PROBE(__slim_p))) {	\
			slim_rcu_read_exit_fast();			\
			iter##_all(args, __slim_tp);			\
			return;						\
		}							\
		((void (*)(proto, void *))__slim_p->func)(args, __slim_p->data); \
		slim_rcu_read_exit_fast();				\
	}

/*
 * The common case: one probe, with data (an event's class probe), which
 * the library marks.  tp comes last, where the probe's data goes: the
 * arguments are then already in the probe's registers.
 */
#define __SLIM_ONE_DATA_PROBE(p)	((p) && (p)->only)

/* Calls each probe of the array p, each through its own type. */
#define __SLIM_PROBE_LOOP(p, proto, args)				\
	for (; p && p->func; p++) {					\
		if (p->kind == SLIM_PROBE_DATA)				\
			((void (*)(proto, void *))p->func)(args, p->data); \
		else							\
			((void (*)(proto))p->func)(args);		\
	}

#define __SLIM_DEFINE_ITER_NOARGS(iter)				\
	SLIM_HIDDEN void iter(struct slim_tracepoint *__slim_tp)	\
	{								\
		const struct slim_probe *__slim_p;			\
		unsigned long __slim_tok;				\
									\
		__slim_tok = slim_rcu_read_lock();			\
		__slim_p = slim_rcu_dereference(__slim_tp->probes);	\
		for (; __slim_p && __slim_p->func; __slim_p++) {	\
			if (__slim_p->kind == SLIM_PROBE_DATA)		\
				((void (*)(void *))__slim_p->func)	\
					(__slim_p->data);		\
			else						\
				__slim_p->func();			\
		}							\
		slim_rcu_read_unlock(__slim_tok);			\
	}

/*
 * A bare tracepoint's entry in the "slim_tracepoints" section: offsets
 * to the tracepoint and to its name, emitted by the assembler because C
 * cannot express "address of x minus address of here" as a constant.
 */
#define __SLIM_TP_DESC(name)						\
	__asm__(".pushsection .rodata.slim_names,\"a\"\n"		\
		".Lslim_tp_name_" #name ": .asciz \"" #name "\"\n"	\
		".popsection\n"						\
		".pushsection slim_tracepoints,\"a\"\n"			\
		".balign 4\n"						\
		".long __tracepoint_" #name " - .\n"			\
		".long .Lslim_tp_name_" #name " - .\n"			\
		".popsection\n")

#define __SLIM_DEFINE_TRACE_BODY(name, proto, args)			\
	SLIM_HIDDEN __attribute__((__used__))				\
	struct slim_tracepoint __tracepoint_##name;			\
	__SLIM_TP_DESC(name);						\
	__SLIM_DEFINE_ITER(__slim_iter_tp_##name, PARAMS(proto), PARAMS(args))

#define __SLIM_DEFINE_TRACE_NOARGS_BODY(name)				\
	SLIM_HIDDEN __attribute__((__used__))				\
	struct slim_tracepoint __tracepoint_##name;			\
	__SLIM_TP_DESC(name);						\
	__SLIM_DEFINE_ITER_NOARGS(__slim_iter_tp_##name)

/*
 * Announce this object's sections at load, withdraw them at unload.  The
 * linker defines __start_/__stop_ for sections named like C identifiers;
 * weak, for objects without one; hidden, so that each shared object sees
 * its own.
 */
#define __SLIM_SECTION_SYMBOL(type, name)				\
	extern const type __start_##name[]				\
		__attribute__((__weak__, __visibility__("hidden")));		\
	extern const type __stop_##name[]				\
		__attribute__((__weak__, __visibility__("hidden")))
#define __SLIM_SECTION_SYMBOLS						\
	__SLIM_SECTION_SYMBOL(struct slim_event_desc, slim_events);	\
	__SLIM_SECTION_SYMBOL(struct slim_tracepoint_desc, slim_tracepoints); \
	__SLIM_SECTION_SYMBOL(struct slim_event_fns, slim_event_fns);	\
	__SLIM_SECTION_SYMBOL(struct slim_eval_map, slim_eval_maps)

#define __SLIM_SECTIONS_CTOR(suffix)					\
	static void __attribute__((__constructor__))			\
	__slim_sections_ctor_##suffix(void)				\
	{								\
		__SLIM_SECTION_SYMBOLS;					\
		const struct slim_object_sections __slim_s = {		\
			sizeof(__slim_s),				\
			__start_slim_events, __stop_slim_events,	\
			__start_slim_tracepoints, __stop_slim_tracepoints, \
			__start_slim_event_fns, __stop_slim_event_fns,	\
			__start_slim_eval_maps, __stop_slim_eval_maps,	\
		};							\
									\
		slim_object_register(&__slim_s);			\
	}								\
	static void __attribute__((__destructor__))				\
	__slim_sections_dtor_##suffix(void)				\
	{								\
		__SLIM_SECTION_SYMBOLS;					\
		slim_sections_unregister(__start_slim_events,		\
					 __start_slim_tracepoints);	\
	}

/* The constant half; see struct slim_event_desc. */
#define __SLIM_EVENT_DESC(template, name, print_ref)			\
	__asm__(".pushsection .rodata.slim_names,\"a\"\n"		\
		".Lslim_ev_name_" #name ": .asciz \"" #name "\"\n"	\
		".popsection\n"						\
		".pushsection slim_events,\"a\"\n"			\
		".balign 4\n"						\
		".long slim_event_" #name " - .\n"			\
		".long .Lslim_ev_name_" #name " - .\n"			\
		".long slim_class_" #template " - .\n"			\
		".long " print_ref "\n"					\
		".popsection\n")

/*
 * An event of a hand-written class (the kernel's syscall and dynamic
 * event cases): slim_class_<class>() returns the class.  Found through
 * the section like any other event.
 */
#define SLIM_EVENT_DEFINE(class, name)					\
	SLIM_HIDDEN __attribute__((__used__)) struct slim_event slim_event_##name; \
	__SLIM_EVENT_DESC(class, name, "0");				\
	__SLIM_SECTIONS_CTOR(name)					\
	__SLIM_END

/* Defines a bare tracepoint outside of CREATE_TRACE_POINTS. */
#define DEFINE_TRACE(name, proto, args)					\
	__SLIM_DEFINE_TRACE_BODY(name, PARAMS(proto), PARAMS(args))	\
	__SLIM_SECTIONS_CTOR(name)					\
	__SLIM_END
#define DEFINE_TRACE_NOARGS(name)					\
	__SLIM_DEFINE_TRACE_NOARGS_BODY(name)				\
	__SLIM_SECTIONS_CTOR(name)					\
	__SLIM_END

#endif /* SLIMTRACE_DIALECT_H */

/*
 * The declaring forms of the event macros.  define_trace.h undefines
 * them after its passes; the next include brings them back.
 */
#ifndef TRACE_EVENT

#define DECLARE_TRACE(name, proto, args)				\
	__SLIM_DECLARE_TRACE(name, PARAMS(proto), PARAMS(args))
#define DECLARE_TRACE_CONDITION(name, proto, args, cond)		\
	__SLIM_DECLARE_TRACE_COND(name, PARAMS(proto), PARAMS(args),	\
				  PARAMS(cond))
#define DECLARE_TRACE_NOARGS(name)	__SLIM_DECLARE_TRACE_NOARGS(name)

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)	\
	__SLIM_DECLARE_CLASS(name, PARAMS(proto), PARAMS(args))
#define DEFINE_EVENT(template, name, proto, args)			\
	__SLIM_DECLARE_EVENT(template, name, PARAMS(proto), PARAMS(args))
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)		\
	__SLIM_DECLARE_EVENT(template, name, PARAMS(proto), PARAMS(args))
#define DEFINE_EVENT_CONDITION(template, name, proto, args, cond)	\
	__SLIM_DECLARE_EVENT_COND(template, name, PARAMS(proto),	\
				  PARAMS(args), PARAMS(cond))
/* reg() and unreg() are data of the event's definition (stage 9). */
#define DEFINE_EVENT_FN(template, name, proto, args, reg, unreg)	\
	__SLIM_DECLARE_EVENT(template, name, PARAMS(proto), PARAMS(args))
#define __SLIM_EVENT_FN_COND(template, name, proto, args, cond, reg, unreg) \
	__SLIM_DECLARE_EVENT_COND(template, name, PARAMS(proto),	\
				  PARAMS(args), PARAMS(cond))

/* Definitions come from stage 9 (TRACE_DEFINE_ENUM: the format's values). */
#define TRACE_DEFINE_ENUM(a)		__SLIM_END
#define TRACE_DEFINE_SIZEOF(a)		__SLIM_END

#include <slimtrace/stages/compose.h>

#endif /* TRACE_EVENT */
