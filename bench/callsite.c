// SPDX-License-Identifier: MIT
/*
 * What a disabled call site adds to a realistic small function: the same
 * look-up with and without trace_bench_2int() where it finds the key.
 * compare.py disassembles both (built -O2, not linked) and counts the
 * instructions and bytes of the hot code, the part outside .text.unlikely.
 */
#include "record_events.h"

int callsite_plain(const int *tab, int n, int key);
int callsite_traced(const int *tab, int n, int key);

int callsite_plain(const int *tab, int n, int key)
{
	int i;

	for (i = 0; i < n; i++)
		if (tab[i] == key)
			return i;
	return -1;
}

int callsite_traced(const int *tab, int n, int key)
{
	int i;

	for (i = 0; i < n; i++) {
		if (tab[i] == key) {
			trace_bench_2int(key, i);
			return i;
		}
	}
	return -1;
}
