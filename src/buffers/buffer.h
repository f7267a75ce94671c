/* SPDX-License-Identifier: MIT */
/* The per-thread buffers (src/buffer.c) and the saved thread names. */
#ifndef SLIM_BUFFER_H
#define SLIM_BUFFER_H

#include <pthread.h>
#include <stdint.h>
#include "core/internal.h"
#include "ring/ring_buffer.h"

/* Internal: reached directly, not through the GOT, from the library. */
#pragma GCC visibility push(hidden)

#define SLIM_DEFAULT_BUFFER_KB	1024

struct slim_buffer {
	struct slim_rb *rb;
	int owned;		/* a live thread writes here */
	int retired;		/* an old ring kept for its records */
	int cpu;		/* its number: the CPU column, trace.dat's CPU */
	int32_t tid;		/* the thread writing now, or last */
	char comm[16];		/* its name when it took the buffer */
	pthread_mutex_t read_lock;	/* one reader at a time */
	struct slim_buffer *next;
};

extern int slim_tracing_on;
extern unsigned int slim_buffer_pages;
extern int slim_buffer_overwrite;
extern uint64_t slim_lost_nobuf;

struct slim_buffer *slim_buffers_first(void);
void slim_buffers_stats(struct slim_rb_stats *sum);
int slim_buffers_count(void);
/* buffer_size_kb and the overwrite option: 0 or -errno. */
int slim_buffers_resize(unsigned int pages);
int slim_buffers_set_overwrite(int overwrite);

/* Thread names by id (the kernel's saved_cmdlines). */
void slim_cmdline_save(int32_t tid, const char *comm);
/* Copies the name into comm[16]; "<...>" when unknown, as the kernel. */
void slim_cmdline_get(int32_t tid, char *comm);

#pragma GCC visibility pop

#endif
