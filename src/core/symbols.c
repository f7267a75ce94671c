// SPDX-License-Identifier: MIT
/*
 * Symbols for addresses, for the filters' .function and the printk
 * extensions %pS, %ps and %pB of the trace file.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <slimtrace/output.h>

#include "core/fork.h"
#include "core/symbols.h"

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

/*
 * A symbol table: an object's dynamic one, read from its dynamic section
 * in memory, or the full one (.symtab) of its file.  strsz is 0 for the
 * former (the loader checked it); a file's is checked here.
 */
struct dynsyms {
	const ElfW(Sym) *tab;
	const char *str;
	size_t strsz;
	const ElfW(Half) *versym;	/* DT_VERSYM, or NULL */
	size_t n;
};

static void dynsyms_of(const struct dl_phdr_info *info, struct dynsyms *ds)
{
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Word) *hash = NULL;
	const uint32_t *gnu = NULL;
	int k;

	*ds = (struct dynsyms){ 0 };
	for (k = 0; k < info->dlpi_phnum; k++) {
		if (info->dlpi_phdr[k].p_type == PT_DYNAMIC)
			dyn = (const void *)(info->dlpi_addr + info->dlpi_phdr[k].p_vaddr);
	}
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		const void *at = (const void *)dyn_addr(info, dyn->d_un.d_ptr);

		switch (dyn->d_tag) {
		case DT_SYMTAB: ds->tab = at; break;
		case DT_STRTAB: ds->str = at; break;
		case DT_VERSYM: ds->versym = at; break;
		case DT_HASH: hash = at; break;
		case DT_GNU_HASH: gnu = at; break;
		}
	}
	ds->n = ds->tab && ds->str ? dynsym_count(hash, gnu) : 0;
}

/* Symbol i's name, or NULL when it has none (or a file's runs outside its table). */
static const char *sym_name(const struct dynsyms *ds, size_t i)
{
	size_t at = ds->tab[i].st_name;

	if (ds->strsz && (at >= ds->strsz || !memchr(ds->str + at, '\0', ds->strsz - at)))
		return NULL;
	return ds->str[at] ? ds->str + at : NULL;
}

/* A defined function (or object) with a name and an address. */
static int sym_defined(const struct dynsyms *ds, size_t i, int funcs_only)
{
	const ElfW(Sym) *sym = &ds->tab[i];
	int type = ELF64_ST_TYPE(sym->st_info);	/* the same in ELF32 */

	if (type != STT_FUNC && type != STT_GNU_IFUNC && (funcs_only || type != STT_OBJECT))
		return 0;
	return sym->st_shndx != SHN_UNDEF && sym->st_shndx < SHN_LORESERVE &&
	       sym->st_value && sym_name(ds, i);
}

static void sym_fill(const struct dl_phdr_info *info, const struct dynsyms *ds, size_t i,
		     struct slim_symbol *out)
{
	const ElfW(Sym) *sym = &ds->tab[i];

	out->name = sym_name(ds, i);
	out->start = info->dlpi_addr + sym->st_value;
	out->size = sym->st_size ? sym->st_size : 1;
	out->object = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : NULL;
}

/* ---- an object's file: .symtab ---------------------------------------- */

/*
 * The dynamic linker knows only exported symbols; the object's file,
 * when not stripped, has the rest: static functions, and all of a
 * program's own when it is not linked -rdynamic.  Each file is mapped
 * once, at its first look-up, and kept while the process runs (keyed
 * by name and load address: an object loaded again there is the same
 * file), at most FILE_SYMS of them.  file_lock is taken only inside a
 * dl_iterate_phdr() callback, so always after the loader's list lock.
 */
#define FILE_SYMS	64

struct file_syms {
	char *name;
	uintptr_t base;
	struct dynsyms ds;	/* n 0: the file has none */
};

static struct file_syms files[FILE_SYMS];
static int nr_files;
static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t file_once = PTHREAD_ONCE_INIT;

static void file_lock_take(void)
{
	pthread_mutex_lock(&file_lock);
}

static void file_lock_drop(void)
{
	pthread_mutex_unlock(&file_lock);
}

