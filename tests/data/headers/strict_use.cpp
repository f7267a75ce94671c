// SPDX-License-Identifier: MIT
// test_headers: the C++ caller of the events defined by strict_def.c.
#include <cstdio>
#include <cstdlib>
#include "strict_events.h"
#include "strict_calls.h"

int main()
{
	return strict_run();
}
