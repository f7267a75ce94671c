// SPDX-License-Identifier: MIT
/*
 * The threads seen in the pages, with their names: the file's saved
 * cmdlines.  A hash table of thread ids, grown by the consumer, or by a
 * fatal signal handler from mapped pages (mem.c).  A name is looked up
 * when the metadata is refreshed, or from /proc in the handler.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "record/rec.h"
#include "record/tdat_out.h"

struct rec_pid {
	int32_t pid;		/* 0: a free slot */
	char comm[16];		/* "" until known */
};

/* Twice the room; in a signal handler from mapped pages (mem.c). */
static int grow(struct rec_threads *th, int in_signal)
{
	unsigned int cap = th->cap ? 2 * th->cap : 64, i, j;
	struct rec_pid *t = rec_grow(NULL, 0, cap * sizeof(*t), in_signal);
	char *text = rec_grow(NULL, 0, (size_t)cap * 32, in_signal);

	if (!t || !text) {
		rec_release(t);
		rec_release(text);
		return -ENOMEM;
	}
	memset(t, 0, cap * sizeof(*t));
	for (i = 0; i < th->cap; i++) {
		if (!th->pids[i].pid)
			continue;
		for (j = (uint32_t)th->pids[i].pid & (cap - 1); t[j].pid; j = (j + 1) & (cap - 1))
			;
		t[j] = th->pids[i];
	}
	if (!in_signal) {
		rec_release(th->pids);
		rec_release(th->text);
	}
	th->pids = t;
	th->cap = cap;
	th->text = text;
	th->text_cap = (size_t)cap * 32;
	return 0;
}

int rec_threads_init(struct rec_threads *th)
{
	memset(th, 0, sizeof(*th));
	return grow(th, 0);
}

void rec_threads_free(struct rec_threads *th)
{
	rec_release(th->pids);
	rec_release(th->text);
	memset(th, 0, sizeof(*th));
}

/* The writer's thread id, from a data event's common header; 0 if none. */
static int32_t event_pid(const struct slim_page_entry *e)
{
	int32_t pid;

	if (e->len < 8)
		return 0;
	memcpy(&pid, e->payload + 4, sizeof(pid));
	return pid;
}

void rec_threads_note(struct rec_threads *th, const struct slim_page_entry *e, int may_grow)
{
	int32_t pid = event_pid(e);
	unsigned int i, mask;

	if (pid == th->last || pid <= 0)
		return;
	th->last = pid;
	if (2 * (th->nr + 1) > th->cap && grow(th, !may_grow))
		return;
	mask = th->cap - 1;
	for (i = (uint32_t)pid & mask; th->pids[i].pid; i = (i + 1) & mask)
		if (th->pids[i].pid == pid)
			return;
	th->pids[i].pid = pid;
	th->pids[i].comm[0] = '\0';
	th->nr++;
	th->fresh = 1;
}

/* The thread's name now, from /proc: 0 or -1.  Async-signal-safe. */
static int proc_comm(int32_t pid, char comm[16])
{
	char path[48];
	struct wbuf w = { (unsigned char *)path, 0, sizeof(path), 0 };
	ssize_t n;
	int fd;

	wb_str(&w, "/proc/self/task/");
	wb_dec(&w, (uint64_t)pid);
	wb_put(&w, "/comm", 6);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, comm, 15);
	close(fd);
	if (n <= 0)
		return -1;
	if (comm[n - 1] == '\n')
		n--;
	comm[n] = '\0';
	return n ? 0 : -1;
}

int rec_threads_name(struct rec_threads *th)
{
	unsigned int i;

	if (!th->fresh)
		return 0;
	th->fresh = 0;
	for (i = 0; i < th->cap; i++) {
		struct rec_pid *p = &th->pids[i];

		if (!p->pid || p->comm[0])
			continue;
		rec_src_thread_name(p->pid, p->comm);
		if (strcmp(p->comm, "<...>") == 0 && proc_comm(p->pid, p->comm))
			p->comm[0] = '\0';	/* try again next time */
	}
	return 1;
}

size_t rec_threads_cmdlines(struct rec_threads *th)
{
	struct wbuf w = { (unsigned char *)th->text, 0, th->text_cap, 0 };
	unsigned int i;

	for (i = 0; i < th->cap; i++) {
		struct rec_pid *p = &th->pids[i];

		if (!p->pid)
			continue;
		if (!p->comm[0] && proc_comm(p->pid, p->comm))
			memcpy(p->comm, "<...>", 6);
		wb_dec(&w, (uint64_t)p->pid);
		wb_put(&w, " ", 1);
		wb_str(&w, p->comm);
		wb_put(&w, "\n", 1);
	}
	return w.len;
}
