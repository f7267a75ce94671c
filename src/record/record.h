/* SPDX-License-Identifier: MIT */
/* Recording to disk (src/record/): the parts the control files use. */
#ifndef SLIM_RECORD_H
#define SLIM_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <slimtrace/record.h>
#include "core/clock.h"

struct slim_seq;

struct slim_bufset;

/*
 * The `record` control file of the instance whose buffers are bs.
 * Writing a path starts recording them to it (-EBUSY if a recording
 * runs, of any instance: one at a time); writing "0" or nothing stops
 * this instance's.  Called without slim_event_mutex (the recorder's
 * lock nests outside it: src/core/fork.h), the instance kept busy by
 * the caller meanwhile.
 */
int slim_record_ctl_write(struct slim_bufset *bs, const char *text);
/* The path bs is being recorded to and a newline, or nothing. */
int slim_record_ctl_read(struct slim_bufset *bs, struct slim_seq *s);
/* Is bs being recorded?  (Its instance cannot be removed meanwhile.)  Takes no lock. */
int slim_record_records(struct slim_bufset *bs);

/*
 * Cycles to ns the way the recorder does it: a table entry cached across
 * calls (stamps mostly grow), the same result as slim_clock_calib_to_ns().
 */
struct slim_record_conv {
	const struct slim_clock_calib *tab;
	size_t n;
	size_t i;
};
uint64_t slim_record_conv_ns(struct slim_record_conv *cv, uint64_t raw);

#endif
