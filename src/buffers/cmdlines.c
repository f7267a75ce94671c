// SPDX-License-Identifier: MIT
/*
 * Saved thread names (the kernel's saved_cmdlines): the reader prints
 * names of threads that may have exited or been renamed since.  A small
 * table indexed by thread id; a collision overwrites, as in the kernel.
 */
#include <stdio.h>
#include <string.h>
#include "buffers/buffer.h"

#define NR_CMDLINES	1024

struct cmdline {
	int32_t tid;
	char comm[16];
};

static struct cmdline cmdlines[NR_CMDLINES];
static pthread_mutex_t cmdlines_lock = PTHREAD_MUTEX_INITIALIZER;

void slim_cmdline_save(int32_t tid, const char *comm)
{
	struct cmdline *c = &cmdlines[(uint32_t)tid % NR_CMDLINES];

	pthread_mutex_lock(&cmdlines_lock);
	c->tid = tid;
	snprintf(c->comm, sizeof(c->comm), "%s", comm);
	pthread_mutex_unlock(&cmdlines_lock);
}

void slim_cmdline_get(int32_t tid, char *comm)
{
	struct cmdline *c = &cmdlines[(uint32_t)tid % NR_CMDLINES];

	pthread_mutex_lock(&cmdlines_lock);
	if (tid && c->tid == tid)
		memcpy(comm, c->comm, 16);
	else
		strcpy(comm, "<...>");
	pthread_mutex_unlock(&cmdlines_lock);
}
