/*
 * kwrite PATH TEXT: write TEXT to PATH in exactly one write(2), as the
 * kernel's tracefs files take each write as one command. Prints "ok" or
 * "errno=NAME" so capture.sh can record why the kernel refused. An empty
 * TEXT still makes a zero-length write(2), which a shell redirect would not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t len;
	ssize_t n;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: kwrite PATH TEXT\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_TRUNC);
	if (fd < 0) {
		fprintf(stderr, "kwrite: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	len = strlen(argv[2]);
	n = write(fd, argv[2], len);
	if (n < 0) {
		const char *name = strerrorname_np(errno);

		if (name)
			printf("errno=%s\n", name);
		else
			printf("errno=%d\n", errno);
		close(fd);
		return 1;
	}
	close(fd);
	if ((size_t)n != len) {
		printf("short=%zd\n", n);
		return 1;
	}
	printf("ok\n");
	return 0;
}
