// SPDX-License-Identifier: MIT
/*
 * The exec family, interposed: a program that execs in place loses its
 * buffers and its consumer thread, so whatever was not drained yet would
 * be gone, uncounted, and its file left unfinished.  Each of these ends
 * the recording first (rec_exec_prepare(): drained, counted, finished),
 * then calls the C library's own; if that fails the program goes on and
 * is told (rec_exec_failed()).
 *
 * They take effect where the program's calls bind to them: linked with
 * the library (shared, before libc, as pkg-config links it, or static),
 * not when the library is dlopen()ed later.  The C library's functions
 * are found once, at load, so that an exec from a vfork child or a
 * signal handler does no dynamic lookup.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>
#include "record/rec.h"

#define EXPORT	__attribute__((__visibility__("default")))

typedef int (*exec_ve_fn)(const char *, char *const[], char *const[]);
typedef int (*exec_v_fn)(const char *, char *const[]);
typedef int (*fexec_fn)(int, char *const[], char *const[]);
typedef int (*exec_at_fn)(int, const char *, char *const[], char *const[], int);

static struct {
	exec_ve_fn execve, execvpe;
	exec_v_fn execv, execvp;
	fexec_fn fexecve;
	exec_at_fn execveat;
} libc;

__attribute__((constructor)) static void exec_ctor(void)
{
	*(void **)&libc.execve = dlsym(RTLD_NEXT, "execve");
	*(void **)&libc.execvpe = dlsym(RTLD_NEXT, "execvpe");
	*(void **)&libc.execv = dlsym(RTLD_NEXT, "execv");
	*(void **)&libc.execvp = dlsym(RTLD_NEXT, "execvp");
	*(void **)&libc.fexecve = dlsym(RTLD_NEXT, "fexecve");
	*(void **)&libc.execveat = dlsym(RTLD_NEXT, "execveat");
}

/* What the exec returns when it fails, after the recording was told. */
static int failed(int how, const char *what)
{
	int err = errno;

	rec_exec_failed(how, what, err);
	errno = err;
	return -1;
}

/* A C library without the function: as if the kernel said so. */
static int missing(int how, const char *what)
{
	errno = ENOSYS;
	return failed(how, what);
}

static int exec_v(const char *what, const char *path, char *const argv[])
{
	int how = rec_exec_prepare();

	if (!libc.execv)
		return missing(how, what);
	libc.execv(path, argv);
	return failed(how, what);
}

static int exec_vp(const char *what, const char *file, char *const argv[])
{
	int how = rec_exec_prepare();

	if (!libc.execvp)
		return missing(how, what);
	libc.execvp(file, argv);
	return failed(how, what);
}

static int exec_ve(const char *what, const char *path, char *const argv[],
		   char *const envp[])
{
	int how = rec_exec_prepare();

	if (!libc.execve)
		return missing(how, what);
	libc.execve(path, argv, envp);
	return failed(how, what);
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return exec_ve("execve", path, argv, envp);
}

EXPORT int execv(const char *path, char *const argv[])
{
	return exec_v("execv", path, argv);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return exec_vp("execvp", file, argv);
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	int how = rec_exec_prepare();

	if (!libc.execvpe)
		return missing(how, "execvpe");
	libc.execvpe(file, argv, envp);
	return failed(how, "execvpe");
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	int how = rec_exec_prepare();

	if (!libc.fexecve)
		return missing(how, "fexecve");
	libc.fexecve(fd, argv, envp);
	return failed(how, "fexecve");
}

EXPORT int execveat(int dirfd, const char *path, char *const argv[],
		    char *const envp[], int flags)
{
	int how = rec_exec_prepare();

	if (!libc.execveat)
		return missing(how, "execveat");
	libc.execveat(dirfd, path, argv, envp, flags);
	return failed(how, "execveat");
}

/*
 * The list forms: the arguments counted, then copied into an array on
 * the stack (no malloc: these may run in a vfork child) and handed to
 * the array form; execle's environment comes after the NULL.
 */
enum exec_list { LIST_V, LIST_VP, LIST_VE };

static int exec_list(enum exec_list kind, const char *path, const char *arg,
		     va_list ap)
{
	char *const *envp;
	va_list count;
	size_t n = 1, i = 0;

	va_copy(count, ap);
	if (arg)
		while (va_arg(count, const char *))
			n++;
	va_end(count);
	{
		char *argv[arg ? n + 1 : 1];

		argv[0] = (char *)arg;
		while (argv[i])
			argv[++i] = va_arg(ap, char *);
		switch (kind) {
		case LIST_V:
			return exec_v("execl", path, argv);
		case LIST_VP:
			return exec_vp("execlp", path, argv);
		default:
			envp = va_arg(ap, char *const *);
			return exec_ve("execle", path, argv, envp);
		}
	}
}

/* execl, execlp and execle: one body, the kind of array form apart. */
#define EXEC_LIST_FN(fn, kind)						\
	EXPORT int fn(const char *path, const char *arg, ...)		\
	{								\
		va_list ap;						\
		int ret;						\
									\
		va_start(ap, arg);					\
		ret = exec_list(kind, path, arg, ap);			\
		va_end(ap);						\
		return ret;						\
	}

EXEC_LIST_FN(execl, LIST_V)
EXEC_LIST_FN(execlp, LIST_VP)
EXEC_LIST_FN(execle, LIST_VE)
