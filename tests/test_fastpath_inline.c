// SPDX-License-Identifier: MIT
/*
 * test_fastpath again, its events defined with SLIM_RECORD_INLINE: the
 * fast path inline in each class's probe and the other targets in the
 * class's slow probe (stages/7_probe.h) must write the same records and
 * count the same events as the shared fast path.
 */
#include "test_fastpath.c"
