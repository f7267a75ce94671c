// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the dynamic_events command parser: the input is
 * one command line (cut at 4 KiB, as a control write), parsed into a
 * definition; an eprobe's arguments are then resolved against a fixed
 * source class (numbers, a char[16], a __data_loc and a __rel_loc
 * string).  Checks what every accepted definition must hold: fields in
 * order inside the record limit, names that are C identifiers.
 * Built and run by `make fuzz-dynevent` (fuzz/fuzz.mk).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <slimtrace/field.h>

#include "dynevent/dynevent.h"

static const char strings[] = "src\0int\0a\0u64\0b\0char[16]\0tag\0"
			      "__data_loc char[]\0s\0__rel_loc char[]\0r";
static const struct slim_field fields[] = {
	{ 4, 8, 8, 4, 1, SLIM_FILTER_AUTO },
	{ 10, 14, 12, 8, 0, SLIM_FILTER_AUTO },
	{ 16, 25, 20, 16, 1, SLIM_FILTER_AUTO },
	{ 29, 47, 36, 4, 1, SLIM_FILTER_AUTO },
	{ 49, 66, 40, 4, 1, SLIM_FILTER_AUTO },
};
static const struct slim_field_table table = { strings, fields, 5, 44 };

static void check_def(const struct slim_dyn_def *def)
{
	unsigned int i, end = 8;

	if (def->kind == '-')
		return;
	if (def->size > 0xffff || def->nr > SLIM_DYN_MAX_FIELDS || !def->name[0])
		abort();
	for (i = 0; i < def->nr; i++) {
		if (def->f[i].offset != end || !def->f[i].name[0])
			abort();
		end += def->f[i].size;
	}
	if (end != def->size)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct slim_dyn_def *def;
	struct slim_dyn_error err;
	char *line;

	if (size > 4096)
		size = 4096;
	line = malloc(size + 1);
	def = malloc(sizeof(*def));
	if (!line || !def)
		abort();
	memcpy(line, data, size);
	line[size] = '\0';
	memset(&err, 0, sizeof(err));
	if (slim_dyn_parse(line, def, &err) == 0) {
		if (def->kind == 'e') {
			if (slim_dyn_resolve_args(def, &table, line, &err) == 0)
				check_def(def);
		} else {
			check_def(def);
		}
	} else if (!err.msg || err.pos > (int)strlen(line)) {
		abort();
	}
	free(def);
	free(line);
	return 0;
}
