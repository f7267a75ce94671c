/*
 * Uprobe target for the kernel filter differential capture (capture.sh).
 *
 * slim_filter_target() is called once per row of calls[], in order; the
 * uprobe records its arguments as typed fields, so every filter expression
 * is judged by the kernel against the same fixed set of records. The first
 * argument is the row index, which is how capture.sh tells the rows apart.
 *
 * Row i runs pinned to the (i mod n)-th CPU this process may use, so the
 * CPU pseudo-field takes more than one value. The CPU each row really ran
 * on is read back from the kernel's trace, not assumed.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <sched.h>

struct call {
	int a;
	unsigned int b;
	long long c;
	unsigned long long d;
	const char *s;
	short e;
	unsigned char f;
	signed char g;
	unsigned short h;
};

static const struct call calls[] = {
	{ 0, 0, 0, 0, "", 0, 0, 0, 0 },
	{ 1, 1, 1, 1, "nginx", 1, 1, 1, 1 },
	{ -1, UINT_MAX, -1, ULLONG_MAX, "nginx-worker", -1, 255, -1, USHRT_MAX },
	{ INT_MIN, 0x80000000u, LLONG_MIN, 0x8000000000000000ull, "ab*c",
	  SHRT_MIN, 128, SCHAR_MIN, 0x8000 },
	{ INT_MAX, 0x7fffffffu, LLONG_MAX, 0x7fffffffffffffffull, "a?c",
	  SHRT_MAX, 127, SCHAR_MAX, 0x7fff },
	{ 255, 256, 255, 256, "[x]", 255, 254, 2, 256 },
	{ 8, 8, 16, 16, "abc", -8, 8, -16, 16 },
	{ -2, 4294967294u, -4294967296ll, 4294967296ull, "x", -2, 2, -2,
	  65534 },
	{ 42, 42, 1099511627776ll, 0xdeadbeefcafebabeull, "NGINX", 4096, 15,
	  15, 0xf0f0 },
	{ 10, 10, 10, 10, "aXc", 10, 10, 10, 10 },
	{ 100, 100, 4294967295ll, 4294967295ull, "ac", 100, 100, 100, 100 },
	{ -100, 3000000000u, -3000000000ll, 3000000000ull, "abbc", -100, 200,
	  -100, 40000 },
	{ 7, 7, 7, 7, "worker-nginx", 7, 7, 7, 7 },
	{ 3, 3, 3, 3, "nginx worker", 3, 3, 3, 3 },
	{ 5, 5, 5, 5, "*", 5, 5, 5, 5 },
	{ 6, 6, 6, 6, "?", 6, 6, 6, 6 },
	{ 9, 9, 9, 9, "a\\c", 9, 9, 9, 9 },
	{ 11, 11, 11, 11, "a\"b'c", 11, 11, 11, 11 },
	{ 12, 12, 12, 12, "b", 12, 12, 12, 12 },
	{ 13, 13, 13, 13, "abcabc", 13, 13, 13, 13 },
	{ 14, 14, 14, 14, "x]", 14, 14, 14, 14 },
	{ 15, 15, 15, 15, "-", 15, 15, 15, 15 },
	{ 16, 16, 16, 16, "0123456789abcdef0123456789abcdef0123456789abcdef",
	  16, 16, 16, 16 },
	{ 17, 17, 17, 17, "ngin", 17, 17, 17, 17 },
	{ 18, 18, 18, 18, "0x1f", 18, 18, 18, 18 },
	{ 19, 19, 19, 19, "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL",
	  19, 19, 19, 19 },
	{ 20, 20, 20, 20, " pad ", 20, 20, 20, 20 },
	{ 21, 21, 21, 21, "nginx-worker-0123456789", 21, 21, 21, 21 },
	{ 22, 22, 22, 22, "9lives", 22, 22, 22, 22 },
	{ 23, 23, 23, 23, "x9", 23, 23, 23, 23 },
};

#define NCALLS (sizeof(calls) / sizeof(calls[0]))

/* Keep the call and its argument setup: the uprobe sits on the entry. */
__attribute__((noinline, used)) void
slim_filter_target(unsigned int idx, int a, unsigned int b, long long c,
		   unsigned long long d, const char *s, short e,
		   unsigned char f, signed char g, unsigned short h)
{
	__asm__ volatile("" : : "r"(idx), "r"(a), "r"(b), "r"(c), "r"(d),
			 "r"(s), "r"(e), "r"(f), "r"(g), "r"(h) : "memory");
}

static void pin_row(unsigned int idx, const cpu_set_t *allowed)
{
	int n = CPU_COUNT(allowed);
	int want, cpu, seen = 0;
	cpu_set_t one;

	if (n <= 0)
		return;
	want = idx % n;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, allowed))
			continue;
		if (seen++ != want)
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		/* Best effort: a failed pin only makes CPU less varied. */
		sched_setaffinity(0, sizeof(one), &one);
		return;
	}
}

int main(void)
{
	cpu_set_t allowed;
	unsigned int i;
	int pin = sched_getaffinity(0, sizeof(allowed), &allowed) == 0;

	for (i = 0; i < NCALLS; i++) {
		const struct call *k = &calls[i];

		if (pin)
			pin_row(i, &allowed);
		slim_filter_target(i, k->a, k->b, k->c, k->d, k->s, k->e,
				   k->f, k->g, k->h);
	}
	return 0;
}
