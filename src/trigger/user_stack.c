// SPDX-License-Identifier: MIT
/*
 * The stacktrace trigger's record: the calling thread's user stack as an
 * ftrace:user_stack event (trigger/user_stack.h), and how `trace`
 * prints it.
 */
#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <slimtrace/output.h>
#include "buffers/buffer.h"
#include "core/clock.h"
#include "core/fork.h"
#include "core/symbols.h"
#include "trigger/stack.h"

#define CREATE_TRACE_POINTS
#include "trigger/user_stack.h"

struct user_stack_rec {
	struct slim_trace_entry ent;
	uint32_t tgid;
	uint32_t pad;
	unsigned long caller[SLIM_USER_STACK_ENTRIES];
};

_Static_assert(offsetof(struct user_stack_rec, tgid) == 8 &&
	       offsetof(struct user_stack_rec, caller) == 16,
	       "the kernel's user_stack layout");

/* The process id, kept so that the record path makes no system call. */
static int32_t tgid;

/* Where libslimtrace's own code lies, when it is a shared object of its own. */
static uintptr_t lib_lo, lib_hi;

static void after_fork_child(void)
{
	tgid = (int32_t)getpid();
}

static struct slim_fork_hook fork_hook = {
	SLIM_FORK_CMDLINES, NULL, NULL, after_fork_child, NULL
};

static int find_lib(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t me = (uintptr_t)data;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) ||
		    me < lo || me >= lo + ph->p_memsz)
			continue;
		/* Linked into the program (static): its frames cannot be told apart. */
		if (!info->dlpi_name || !info->dlpi_name[0])
			return 1;
		lib_lo = lo;
		lib_hi = lo + ph->p_memsz;
		return 1;
	}
	return 0;
}

int slim_user_stack_prepare(void)
{
	static int done;
	void *warm[4];

	if (done)
		return 0;
	/*
	 * backtrace() loads the unwinder (libgcc_s) and allocates on its
	 * first call only: made here, when the trigger is set, the record
	 * path's calls neither allocate nor load anything.  The unwinder
	 * then finds each frame's unwind table with _dl_find_object (glibc
	 * 2.35 and GCC 12 on), which takes no lock.  It needs no frame
	 * pointers, which libslimtrace and most programs are built without,
	 * and reads only the stack frames its tables describe, so unlike a
	 * frame-pointer walk it cannot follow a register holding anything
	 * else into unmapped memory.
	 */
	if (backtrace(warm, 4) <= 0)
		return -ENOTSUP;
	tgid = (int32_t)getpid();
	slim_fork_hook_add(&fork_hook);
	dl_iterate_phdr(find_lib, (void *)(uintptr_t)slim_user_stack_prepare);
	done = 1;
	return 0;
}

/* Frames of the trigger and of the record path are not the program's. */
static int ours(uintptr_t ip)
{
	return ip >= lib_lo && ip < lib_hi;
}

__attribute__((noinline)) void slim_user_stack_record(struct slim_bufset *bs)
{
	void *ips[SLIM_USER_STACK_ENTRIES + 24];
	struct user_stack_rec *r;
	struct slim_buffer *b;
	struct slim_rb *rb;
	int n, i, k;

	if (!SLIM_READ_ONCE(bs->tracing_on))
		return;
	b = slim_bufset_buffer(bs);
	if (!b)
		return;
	n = backtrace(ips, (int)(sizeof(ips) / sizeof(ips[0])));
	rb = slim_rcu_dereference(b->rb);
	r = slim_rb_reserve(rb, sizeof(*r), slim_clock_now(bs->clock));
	if (!r)
		return;		/* lost, and counted by the ring */
	r->ent.type = (uint16_t)slim_event_user_stack.event.type;
	r->ent.flags = 0;
	r->ent.preempt_count = 0;
	r->ent.pid = b->tid;
	r->tgid = (uint32_t)tgid;
	r->pad = 0;
	/* ips[0] is this function; then the trigger's own, and the library's. */
	for (i = 1; i < n && ours((uintptr_t)ips[i]); i++)
		;
	for (k = 0; k < SLIM_USER_STACK_ENTRIES; k++)
		r->caller[k] = i < n ? (unsigned long)ips[i++] : 0;
	slim_rb_commit(rb);
}

int slim_user_stack_type(void)
{
	return slim_event_user_stack.event.type;
}

/*
 * As the kernel prints a user stack: a line saying what it is, then a
 * " => " line for each caller until the first zero.  A caller prints
 * as SYMBOL+0xOFF where the dynamic linker knows its symbol, else as
 * its address.
 */
int slim_user_stack_print(struct slim_seq *s, const void *rec, unsigned int len)
{
	const struct user_stack_rec *r = rec;
	int k;

	slim_seq_puts(s, "<user stack trace>");
	if (len < sizeof(*r))
		return 0;
	for (k = 0; k < SLIM_USER_STACK_ENTRIES && r->caller[k]; k++) {
		struct slim_symbol sym;
		uintptr_t ip = r->caller[k];

		if (slim_symbol_at(ip, &sym) == 0)
			slim_seq_printf(s, "\n => %s+0x%lx", sym.name,
					(unsigned long)(ip - sym.start));
		else
			slim_seq_printf(s, "\n => <%016lx>", (unsigned long)ip);
	}
	return 0;
}