static struct slim_fork_hook file_fork_hook = {
	SLIM_FORK_SYMBOLS, file_lock_take, file_lock_drop, file_lock_drop, NULL
};

static void file_hook_add(void)
{
	slim_fork_hook_add(&file_fork_hook);
}

/* Before any walk: a fork while a file is being mapped leaves its lock free. */
static void walk_objects(int (*fn)(struct dl_phdr_info *, size_t, void *), void *arg)
{
	pthread_once(&file_once, file_hook_add);
	dl_iterate_phdr(fn, arg);
}

/* The .symtab of an ELF image of len bytes, checked to lie inside it. */
static int elf_symtab(const unsigned char *m, size_t len, struct dynsyms *ds)
{
	const ElfW(Ehdr) *eh = (const void *)m;
	const ElfW(Shdr) *sh, *st;
	size_t i;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh->e_shentsize != sizeof(*sh) || eh->e_shoff > len ||
	    eh->e_shoff % _Alignof(ElfW(Shdr)) ||
	    eh->e_shnum > (len - eh->e_shoff) / sizeof(*sh))
		return -1;
	sh = (const void *)(m + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		if (sh[i].sh_link >= eh->e_shnum)
			return -1;
		st = &sh[sh[i].sh_link];
		if (sh[i].sh_offset > len || sh[i].sh_size > len - sh[i].sh_offset ||
		    sh[i].sh_offset % _Alignof(ElfW(Sym)) || st->sh_offset > len ||
		    st->sh_size > len - st->sh_offset || !st->sh_size)
			return -1;
		*ds = (struct dynsyms){
			.tab = (const void *)(m + sh[i].sh_offset),
			.n = sh[i].sh_size / sizeof(ElfW(Sym)),
			.str = (const char *)(m + st->sh_offset),
			.strsz = st->sh_size,
		};
		return 0;
	}
	return -1;
}

static void file_map(const char *path, struct dynsyms *ds)
{
	struct stat st;
	void *m;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*ds = (struct dynsyms){ 0 };
	if (fd < 0)
		return;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		return;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return;
	if (elf_symtab(m, (size_t)st.st_size, ds)) {
		munmap(m, (size_t)st.st_size);
		*ds = (struct dynsyms){ 0 };
	}
}

/*
 * The file's table for this object, or NULL.  The program is
 * /proc/self/exe; an object's name is its path (the vDSO's is not).
 */
static const struct dynsyms *file_syms_of(const struct dl_phdr_info *info)
{
	const char *name = info->dlpi_name ? info->dlpi_name : "";
	const struct dynsyms *ds = NULL;
	int i;

	if (name[0] && !strchr(name, '/'))
		return NULL;
	pthread_mutex_lock(&file_lock);
	for (i = 0; i < nr_files; i++)
		if (files[i].base == info->dlpi_addr && !strcmp(files[i].name, name))
			break;
	if (i == nr_files && nr_files < FILE_SYMS && (files[i].name = strdup(name))) {
		files[i].base = info->dlpi_addr;
		file_map(name[0] ? name : "/proc/self/exe", &files[i].ds);
		nr_files++;
	}
	if (i < nr_files && files[i].ds.n)
		ds = &files[i].ds;
	pthread_mutex_unlock(&file_lock);
	return ds;
}

/*
 * The lookups walk the loaded objects with dl_iterate_phdr() rather than
 * ask dladdr() or dlsym(): those take the dynamic linker's main lock,
 * which a dlopen() holds while its constructors register events, which
 * takes slim_event_mutex, held here while a filter is compiled.
 * dl_iterate_phdr() takes only the lock that guards the list of objects.
 */
struct sym_query {
	uintptr_t addr;
	const char *name;
	struct slim_symbol *sym;
	int found;
	int files;		/* name: look in the files' tables */
};

static int object_holds(const struct dl_phdr_info *info, uintptr_t addr)
{
	int k;

	for (k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && addr >= lo && addr - lo < ph->p_memsz)
			return 1;
	}
	return 0;
}

