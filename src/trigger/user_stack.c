// SPDX-License-Identifier: MIT
/*
 * ftrace:user_stack: the calling thread's stack as a record, what the
 * stacktrace trigger writes (trigger/user_stack.h).
 *
 * The event is the kernel's user stack entry (events/ftrace/user_stack/
 * format: tgid at 8, unsigned long caller[8] at 16) and is internal, as
 * the kernel's ftrace entries are: it has an id and its format goes into
 * trace.dat's ftrace section, but nothing lists it, enables it or
 * attaches to it (core/internal.h).  No tracepoint fires it: the trigger
 * fills its record itself, in the triggering thread's buffer of the
 * trigger's instance.  It is registered by the first stacktrace trigger
 * set, so that programs that never use one carry no trace of it.
 */
#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <slimtrace/output.h>
#include "buffers/buffer.h"
#include "core/clock.h"
#include "core/internal.h"
#include "core/symbols.h"
#include "trigger/user_stack.h"

/* The kernel's layout: caller at 16 on 64-bit, 12 on 32-bit. */
_Static_assert(offsetof(struct slim_user_stack_entry, tgid) == 8 &&
	       offsetof(struct slim_user_stack_entry, caller) == 8 + sizeof(long),
	       "the kernel's user_stack layout");

/* Frames the library's own code may take above the program's. */
#define OWN_FRAMES_MAX	24

/*
 * The class's strings: the system name first, then each field's type
 * and name, then the print fmt.  Each offset is the size of what is
 * before it.
 */
#define US_S0	"ftrace\0"
#define US_S1	US_S0 "unsigned int\0"
#define US_S2	US_S1 "tgid\0"
#define US_S3	US_S2 "unsigned long[8]\0"
#define US_S4	US_S3 "caller\0"
#define US_AT(prefix)	((uint16_t)(sizeof(prefix) - 1))
#define US_CALLER(i)	"(void *)REC->caller[" #i "]"

static const char us_strings[] = US_S4
	/* The kernel's F_printk() for user_stack, as its format file shows it. */
	"\"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n"
	"\\t=> %ps\\n\\t=> %ps\\n\", "
	US_CALLER(0) ", " US_CALLER(1) ", " US_CALLER(2) ", " US_CALLER(3) ", "
	US_CALLER(4) ", " US_CALLER(5) ", " US_CALLER(6) ", " US_CALLER(7);

static const struct slim_field us_fields[] = {
	{ .type = US_AT(US_S0), .name = US_AT(US_S1), .offset = 8, .size = 4,
	  .is_signed = 0, .filter_type = SLIM_FILTER_OTHER },
	{ .type = US_AT(US_S2), .name = US_AT(US_S3), .offset = 16,
	  .size = sizeof(unsigned long) * SLIM_USER_STACK_ENTRIES, .is_signed = 0,
	  .filter_type = SLIM_FILTER_OTHER },
};

static int us_print(struct slim_seq *s, struct slim_seq *p, const struct slim_event *ev,
		    const void *rec, unsigned int len);

static const struct slim_event_class us_class = {
	.fields = { us_strings, us_fields, 2, sizeof(struct slim_user_stack_entry) },
	.print_fmt = US_AT(US_S4),
	/* No probe: nothing enables the event, the trigger writes its records. */
	.funcs = { .trace = us_print },
};

static struct slim_event us_event;
static int us_ready;

/* Where libslimtrace's code lies when it is a shared object of its own. */
static uintptr_t own_lo, own_hi;

static int find_own(struct dl_phdr_info *info, size_t size, void *data)
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
		/*
		 * Linked into the program: its frames cannot be told from the
		 * program's by where they lie, and are kept.
		 */
		if (info->dlpi_name && info->dlpi_name[0]) {
			own_lo = lo;
			own_hi = lo + ph->p_memsz;
		}
		return 1;
	}
	return 0;
}

static pthread_once_t warm_once = PTHREAD_ONCE_INIT;
static int warm_ok;

/*
 * glibc's backtrace() loads the unwinder (libgcc_s) with dlopen and
 * allocates on its first call only; made before the first stacktrace
 * trigger is set, its calls on the record path neither allocate nor
 * take a lock: the unwinder then finds each frame's tables with
 * _dl_find_object (glibc 2.35, GCC 12 on), which is lock-free.  It reads
 * only the frames the unwind tables describe, so it needs no frame
 * pointers (which most programs and libraries are built without) and
 * cannot follow a register holding something else into unmapped
 * memory, as a frame-pointer walk can.
 */
static void warm(void)
{
	void *ips[4];

	warm_ok = backtrace(ips, 4) > 0;
}

void slim_user_stack_warm(void)
{
	pthread_once(&warm_once, warm);
}

