// SPDX-License-Identifier: MIT
/*
 * What the generated probes call for the dynamic fields that need more
 * than a copy: __vstring, formatted while the event is recorded (the
 * header asks for it, as in the kernel), and __cpumask, whose width is
 * the machine's possible CPUs.
 */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include <slimtrace/event.h>

SLIM_EXPORT unsigned long slim_vstr_len(const char *fmt, va_list *ap)
{
	va_list cp;
	int n;

	if (!fmt || !ap)
		return sizeof("(null)");
	va_copy(cp, *ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	/* A format the C library refuses is recorded as an empty string. */
	return n < 0 ? 1 : (unsigned long)n + 1;
}

SLIM_EXPORT void slim_assign_vstr(char *dst, unsigned int len, const char *fmt, va_list *ap)
{
	va_list cp;

	if (!len)
		return;
	if (!fmt || !ap) {
		snprintf(dst, len, "(null)");
		return;
	}
	va_copy(cp, *ap);
	if (vsnprintf(dst, len, fmt, cp) < 0)
		dst[0] = '\0';
	va_end(cp);
}

/*
 * The kernel's nr_cpumask_bits is nr_cpu_ids, the possible CPUs; the C
 * library's count of configured CPUs is the same set.  Set before main()
 * by the constructor, or by the first event that needs it if that comes
 * first (another constructor).
 */
SLIM_EXPORT unsigned int slim_nr_cpu_ids;

SLIM_EXPORT unsigned int slim_cpumask_bits_init(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	unsigned int ids = n > 0 && n < (1L << 20) ? (unsigned int)n : 1;

	SLIM_WRITE_ONCE(slim_nr_cpu_ids, ids);
	return ids;
}

static void __attribute__((constructor)) cpu_ids_init(void)
{
	if (!SLIM_READ_ONCE(slim_nr_cpu_ids))
		slim_cpumask_bits_init();
}
