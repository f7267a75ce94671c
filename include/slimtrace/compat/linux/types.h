/* SPDX-License-Identifier: MIT */
/*
 * Kernel compatibility: the system's <linux/types.h> (the kernel's UAPI
 * __u8...) plus the kernel-internal names u8...s64 that trace headers use.
 */
/*
 * #include_next is a GNU extension that -Wpedantic reports; this file
 * only adds typedefs, so it is a system header, which keeps a strict
 * build quiet about it.
 */
#pragma GCC system_header
#include_next <linux/types.h>

#ifndef SLIMTRACE_COMPAT_TYPES_H
#define SLIMTRACE_COMPAT_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#endif
