/* SPDX-License-Identifier: MIT */
/* Small compiler helpers shared by the public headers. */
#ifndef SLIMTRACE_COMPILER_H
#define SLIMTRACE_COMPILER_H

#define SLIM_EXPORT	__attribute__((__visibility__("default")))
#define SLIM_HIDDEN	__attribute__((__visibility__("hidden")))
#define SLIM_COLD	__attribute__((__cold__, __noinline__))

/*
 * C and C++ (a C++ file may include every header and call trace_*();
 * the CREATE_TRACE_POINTS file must be C).  SLIM_EXTERN declares an
 * object or function with C linkage from a macro expanded in the user's
 * file, whichever language that is.
 */
#ifdef __cplusplus
# define SLIM_BEGIN_DECLS	extern "C" {
# define SLIM_END_DECLS		}
# define SLIM_EXTERN		extern "C"
# define SLIM_STATIC_ASSERT(cond, msg)	static_assert(cond, msg)
#else
# define SLIM_BEGIN_DECLS
# define SLIM_END_DECLS
# define SLIM_EXTERN		extern
# if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#  define SLIM_STATIC_ASSERT(cond, msg)	_Static_assert(cond, msg)
# else
/* C99: the compilers have it, and __extension__ keeps -Wpedantic quiet. */
#  define SLIM_STATIC_ASSERT(cond, msg)	__extension__ _Static_assert(cond, msg)
# endif
#endif

/*
 * va_list without <stdarg.h>, whose va_start() and va_arg() macros are
 * names a kernel trace header may give a field (vmalloc's va_start).
 * The C library's va_list is this type.
 */
typedef __builtin_va_list slim_va_list;

#define slim_likely(x)		__builtin_expect(!!(x), 1)
#define slim_unlikely(x)	__builtin_expect(!!(x), 0)

#define SLIM_STRINGIFY_1(...)	#__VA_ARGS__
#define SLIM_STRINGIFY(...)	SLIM_STRINGIFY_1(__VA_ARGS__)
#define SLIM_CONCAT_1(a, b)	a##b
#define SLIM_CONCAT(a, b)	SLIM_CONCAT_1(a, b)

/*
 * Number of comma-separated arguments (1..64; an empty list counts 1).
 * A trailing ~ keeps "..." non-empty, which ISO C before C23 requires.
 */
#define SLIM_NARGS(...) SLIM_NARGS_1(__VA_ARGS__, 64, 63, 62, 61, \
		     60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, \
		     46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, \
		     32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, \
		     18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, \
		     2, 1, ~)
#define SLIM_NARGS_1(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, \
		     a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, \
		     a22, a23, a24, a25, a26, a27, a28, a29, a30, a31, a32, \
		     a33, a34, a35, a36, a37, a38, a39, a40, a41, a42, a43, \
		     a44, a45, a46, a47, a48, a49, a50, a51, a52, a53, a54, \
		     a55, a56, a57, a58, a59, a60, a61, a62, a63, a64, n, ...) \
		     n
/* 0 for one argument, 1 for 2..64: picks a macro by arity. */
#define SLIM_MANY(...) SLIM_NARGS_1(__VA_ARGS__, 1, 1, 1, 1, 1, \
		     1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, \
		     1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, \
		     1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, \
		     1, 0, ~)

/* Loads and stores that other threads see whole, and publication. */
#define SLIM_READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define SLIM_WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define slim_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define slim_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

/*
 * Is a pointer set?  A volatile load (the kernel's READ_ONCE), for the
 * call-site test where no asm goto is used; ThreadSanitizer only sees
 * the pairing with registration through an atomic load, so its builds
 * use one.
 */
#if defined(__SANITIZE_THREAD__)
# define SLIM_TSAN 1
#elif defined(__has_feature)
# if __has_feature(thread_sanitizer)
#  define SLIM_TSAN 1
# endif
#endif
#ifdef SLIM_TSAN
# define SLIM_PTR_SET(p)	(__atomic_load_n(&(p), __ATOMIC_RELAXED) != NULL)
#else
# define SLIM_PTR_SET(p)	(*(__typeof__(p) volatile *)&(p) != NULL)
#endif

/*
 * One more in a 64-bit counter that only this thread writes and others
 * read whole: x86-64's one add to memory (a single 8-byte store, which
 * the readers' loads see whole), not a load, an add and a store.  Under
 * ThreadSanitizer, and elsewhere, the relaxed store.
 */
#if defined(__x86_64__) && !defined(SLIM_TSAN)
# define SLIM_INC_ONCE(x)						\
	__asm__ __volatile__("addq $1, %0" : "+m"(x))
#else
# define SLIM_INC_ONCE(x)	SLIM_WRITE_ONCE(x, (x) + 1)
#endif

/*
 * Records lie 4-byte aligned, as in the kernel's ring: a class that
 * writes one with 8-byte fields through a struct pointer gives the
 * pointer's type this (the fields keep their offsets), e.g.
 *
 *	typedef struct my_record SLIM_RECORD_ALIGN my_record_t;
 */
#define SLIM_RECORD_ALIGN	__attribute__((__aligned__(4)))

#endif /* SLIMTRACE_COMPILER_H */
