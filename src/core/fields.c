// SPDX-License-Identifier: MIT
/*
 * Field tables: the common fields every record starts with, filter types
 * derived from type text, lookup by name.
 */
#include <stddef.h>
#include <string.h>

#include <slimtrace/compiler.h>
#include <slimtrace/field.h>

/*
 * The strings blob of the common fields, laid out as a struct of char
 * arrays so that offsetof() gives each string's offset and no one has to
 * count bytes by hand.
 */
static const struct common_strings {
	char u16[sizeof("unsigned short")];
	char u8[sizeof("unsigned char")];
	char s32[sizeof("int")];
	char type[sizeof("common_type")];
	char flags[sizeof("common_flags")];
	char preempt[sizeof("common_preempt_count")];
	char pid[sizeof("common_pid")];
} common_strings = {
	"unsigned short", "unsigned char", "int",
	"common_type", "common_flags", "common_preempt_count", "common_pid",
};

#define CS(m)	offsetof(struct common_strings, m)

static const struct slim_field common_fields[SLIM_COMMON_FIELDS] = {
	{ CS(u16), CS(type), offsetof(struct slim_trace_entry, type), 2, 0, SLIM_FILTER_OTHER },
	{ CS(u8), CS(flags), offsetof(struct slim_trace_entry, flags), 1, 0, SLIM_FILTER_OTHER },
	{ CS(u8), CS(preempt), offsetof(struct slim_trace_entry, preempt_count), 1, 0,
	  SLIM_FILTER_OTHER },
	{ CS(s32), CS(pid), offsetof(struct slim_trace_entry, pid), 4, 1, SLIM_FILTER_OTHER },
};

SLIM_EXPORT const struct slim_field_table slim_common_fields = {
	.strings = (const char *)&common_strings,
	.fields = common_fields,
	.nr_fields = SLIM_COMMON_FIELDS,
	.size = sizeof(struct slim_trace_entry),
};

/*
 * The kernel decides how a field is filtered from its type text alone
 * (filter_assign_type): the same text must get the same answer here, or
 * a filter accepted by one would be refused by the other.
 */
static enum slim_filter_type filter_type_of(const char *type)
{
	if (strstr(type, "__data_loc") && strstr(type, "char"))
		return SLIM_FILTER_DYN_STRING;
	if (strstr(type, "__data_loc") && strstr(type, "cpumask_t"))
		return SLIM_FILTER_CPUMASK;
	if (strstr(type, "__rel_loc") && strstr(type, "char"))
		return SLIM_FILTER_RDYN_STRING;
	if (strchr(type, '[') && strstr(type, "char"))
		return SLIM_FILTER_STATIC_STRING;
	if (!strcmp(type, "char *") || !strcmp(type, "const char *"))
		return SLIM_FILTER_PTR_STRING;
	return SLIM_FILTER_OTHER;
}

SLIM_EXPORT enum slim_filter_type slim_field_filter_type(const struct slim_field_table *t,
							 const struct slim_field *f)
{
	if (f->filter_type != SLIM_FILTER_AUTO)
		return (enum slim_filter_type)f->filter_type;
	return filter_type_of(slim_field_type(t, f));
}

SLIM_EXPORT const struct slim_field *slim_field_find(const struct slim_field_table *t,
						     const char *name)
{
	unsigned int i;

	if (!t || !name)
		return NULL;
	for (i = 0; i < t->nr_fields; i++) {
		if (!strcmp(slim_field_name(t, &t->fields[i]), name))
			return &t->fields[i];
	}
	return NULL;
}
