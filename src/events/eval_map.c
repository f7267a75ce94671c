// SPDX-License-Identifier: MIT
/*
 * TRACE_DEFINE_ENUM and TRACE_DEFINE_SIZEOF: a print fmt names enum
 * constants (and sizeof(type)) that a reader of the format file cannot
 * evaluate, so the kernel writes their values into it, and so does this.
 * The rules are the kernel's (trace_events.c, update_event_printk): text
 * inside quotes is left alone, numbers are skipped whole, and a name
 * counts only as a whole word that is not a member (after '.' or "->").
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/eval_map.h"

static int is_word(unsigned char c)
{
	return isalnum(c) || c == '_';
}

static const struct slim_eval_map *match(const char *p, const char *system,
					 const struct slim_eval_map *start,
					 const struct slim_eval_map *stop, size_t *len)
{
	const struct slim_eval_map *m;

	for (m = start; m && m < stop; m++) {
		size_t n = m->name ? strlen(m->name) : 0;

		if (!n || !m->system || strcmp(m->system, system))
			continue;
		if (!strncmp(p, m->name, n) && !is_word((unsigned char)p[n])) {
			*len = n;
			return m;
		}
	}
	return NULL;
}

/* The rest of a word, and of any member chain after it (a.b, a->b). */
static const char *skip_word(const char *p)
{
	for (;;) {
		while (is_word((unsigned char)*p))
			p++;
		if (*p == '.' && is_word((unsigned char)p[1]))
			p++;
		else if (p[0] == '-' && p[1] == '>' && is_word((unsigned char)p[2]))
			p += 2;
		else
			return p;
	}
}

/* Appends n bytes of src to the text being built, growing it. */
static int put(char **buf, size_t *len, size_t *cap, const char *src, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t want = (*len + n + 1) * 2;
		char *b = realloc(*buf, want);

		if (!b)
			return -1;
		*buf = b;
		*cap = want;
	}
	memcpy(*buf + *len, src, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

static int replace_all(const char *fmt, const char *system, const struct slim_eval_map *start,
		       const struct slim_eval_map *stop, char **out, int *replaced)
{
	size_t len = 0, cap = 0, n;
	const char *p = fmt, *from;
	const struct slim_eval_map *m;
	char num[24];
	int quote = 0, ret = 0;

	*out = NULL;
	while (*p && !ret) {
		from = p;
		if (*p == '\\') {
			p += p[1] ? 2 : 1;
		} else if (*p == '"') {
			quote ^= 1;
			p++;
		} else if (quote) {
			p++;
		} else if (isdigit((unsigned char)*p)) {
			while (is_word((unsigned char)*p))
				p++;
		} else if (isalpha((unsigned char)*p) || *p == '_') {
			m = match(p, system, start, stop, &n);
			if (m) {
				snprintf(num, sizeof(num), "%lld", m->value);
				ret = put(out, &len, &cap, num, strlen(num));
				*replaced = 1;
				p += n;
				continue;
			}
			p = skip_word(p);
		} else {
			p++;
		}
		ret = put(out, &len, &cap, from, (size_t)(p - from));
	}
	if (!ret && !*out)
		ret = put(out, &len, &cap, "", 0);
	return ret;
}

char *slim_eval_print_fmt(const char *fmt, const char *system,
			  const struct slim_eval_map *start, const struct slim_eval_map *stop)
{
	char *out;
	int replaced = 0;

	if (!fmt || !system || !start || start >= stop)
		return NULL;
	if (replace_all(fmt, system, start, stop, &out, &replaced)) {
		free(out);
		fprintf(stderr, "slimtrace: out of memory: the print fmt of a %s event keeps "
			"its enum names\n", system);
		return NULL;
	}
	if (!replaced) {
		free(out);
		return NULL;
	}
	return out;
}
