/* SPDX-License-Identifier: MIT */
/*
 * The protocol tests' mutation of a message (tests/test_live.c,
 * test_live_conn.c): a bounded stand-in for a fuzzer's, with rand().
 */
#ifndef SLIM_TESTS_MUTATE_H
#define SLIM_TESTS_MUTATE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One to four of: flip a bit, set a byte, cut, insert, repeat a piece, a wild length. */
static inline size_t mutate(unsigned char *m, size_t n, size_t cap)
{
	int k, times = 1 + rand() % 4;
	size_t at, len;

	for (k = 0; k < times && n; k++) {
		at = rand() % n;
		switch (rand() % 6) {
		case 0:
			m[at] ^= 1 << (rand() % 8);
			break;
		case 1:
			m[at] = rand();
			break;
		case 2:
			n = at;
			break;
		case 3:
			len = 1 + rand() % 16;
			if (n + len <= cap) {
				memmove(m + at + len, m + at, n - at);
				for (size_t i = 0; i < len; i++)
					m[at + i] = rand();
				n += len;
			}
			break;
		case 4:
			len = 1 + rand() % (n - at);
			if (n + len <= cap) {
				memmove(m + at + len, m + at, n - at);
				n += len;
			}
			break;
		default: {
			uint32_t v = rand() % 3 ? (uint32_t)rand() : (uint32_t)rand() % 64;
			size_t hdr = (at / 16) * 16;

			if (hdr + 4 <= n)
				memcpy(m + hdr, &v, 4);
			break;
		}
		}
	}
	return n;
}

#endif
