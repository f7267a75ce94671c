/* SPDX-License-Identifier: MIT */
/* Small compiler helpers shared by the public headers. */
#ifndef SLIMTRACE_COMPILER_H
#define SLIMTRACE_COMPILER_H

#define SLIM_EXPORT	__attribute__((visibility("default")))
#define SLIM_HIDDEN	__attribute__((visibility("hidden")))
#define SLIM_COLD	__attribute__((cold, noinline))

#define slim_likely(x)		__builtin_expect(!!(x), 1)
#define slim_unlikely(x)	__builtin_expect(!!(x), 0)

#define SLIM_STRINGIFY_1(...)	#__VA_ARGS__
#define SLIM_STRINGIFY(...)	SLIM_STRINGIFY_1(__VA_ARGS__)
#define SLIM_CONCAT_1(a, b)	a##b
#define SLIM_CONCAT(a, b)	SLIM_CONCAT_1(a, b)

/* Number of comma-separated arguments (1..32; an empty list counts 1). */
#define SLIM_NARGS(...)							\
	SLIM_NARGS_1(__VA_ARGS__, 32, 31, 30, 29, 28, 27, 26, 25, 24,	\
		     23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11,	\
		     10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
#define SLIM_NARGS_1(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12,	\
		     a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, \
		     a24, a25, a26, a27, a28, a29, a30, a31, a32, n, ...) n

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

#endif /* SLIMTRACE_COMPILER_H */
