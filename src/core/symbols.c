// SPDX-License-Identifier: MIT
/*
 * Symbols for addresses, for the filters' .function and the printk
 * extensions %pS, %ps and %pB of the trace file.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <slimtrace/output.h>

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

/*
 * ld.so relocates the dynamic section's addresses in place, but not the
 * vDSO's (nor on targets where the section is read-only): those are
 * offsets from the object's base.
 */
static uintptr_t dyn_addr(const struct dl_phdr_info *info, ElfW(Addr) p)
{
	return p < info->dlpi_addr ? info->dlpi_addr + p : p;
}

/* How many entries the dynamic symbol table has: from DT_HASH, or the end of DT_GNU_HASH's chains. */
static size_t dynsym_count(const ElfW(Word) *hash, const uint32_t *gnu)
{
	const uint32_t *buckets, *chain;
	uint32_t nbuckets, symoffset, bloom, i, last = 0;

	if (hash)
		return hash[1];	/* nchain: one per symbol */
	if (!gnu)
		return 0;
	nbuckets = gnu[0];
	symoffset = gnu[1];
	bloom = gnu[2];
	buckets = gnu + 4 + bloom * (sizeof(ElfW(Addr)) / 4);
	for (i = 0; i < nbuckets; i++)
		if (buckets[i] > last)
			last = buckets[i];
	if (last < symoffset)
		return symoffset;
	chain = buckets + nbuckets;
	/* The last bucket's chain ends with the table: its last entry has bit 0 set. */
	while (!(chain[last - symoffset] & 1))
		last++;
	return last + 1;
}

struct ksym {
	uintptr_t start, end;
	const char *name;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * One object's functions, in address order.  A reader takes an address
 * to be in the nearest function below it, as kallsyms has no sizes:
 * where the object's code begins before its first function, and where a
 * function ends before the next begins (static functions, which the
 * dynamic linker does not know, lie there), a line naming the object
 * says so, rather than letting the function below claim the address.
 * Entries without a name are those object marks.
 */
static void put_object(struct slim_seq *s, struct ksym *v, size_t n, const char *object)
{
	const char *mark = object && object[0] ? object : program_invocation_short_name;
	uintptr_t last = 0;
	size_t i;

	qsort(v, n, sizeof(*v), ksym_cmp);
	for (i = 0; i < n; i++) {
		int shared = (i && v[i - 1].start == v[i].start) ||
			     (i + 1 < n && v[i + 1].start == v[i].start);

		if ((!v[i].name && shared) || (i && v[i].start == last))
			continue;	/* a function there, or an alias */
		last = v[i].start;
		if (!v[i].name) {
			slim_seq_printf(s, "%016lx t [%s]\n", (unsigned long)v[i].start, mark);
			continue;
		}
		slim_seq_printf(s, "%016lx T %s", (unsigned long)v[i].start, v[i].name);
		if (object && object[0])
			slim_seq_printf(s, "\t[%s]", object);
		slim_seq_putc(s, '\n');
		if (v[i].end > v[i].start && (i + 1 == n || v[i].end < v[i + 1].start))
			slim_seq_printf(s, "%016lx t [%s]\n", (unsigned long)v[i].end, mark);
	}
}

static int kallsyms_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct slim_seq *s = data;
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Sym) *symtab = NULL;
	const ElfW(Word) *hash = NULL;
	const uint32_t *gnu = NULL;
	const char *strtab = NULL, *object;
	struct ksym *v;
	size_t i, n, nv = 0;
	int k;

	(void)size;
	for (k = 0; k < info->dlpi_phnum; k++) {
		if (info->dlpi_phdr[k].p_type == PT_DYNAMIC)
			dyn = (const void *)(info->dlpi_addr + info->dlpi_phdr[k].p_vaddr);
	}
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		switch (dyn->d_tag) {
		case DT_SYMTAB:
			symtab = (const void *)dyn_addr(info, dyn->d_un.d_ptr);
			break;
		case DT_STRTAB:
			strtab = (const void *)dyn_addr(info, dyn->d_un.d_ptr);
			break;
		case DT_HASH:
			hash = (const void *)dyn_addr(info, dyn->d_un.d_ptr);
			break;
		case DT_GNU_HASH:
			gnu = (const void *)dyn_addr(info, dyn->d_un.d_ptr);
			break;
		}
	}
	n = symtab && strtab ? dynsym_count(hash, gnu) : 0;
	v = malloc((n + info->dlpi_phnum) * sizeof(*v));
	if (!v)
		return 0;
	/* Where each code segment begins: the object's mark. */
	for (k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && ph->p_memsz)
			v[nv++] = (struct ksym){ info->dlpi_addr + ph->p_vaddr, 0, NULL };
	}
	for (i = 1; i < n; i++) {
		const ElfW(Sym) *sym = &symtab[i];
		int type = ELF64_ST_TYPE(sym->st_info);	/* the same in ELF32 */

		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym->st_shndx == SHN_UNDEF ||
		    !sym->st_value || !strtab[sym->st_name])
			continue;
		v[nv].start = info->dlpi_addr + sym->st_value;
		v[nv].end = v[nv].start + sym->st_size;
		v[nv++].name = strtab + sym->st_name;
	}
	/* The program is the kernel proper; a shared object a module, named by its file. */
	object = info->dlpi_name && info->dlpi_name[0] ? strrchr(info->dlpi_name, '/') : NULL;
	object = object ? object + 1 : info->dlpi_name;
	put_object(s, v, nv, object);
	free(v);
	return 0;
}

void slim_symbols_kallsyms(struct slim_seq *s)
{
	dl_iterate_phdr(kallsyms_object, s);
}
