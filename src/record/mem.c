// SPDX-License-Identifier: MIT
/*
 * Memory for the recorder's tables (the file's CPUs, their files, the
 * rings owing lost events).  They grow as buffers appear, and a fatal
 * signal may come right after a burst of new threads, before the
 * consumer has grown them: the handler must then grow them itself.  It
 * cannot call malloc (the signal may have interrupted it, holding its
 * lock), so there it maps fresh pages and notes them, so that whoever
 * frees the table later (another thread stopping the recording while
 * the process dies) unmaps them instead.  The old block is not freed
 * from the handler, for the same reason.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "record/rec.h"

#define MAPPED_MAX	64	/* tables grown by handlers: each doubles at least */

static struct {
	void *p;
	size_t size;
} mapped[MAPPED_MAX];

static int note_mapped(void *p, size_t size)
{
	int i;

	for (i = 0; i < MAPPED_MAX; i++) {
		void *none = NULL;

		if (__atomic_compare_exchange_n(&mapped[i].p, &none, p, 0,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			__atomic_store_n(&mapped[i].size, size, __ATOMIC_SEQ_CST);
			return 0;
		}
	}
	return -1;
}

static int find_mapped(const void *p)
{
	int i;

	for (i = 0; p && i < MAPPED_MAX; i++)
		if (__atomic_load_n(&mapped[i].p, __ATOMIC_SEQ_CST) == p)
			return i;
	return -1;
}

void *rec_grow(void *old, size_t old_size, size_t new_size, int in_signal)
{
	void *p;

	if (!in_signal && find_mapped(old) < 0)
		return realloc(old, new_size);
	if (!in_signal) {
		p = malloc(new_size);
		if (p) {
			memcpy(p, old, old_size < new_size ? old_size : new_size);
			rec_release(old);
		}
		return p;
	}
	p = mmap(NULL, new_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (note_mapped(p, new_size)) {
		munmap(p, new_size);
		return NULL;
	}
	if (old && old_size)
		memcpy(p, old, old_size < new_size ? old_size : new_size);
	return p;
}

void rec_release(void *p)
{
	int i = find_mapped(p);

	if (i < 0) {
		free(p);
		return;
	}
	munmap(p, __atomic_load_n(&mapped[i].size, __ATOMIC_SEQ_CST));
	__atomic_store_n(&mapped[i].p, NULL, __ATOMIC_SEQ_CST);
}
