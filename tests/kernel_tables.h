/* SPDX-License-Identifier: MIT */
/*
 * Field tables written by hand, equal to the kernel's sched_switch, kmalloc
 * and irq_handler_entry (tests/data/kernel/formats): shared by the tests
 * of the format text and of the printers.
 */
#ifndef SLIM_TESTS_KERNEL_TABLES_H
#define SLIM_TESTS_KERNEL_TABLES_H

#include <slimtrace/field.h>

static const char sched_switch_strings[] =
	"char[16]\0"	/* 0 */
	"prev_comm\0"	/* 9 */
	"pid_t\0"	/* 19 */
	"prev_pid\0"	/* 25 */
	"int\0"	/* 34 */
	"prev_prio\0"	/* 38 */
	"long\0"	/* 48 */
	"prev_state\0"	/* 53 */
	"next_comm\0"	/* 64 */
	"next_pid\0"	/* 74 */
	"next_prio\0"	/* 83 */;
static const struct slim_field sched_switch_fields[] = {
	{ 0, 9, 8, 16, 0, SLIM_FILTER_AUTO },	/* char[16] prev_comm */
	{ 19, 25, 24, 4, 1, SLIM_FILTER_AUTO },	/* pid_t prev_pid */
	{ 34, 38, 28, 4, 1, SLIM_FILTER_AUTO },	/* int prev_prio */
	{ 48, 53, 32, 8, 1, SLIM_FILTER_AUTO },	/* long prev_state */
	{ 0, 64, 40, 16, 0, SLIM_FILTER_AUTO },	/* char[16] next_comm */
	{ 19, 74, 56, 4, 1, SLIM_FILTER_AUTO },	/* pid_t next_pid */
	{ 34, 83, 60, 4, 1, SLIM_FILTER_AUTO },	/* int next_prio */
};
static const struct slim_field_table sched_switch_table = {
	sched_switch_strings, sched_switch_fields,
	sizeof(sched_switch_fields) / sizeof(sched_switch_fields[0]), 64,
};

static const char kmalloc_strings[] =
	"unsigned long\0"	/* 0 */
	"call_site\0"	/* 14 */
	"const void *\0"	/* 24 */
	"ptr\0"	/* 37 */
	"size_t\0"	/* 41 */
	"bytes_req\0"	/* 48 */
	"bytes_alloc\0"	/* 58 */
	"gfp_flags\0"	/* 70 */
	"int\0"	/* 80 */
	"node\0"	/* 84 */;
static const struct slim_field kmalloc_fields[] = {
	{ 0, 14, 8, 8, 0, SLIM_FILTER_AUTO },	/* unsigned long call_site */
	{ 24, 37, 16, 8, 0, SLIM_FILTER_AUTO },	/* const void * ptr */
	{ 41, 48, 24, 8, 0, SLIM_FILTER_AUTO },	/* size_t bytes_req */
	{ 41, 58, 32, 8, 0, SLIM_FILTER_AUTO },	/* size_t bytes_alloc */
	{ 0, 70, 40, 8, 0, SLIM_FILTER_AUTO },	/* unsigned long gfp_flags */
	{ 80, 84, 48, 4, 1, SLIM_FILTER_AUTO },	/* int node */
};
static const struct slim_field_table kmalloc_table = {
	kmalloc_strings, kmalloc_fields,
	sizeof(kmalloc_fields) / sizeof(kmalloc_fields[0]), 56,
};

static const char irq_handler_entry_strings[] =
	"int\0"	/* 0 */
	"irq\0"	/* 4 */
	"__data_loc char[]\0"	/* 8 */
	"name\0"	/* 26 */;
static const struct slim_field irq_handler_entry_fields[] = {
	{ 0, 4, 8, 4, 1, SLIM_FILTER_AUTO },	/* int irq */
	{ 8, 26, 12, 4, 0, SLIM_FILTER_AUTO },	/* __data_loc char[] name */
};
static const struct slim_field_table irq_handler_entry_table = {
	irq_handler_entry_strings, irq_handler_entry_fields,
	sizeof(irq_handler_entry_fields) / sizeof(irq_handler_entry_fields[0]), 16,
};

#endif
