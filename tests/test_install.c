// SPDX-License-Identifier: MIT
/*
 * make install PREFIX=DIR: headers, libraries and a pkg-config file that
 * a program outside the tree builds and links against; the slimtrace
 * command and its man pages.
 */
#include <stdlib.h>
#include <unistd.h>
#include <slimtrace/static/record.h>
#include "check.h"

/* The soname is the ABI version of the inlined record path. */
#define SLIM_TEST_SOVER	SLIM_STRINGIFY(SLIM_ABI_VERSION)

static int sh(const char *cmd)
{
	int status = system(cmd);

	if (status)
		fprintf(stderr, "     command failed (%d): %s\n", status, cmd);
	return status;
}

int main(void)
{
	char *src = realpath(getenv("SLIM_SRCDIR") ? getenv("SLIM_SRCDIR") : "../../..", NULL);
	char dir[] = "/tmp/slim_install_XXXXXX", cmd[4096];

	if (!mkdtemp(dir))
		return 1;
	/* The plain build's library: this test checks the installation. */
	snprintf(cmd, sizeof(cmd),
		 "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C %s --no-print-directory "
		 "B=build/install-test PREFIX=%s install >/dev/null",
		 src, dir);
	CHECK_EQ_INT(sh(cmd), 0);
	snprintf(cmd, sizeof(cmd), "test -f %s/include/slimtrace/tracepoint.h && "
		 "test -f %s/include/slimtrace/compat/linux/tracepoint.h && "
		 "test -f %s/lib/libslimtrace.a && test -e %s/lib/libslimtrace.so." SLIM_TEST_SOVER " && "
		 "test -f %s/lib/pkgconfig/slimtrace.pc && "
		 "test -f %s/share/man/man1/slimtrace-report.1 && "
		 "%s/bin/slimtrace --help | grep -q report",
		 dir, dir, dir, dir, dir, dir, dir);
	CHECK_EQ_INT(sh(cmd), 0);
	/* The demo, built against the installed files only. */
	snprintf(cmd, sizeof(cmd),
		 "cd %s && cp %s/examples/demo.c %s/examples/demo_events.[ch] . && "
		 "PKG_CONFIG_PATH=%s/lib/pkgconfig cc -std=gnu11 -I. demo.c demo_events.c "
		 "$(PKG_CONFIG_PATH=%s/lib/pkgconfig pkg-config --cflags --libs --static slimtrace) "
		 "-Wl,-rpath,%s/lib -o demo && ./demo | grep -q 'demo_request: id=0 path=/index.html'",
		 dir, src, src, dir, dir, dir);
	CHECK_EQ_INT(sh(cmd), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	sh(cmd);
	free(src);
	return check_done("install");
}
