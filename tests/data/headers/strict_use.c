/* SPDX-License-Identifier: MIT */
/* test_headers: the C caller. */
#include <stdio.h>
#include <stdlib.h>
#include "strict_events.h"
#include "strict_calls.h"

int main(void)
{
	return strict_run();
}