int slim_user_stack_prepare(void)
{
	int ret;

	if (us_ready)
		return 0;
	slim_user_stack_warm();
	if (!warm_ok)
		return -ENOTSUP;
	ret = slim_registry_add_internal(&us_event, "user_stack", &us_class);
	if (ret)
		return ret;
	dl_iterate_phdr(find_own, (void *)(uintptr_t)slim_user_stack_prepare);
	__atomic_store_n(&us_ready, 1, __ATOMIC_RELEASE);
	return 0;
}

const struct slim_event *slim_user_stack_event(void)
{
	return __atomic_load_n(&us_ready, __ATOMIC_ACQUIRE) ? &us_event : NULL;
}

/*
 * The function that calls every callback target (src/events/emit.c).
 * Hidden: the references bind to the library's own section, never to a
 * program's symbol of the same name.
 */
extern const char __start_slim_deliver[] __attribute__((visibility("hidden")));
extern const char __stop_slim_deliver[] __attribute__((visibility("hidden")));

static int own(uintptr_t ip)
{
	return ip >= own_lo && ip < own_hi;
}

/*
 * The first frame that is the program's: the one after the record
 * path's (src/events/emit.c puts them, the exported commits included,
 * in the slim_deliver section), i.e. the probe in the program; failing
 * that, the first outside the library when it is a shared object of
 * its own.
 */
static int in_deliver(const void *ip)
{
	return (uintptr_t)ip >= (uintptr_t)__start_slim_deliver &&
	       (uintptr_t)ip < (uintptr_t)__stop_slim_deliver;
}

static int first_caller(void *const *ips, int n)
{
	int i;

	for (i = 1; i < n && !in_deliver(ips[i]); i++)
		;
	if (i < n) {
		while (i < n && in_deliver(ips[i]))
			i++;
		return i;
	}
	for (i = 1; i < n && own((uintptr_t)ips[i]); i++)
		;
	return i;
}

/*
 * noinline: frame 0 of the unwind is this function, whatever the
 * compiler did with its callers.
 */
__attribute__((noinline)) int slim_user_stack_record(struct slim_bufset *bs)
{
	void *ips[SLIM_USER_STACK_ENTRIES + OWN_FRAMES_MAX];
	slim_user_stack_rec *r;
	struct slim_buffer *b;
	struct slim_rb *rb;
	int n, i, k;

	if (!slim_bufset_tracing_on(bs))
		return 0;
	b = slim_bufset_buffer(bs);
	if (!b)
		return 0;
	n = backtrace(ips, (int)(sizeof(ips) / sizeof(ips[0])));
	rb = slim_rcu_dereference(b->rb);
	r = slim_rb_reserve(rb, sizeof(*r), slim_clock_now(bs->clock));
	if (!r)
		return 0;	/* lost, and counted by the ring */
	r->ent.type = (uint16_t)us_event.event.type;
	r->ent.flags = 0;
	r->ent.preempt_count = 0;
	r->ent.pid = b->tid;
	/*
	 * A system call, but no lock and right after a fork too; next to
	 * the unwinding it costs nothing.
	 */
	r->tgid = (uint32_t)getpid();
	/* Frame 0 is this function; then the trigger's and the record path's. */
	i = first_caller(ips, n);
	for (k = 0; k < SLIM_USER_STACK_ENTRIES; k++)
		r->caller[k] = i < n ? (unsigned long)ips[i++] : 0;
	slim_rb_commit(rb);
	return 1;
}

/*
 * As the kernel prints a user stack: "<user stack trace>", then one
 * " => " line per caller up to the first zero, SYMBOL+0xOFF where the
 * dynamic linker knows the symbol (a return address is looked up one
 * byte before, as %pB: a call at a function's end returns past it),
 * else the kernel's <address>.  No newline after the last: the trace
 * file ends every record's text with one.
 */
static int us_print(struct slim_seq *s, struct slim_seq *p, const struct slim_event *ev,
		    const void *rec, unsigned int len)
{
	const slim_user_stack_rec *r = rec;
	int k;

	(void)p;
	(void)ev;
	slim_seq_puts(s, "<user stack trace>");
	if (len < sizeof(*r))
		return 0;
	for (k = 0; k < SLIM_USER_STACK_ENTRIES && r->caller[k]; k++) {
		uintptr_t ip = r->caller[k];
		struct slim_symbol sym;

		if (slim_symbol_at(ip - 1, &sym) == 0)
			slim_seq_printf(s, "\n => %s+0x%lx", sym.name,
					(unsigned long)(ip - sym.start));
		else
			slim_seq_printf(s, "\n => <%016lx>", (unsigned long)ip);
	}
	return 0;
}
