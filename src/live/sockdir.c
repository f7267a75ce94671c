// SPDX-License-Identifier: MIT
/*
 * The per-user directory of control sockets.  A fixed root (/tmp unless
 * SLIMTRACE_CONTROL_DIR says otherwise) and the uid in the name: every
 * process of a user, whatever its environment, and root attaching to it,
 * compute the same path from the uid alone.
 *
 * The directory must be the user's own, mode 0700, and not a symlink:
 * anyone can create names in /tmp, and a directory someone else made or
 * can enter would let them replace or watch the sockets.  The sticky bit
 * of /tmp keeps others from renaming the directory once it is checked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "live/sockdir.h"

static const char *root(void)
{
	const char *r = getenv("SLIMTRACE_CONTROL_DIR");

	return r && *r ? r : "/tmp";
}

static int fits(int n, size_t len)
{
	return n >= 0 && (size_t)n < len && (size_t)n < SLIM_LIVE_PATH_MAX ? 0 : -ENAMETOOLONG;
}

int slim_live_dir(unsigned int uid, char *buf, size_t len)
{
	return fits(snprintf(buf, len, "%s/slimtrace-%u", root(), uid), len);
}

int slim_live_sock_path(const char *dir, int pid, char *buf, size_t len)
{
	return fits(snprintf(buf, len, "%s/%d", dir, pid), len);
}

int slim_live_tmp_path(const char *dir, int pid, char *buf, size_t len)
{
	return fits(snprintf(buf, len, "%s/.%d.new", dir, pid), len);
}

int slim_live_dir_check(const char *dir, unsigned int uid, char *why, size_t len)
{
	struct stat st;

	if (lstat(dir, &st)) {
		int err = errno;

		snprintf(why, len, "%s: %s", dir, strerror(err));
		return -err;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(why, len, "%s is a symbolic link, not a directory: remove it", dir);
		return -ELOOP;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, len, "%s is not a directory: remove it", dir);
		return -ENOTDIR;
	}
	if (st.st_uid != uid) {
		snprintf(why, len, "%s is owned by uid %u, not by uid %u: remove it",
			 dir, (unsigned int)st.st_uid, uid);
		return -EPERM;
	}
	if (st.st_mode & 077) {
		snprintf(why, len, "%s has mode %04o: others may enter it (want 0700)",
			 dir, (unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int slim_live_dir_make(const char *dir, unsigned int uid, char *why, size_t len)
{
	if (mkdir(dir, 0700) && errno != EEXIST) {
		int err = errno;

		snprintf(why, len, "cannot create %s: %s", dir, strerror(err));
		return -err;
	}
	return slim_live_dir_check(dir, uid, why, len);
}

static int parse_pid(const char *s, const char *end)
{
	long v = 0;

	if (s == end || *s == '0')
		return 0;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9' || v > 100000000)
			return 0;
		v = v * 10 + (*s - '0');
	}
	return (int)v;
}

int slim_live_name_pid(const char *name, int *tmp)
{
	size_t n = strlen(name);

	*tmp = 0;
	if (n > 5 && name[0] == '.' && strcmp(name + n - 4, ".new") == 0) {
		*tmp = 1;
		return parse_pid(name + 1, name + n - 4);
	}
	return parse_pid(name, name + n);
}
