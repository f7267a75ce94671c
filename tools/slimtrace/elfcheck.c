// SPDX-License-Identifier: MIT
/*
 * Does a program link slimtrace?  Before running a program, `record`
 * looks for what linking slimtrace leaves in an ELF file: the
 * "slim_events" section (a program that defines events), a symbol
 * slim_event_reserve (static linking; dynamic linking leaves it in
 * .dynsym as an undefined symbol), or a DT_NEEDED libslimtrace.  When
 * the executable itself has none of these, the shared objects glibc's
 * dynamic loader would load for it are checked the same way (the loader
 * lists them without running the program).
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "elfcheck.h"

struct elf {
	const unsigned char *p;
	size_t size;
	int is64;
};

/* Is [off, off + len) inside the file? */
static int in_file(const struct elf *e, uint64_t off, uint64_t len)
{
	return off <= e->size && len <= e->size - off;
}

struct shdr {
	uint32_t name, type, link;
	uint64_t offset, size, entsize;
};

static int get_shdr(const struct elf *e, uint64_t shoff, unsigned int entsize, unsigned int i,
		    struct shdr *s)
{
	uint64_t at = shoff + (uint64_t)i * entsize;

	if (e->is64) {
		Elf64_Shdr h;

		if (entsize < sizeof(h) || !in_file(e, at, sizeof(h)))
			return -1;
		memcpy(&h, e->p + at, sizeof(h));
		*s = (struct shdr){ h.sh_name, h.sh_type, h.sh_link, h.sh_offset, h.sh_size, h.sh_entsize };
	} else {
		Elf32_Shdr h;

		if (entsize < sizeof(h) || !in_file(e, at, sizeof(h)))
			return -1;
		memcpy(&h, e->p + at, sizeof(h));
		*s = (struct shdr){ h.sh_name, h.sh_type, h.sh_link, h.sh_offset, h.sh_size, h.sh_entsize };
	}
	if (s->type != SHT_NOBITS && !in_file(e, s->offset, s->size))
		return -1;
	return 0;
}

/* A NUL-terminated string at OFF of a string table, or NULL. */
static const char *str_at(const struct elf *e, const struct shdr *tab, uint64_t off)
{
	const char *s;

	if (off >= tab->size)
		return NULL;
	s = (const char *)e->p + tab->offset + off;
	if (!memchr(s, '\0', tab->size - off))
		return NULL;
	return s;
}

static int symbols_have(const struct elf *e, const struct shdr *sym, const struct shdr *str,
			const char *want)
{
	size_t esz = e->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	uint64_t i, n = sym->size / esz;
	const char *name;
	uint32_t off;

	for (i = 0; i < n; i++) {
		const unsigned char *p = e->p + sym->offset + i * esz;

		memcpy(&off, p, 4);	/* st_name comes first in both classes */
		name = str_at(e, str, off);
		if (name && !strcmp(name, want))
			return 1;
	}
	return 0;
}

static int needed_has(const struct elf *e, const struct shdr *dyn, const struct shdr *str,
		      const char *want)
{
	size_t esz = e->is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
	uint64_t i, n = dyn->size / esz, tag, val;
	const char *name;

	for (i = 0; i < n; i++) {
		const unsigned char *p = e->p + dyn->offset + i * esz;

		if (e->is64) {
			Elf64_Dyn d;

			memcpy(&d, p, sizeof(d));
			tag = d.d_tag;
			val = d.d_un.d_val;
		} else {
			Elf32_Dyn d;

			memcpy(&d, p, sizeof(d));
			tag = d.d_tag;
			val = d.d_un.d_val;
		}
		if (tag == DT_NULL)
			break;
		name = tag == DT_NEEDED ? str_at(e, str, val) : NULL;
		if (name && strstr(name, want))
			return 1;
	}
	return 0;
}

/* Scan the sections: 1 marker found, 0 none, -1 not a readable ELF. */
static int scan_sections(const struct elf *e, int *dynamic)
{
	uint64_t shoff;
	unsigned int shnum, shentsize, shstrndx, i;
	struct shdr names, s, link;
	const char *name;

	if (e->is64) {
		Elf64_Ehdr h;

		memcpy(&h, e->p, sizeof(h));
		shoff = h.e_shoff, shnum = h.e_shnum, shentsize = h.e_shentsize, shstrndx = h.e_shstrndx;
	} else {
		Elf32_Ehdr h;

		memcpy(&h, e->p, sizeof(h));
		shoff = h.e_shoff, shnum = h.e_shnum, shentsize = h.e_shentsize, shstrndx = h.e_shstrndx;
	}
	if (!shnum || shstrndx >= shnum || get_shdr(e, shoff, shentsize, shstrndx, &names))
		return -1;
	for (i = 0; i < shnum; i++) {
		if (get_shdr(e, shoff, shentsize, i, &s))
			return -1;
		name = str_at(e, &names, s.name);
		if (name && !strcmp(name, "slim_events"))
			return 1;
		if (s.type != SHT_SYMTAB && s.type != SHT_DYNSYM && s.type != SHT_DYNAMIC)
			continue;
		if (s.type == SHT_DYNAMIC)
			*dynamic = 1;
		if (s.link >= shnum || get_shdr(e, shoff, shentsize, s.link, &link))
			continue;
		if (s.type == SHT_DYNAMIC ? needed_has(e, &s, &link, "libslimtrace")
					  : symbols_have(e, &s, &link, "slim_event_reserve"))
			return 1;
	}
	return 0;
}