/* The symbol of ds that holds addr, the nearest below it if several: its index or 0. */
static size_t sym_holding(const struct dl_phdr_info *info, const struct dynsyms *ds,
			  uintptr_t addr)
{
	uintptr_t best = 0;
	size_t i, pick = 0;

	for (i = 1; i < ds->n; i++) {
		uintptr_t start = info->dlpi_addr + ds->tab[i].st_value;
		size_t len = ds->tab[i].st_size ? ds->tab[i].st_size : 1;

		/* Of aliases, the first in the table: the one dladdr() names. */
		if (start <= addr && addr - start < len && (!pick || start > best) &&
		    sym_defined(ds, i, 0)) {
			best = start;
			pick = i;
		}
	}
	return pick;
}

static int at_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct sym_query *q = data;
	const struct dynsyms *fs;
	struct dynsyms ds;
	size_t pick;

	(void)size;
	if (!object_holds(info, q->addr))
		return 0;
	dynsyms_of(info, &ds);
	pick = sym_holding(info, &ds, q->addr);
	if (pick) {
		sym_fill(info, &ds, pick, q->sym);
		q->found = 1;
	} else if ((fs = file_syms_of(info)) && (pick = sym_holding(info, fs, q->addr))) {
		sym_fill(info, fs, pick, q->sym);
		q->found = 1;
	}
	return 1;	/* the object that holds addr: no other does */
}

static int named_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct sym_query *q = data;
	const struct dynsyms *tab;
	struct dynsyms ds;
	size_t i;

	(void)size;
	if (q->files) {
		tab = file_syms_of(info);
		if (!tab)
			return 0;
	} else {
		dynsyms_of(info, &ds);
		tab = &ds;
	}
	for (i = 1; i < tab->n; i++) {
		/* A hidden version (name@VER, not @@) is not what the name binds to. */
		if (!sym_defined(tab, i, 0) || (tab->versym && (tab->versym[i] & 0x8000)) ||
		    strcmp(sym_name(tab, i), q->name))
			continue;
		sym_fill(info, tab, i, q->sym);
		q->found = 1;
		return 1;
	}
	return 0;
}

int slim_symbol_at(uintptr_t addr, struct slim_symbol *sym)
{
	struct sym_query q = { .addr = addr, .sym = sym };

	walk_objects(at_object, &q);
	return q.found ? 0 : -ENOENT;
}

/* An exported symbol first, in load order, as the dynamic linker binds; then any. */
int slim_symbol_named(const char *name, struct slim_symbol *sym)
{
	struct sym_query q = { .name = name, .sym = sym };

	if (!name || !name[0])
		return -ENOENT;
	walk_objects(named_object, &q);
	if (!q.found) {
		q.files = 1;
		walk_objects(named_object, &q);
	}
	return q.found ? 0 : -ENOENT;
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
	const struct dynsyms *tabs[2];
	const char *object;
	struct dynsyms ds;
	struct ksym *v;
	size_t i, nv = 0;
	int k, t;

	(void)size;
	dynsyms_of(info, &ds);
	tabs[0] = &ds;
	tabs[1] = file_syms_of(info);
	v = malloc((ds.n + (tabs[1] ? tabs[1]->n : 0) + info->dlpi_phnum) * sizeof(*v));
	if (!v)
		return 0;
	/* Where each code segment begins: the object's mark. */
	for (k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && ph->p_memsz)
			v[nv++] = (struct ksym){ info->dlpi_addr + ph->p_vaddr, 0, NULL };
	}
	/* The exported ones, then the file's (aliases of those go in put_object). */
	for (t = 0; t < 2 && tabs[t]; t++) {
		for (i = 1; i < tabs[t]->n; i++) {
			const ElfW(Sym) *sym = &tabs[t]->tab[i];

			if (!sym_defined(tabs[t], i, 1))
				continue;
			v[nv].start = info->dlpi_addr + sym->st_value;
			v[nv].end = v[nv].start + sym->st_size;
			v[nv++].name = sym_name(tabs[t], i);
		}
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
	walk_objects(kallsyms_object, s);
}
