// SPDX-License-Identifier: MIT
/*
 * Symbols for addresses, for the filters' .function and the printk
 * extensions %pS, %ps and %pB of the trace file.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>

#include "core/symbols.h"

int slim_symbol_at(uintptr_t addr, struct slim_symbol *sym)
{
	const ElfW(Sym) *ent = NULL;
	struct link_map *map = NULL;
	Dl_info info;

	if (!dladdr1((void *)addr, &info, (void **)&ent, RTLD_DL_SYMENT) || !ent ||
	    !info.dli_saddr || !info.dli_sname)
		return -ENOENT;
	sym->name = info.dli_sname;
	sym->start = (uintptr_t)info.dli_saddr;
	sym->size = ent->st_size ? ent->st_size : 1;
	/* The nearest symbol below a static function is not its symbol. */
	if (addr < sym->start || addr - sym->start >= sym->size)
		return -ENOENT;
	sym->object = NULL;
	if (dladdr1((void *)addr, &info, (void **)&map, RTLD_DL_LINKMAP) && map &&
	    map->l_name && map->l_name[0])
		sym->object = map->l_name;
	return 0;
}

int slim_symbol_named(const char *name, struct slim_symbol *sym)
{
	void *p = name ? dlsym(RTLD_DEFAULT, name) : NULL;

	return p ? slim_symbol_at((uintptr_t)p, sym) : -ENOENT;
}