/* The PT_INTERP path, or "" when there is none. */
static void interp(const struct elf *e, char *buf, size_t len)
{
	uint64_t phoff, i;
	unsigned int phnum, phentsize;

	buf[0] = '\0';
	if (e->is64) {
		Elf64_Ehdr h;

		memcpy(&h, e->p, sizeof(h));
		phoff = h.e_phoff, phnum = h.e_phnum, phentsize = h.e_phentsize;
	} else {
		Elf32_Ehdr h;

		memcpy(&h, e->p, sizeof(h));
		phoff = h.e_phoff, phnum = h.e_phnum, phentsize = h.e_phentsize;
	}
	for (i = 0; i < phnum; i++) {
		uint64_t at = phoff + i * phentsize, off, size;
		uint32_t type;

		if (e->is64) {
			Elf64_Phdr ph;

			if (phentsize < sizeof(ph) || !in_file(e, at, sizeof(ph)))
				return;
			memcpy(&ph, e->p + at, sizeof(ph));
			type = ph.p_type, off = ph.p_offset, size = ph.p_filesz;
		} else {
			Elf32_Phdr ph;

			if (phentsize < sizeof(ph) || !in_file(e, at, sizeof(ph)))
				return;
			memcpy(&ph, e->p + at, sizeof(ph));
			type = ph.p_type, off = ph.p_offset, size = ph.p_filesz;
		}
		if (type != PT_INTERP)
			continue;
		if (!in_file(e, off, size) || !size || size >= len || e->p[off + size - 1])
			return;
		memcpy(buf, e->p + off, size);
		return;
	}
}

static int map_elf(const char *path, struct elf *e, void **map)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*map = MAP_FAILED;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf32_Ehdr)) {
		close(fd);
		return -1;
	}
	*map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (*map == MAP_FAILED)
		return -1;
	e->p = *map;
	e->size = st.st_size;
	if (memcmp(e->p, ELFMAG, SELFMAG) ||
	    (e->p[EI_CLASS] != ELFCLASS32 && e->p[EI_CLASS] != ELFCLASS64))
		return -1;
	e->is64 = e->p[EI_CLASS] == ELFCLASS64;
	if (e->is64 && e->size < sizeof(Elf64_Ehdr))
		return -1;
	return 0;
}

/* 1, 0 or -1 for one file, and its interpreter when it is dynamic. */
static int check_file(const char *path, char *ld, size_t ldlen)
{
	struct elf e;
	void *map;
	int dynamic = 0, ret = -1;

	if (ld)
		ld[0] = '\0';
	if (map_elf(path, &e, &map) == 0) {
		ret = scan_sections(&e, &dynamic);
		if (ld && ret == 0 && dynamic)
			interp(&e, ld, ldlen);
	}
	if (map != MAP_FAILED)
		munmap(map, e.size);
	return ret;
}

/*
 * Run glibc's loader as "LD --list PATH" (it maps the objects and runs
 * nothing) and give each line of what it prints to FN; the loader's
 * exit status, or -1 if it could not be run.  --list stops at the first
 * object it cannot find; TRACE, as ldd does (LD_TRACE_LOADED_OBJECTS),
 * lists every one, the missing ones as "NAME => not found".
 */
static int ld_list(const char *path, const char *ld, int trace,
		   void (*fn)(char *line, void *arg), void *arg)
{
	const char *base = strrchr(ld, '/');
	char line[4096];
	int fds[2], status;
	FILE *f;
	pid_t pid;

	base = base ? base + 1 : ld;
	if (strncmp(base, "ld-linux", 8) || pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(fds[1], 1);
		if (devnull >= 0)
			dup2(devnull, 2);
		close(fds[0]);
		close(fds[1]);
		if (trace) {
			setenv("LD_TRACE_LOADED_OBJECTS", "1", 1);
			execl(ld, ld, path, (char *)NULL);
		} else {
			execl(ld, ld, "--list", path, (char *)NULL);
		}
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	while (f && fgets(line, sizeof(line), f))
		fn(line, arg);
	if (f)
		fclose(f);
	else
		close(fds[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* "\tlibx.so.1 => /usr/lib/libx.so.1 (0x...)": is that object slimtrace's? */
static void check_line(char *line, void *arg)
{
	int *found = arg;
	char *p = strstr(line, "=> /"), *end;

	p = p ? p + 3 : line + strspn(line, " \t");
	if (*p != '/' || !(end = strstr(p, " (0x")))
		return;
	*end = '\0';
	if (!*found && check_file(p, NULL, 0) == 1)
		*found = 1;
}

/* Ask glibc's loader which objects PATH loads, and check each. */
static int check_libraries(const char *path, const char *ld)
{
	int found = 0, st = ld_list(path, ld, 0, check_line, &found);

	if (st != 0)
		return found ? 1 : -1;
	return found;
}

struct missing {
	char *buf;
	size_t len;
	int n;
};

/* "\tlibslimtrace.so.1 => not found" */
static void missing_line(char *line, void *arg)
{
	struct missing *m = arg;
	char *name = line + strspn(line, " \t"), *end = strstr(name, " => not found");
	size_t used = strlen(m->buf);

	if (!end)
		return;
	snprintf(m->buf + used, m->len - used, "%s%.*s", m->n ? ", " : "", (int)(end - name),
		 name);
	m->n++;
}

int elf_missing_libraries(const char *path, char *buf, size_t len)
{
	struct missing m = { buf, len, 0 };
	char ld[256];
	struct elf e;
	void *map;

	buf[0] = '\0';
	ld[0] = '\0';
	if (map_elf(path, &e, &map) == 0)
		interp(&e, ld, sizeof(ld));
	if (map != MAP_FAILED)
		munmap(map, e.size);
	if (ld[0])
		ld_list(path, ld, 1, missing_line, &m);
	return m.n;
}

int elf_links_slimtrace(const char *path)
{
	char ld[256];
	int ret = check_file(path, ld, sizeof(ld));

	if (ret == 0 && ld[0])
		return check_libraries(path, ld);
	return ret;
}
