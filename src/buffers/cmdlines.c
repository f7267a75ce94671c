// SPDX-License-Identifier: MIT
/*
 * Saved thread names (the kernel's saved_cmdlines): the reader prints
 * names of threads that may have exited or been renamed since.  A small
 * table indexed by thread id; a collision overwrites, as in the kernel.
 *
 * No lock: a thread saves its name when it claims a buffer, which may
 * happen in a signal handler that interrupted the same thread while it
 * was reading names.  Each entry is a sequence word (odd while written)
 * and atomic words; a writer that finds another writing gives up, a
 * reader that finds a write in progress retries a few times.
 */
#include <stdio.h>
#include <string.h>
#include "buffers/buffer.h"

#define NR_CMDLINES	1024
#define READ_TRIES	16

struct cmdline {
	uint32_t seq;
	int32_t tid;
	uint64_t comm[2];	/* 16 bytes of name */
};

static struct cmdline cmdlines[NR_CMDLINES];

void slim_cmdline_save(int32_t tid, const char *comm)
{
	struct cmdline *c = &cmdlines[(uint32_t)tid % NR_CMDLINES];
	uint32_t seq = __atomic_load_n(&c->seq, __ATOMIC_RELAXED);
	uint64_t w[2] = { 0, 0 };

	if ((seq & 1) || !__atomic_compare_exchange_n(&c->seq, &seq, seq + 1, 0,
						      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	strncpy((char *)w, comm, sizeof(w) - 1);
	__atomic_store_n(&c->tid, tid, __ATOMIC_RELAXED);
	__atomic_store_n(&c->comm[0], w[0], __ATOMIC_RELAXED);
	__atomic_store_n(&c->comm[1], w[1], __ATOMIC_RELAXED);
	__atomic_store_n(&c->seq, seq + 2, __ATOMIC_RELEASE);
}

void slim_cmdline_get(int32_t tid, char *comm)
{
	struct cmdline *c = &cmdlines[(uint32_t)tid % NR_CMDLINES];
	uint64_t w[2];
	uint32_t seq;
	int32_t t;
	int i;

	for (i = 0; tid && i < READ_TRIES; i++) {
		seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
		if (seq & 1)
			continue;
		/* Acquire loads: the check of seq below cannot move above them. */
		t = __atomic_load_n(&c->tid, __ATOMIC_ACQUIRE);
		w[0] = __atomic_load_n(&c->comm[0], __ATOMIC_ACQUIRE);
		w[1] = __atomic_load_n(&c->comm[1], __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&c->seq, __ATOMIC_RELAXED) != seq)
			continue;
		if (t != tid)
			break;
		memcpy(comm, w, 16);
		comm[15] = '\0';
		return;
	}
	strcpy(comm, "<...>");
}
