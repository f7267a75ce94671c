/* SPDX-License-Identifier: MIT */
#ifndef SLIM_SYMBOLS_H
#define SLIM_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/*
 * Where the kernel asks kallsyms, user space reads the loaded objects'
 * symbol tables: the dynamic ones in memory, and the full .symtab of
 * each object's file when it has one (static functions, a program's own
 * without -rdynamic).  Never the dynamic linker's dladdr()/dlsym(): see
 * symbols.c.
 */
struct slim_symbol {
	const char *name;
	uintptr_t start;
	size_t size;		/* at least 1 */
	const char *object;	/* the shared object's file name; NULL: the program */
};

/* The symbol addr lies in: 0, or -ENOENT when no known symbol holds it. */
int slim_symbol_at(uintptr_t addr, struct slim_symbol *sym);
/* A symbol by name, as slim_symbol_at() describes it: 0 or -ENOENT. */
int slim_symbol_named(const char *name, struct slim_symbol *sym);

struct slim_seq;
/*
 * The functions known, of every loaded object, as
 * the kernel's /proc/kallsyms lines ("ADDR T NAME [OBJECT]"), for a
 * trace.dat's kallsyms section: what slim_symbol_at() finds, a reader
 * of the file finds.  Allocates; not for the record path.
 */
void slim_symbols_kallsyms(struct slim_seq *s);

#pragma GCC visibility pop

#endif
