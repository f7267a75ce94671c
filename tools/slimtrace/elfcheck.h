/* SPDX-License-Identifier: MIT */
#ifndef SLIMTRACE_CLI_ELFCHECK_H
#define SLIMTRACE_CLI_ELFCHECK_H

/*
 * 1: PATH (or a shared object it loads) links slimtrace; 0: it does not;
 * -1: cannot tell (not an ELF file, e.g. a script; no section headers).
 */
int elf_links_slimtrace(const char *path);
/*
 * The shared objects PATH needs that the loader does not find (it
 * could not start), joined by ", " in BUF: how many.
 */
int elf_missing_libraries(const char *path, char *buf, size_t len);

#endif
