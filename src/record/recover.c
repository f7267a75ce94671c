// SPDX-License-Identifier: MIT
/*
 * After a recording process died without finishing (SIGKILL, power
 * loss): PATH holds the header written while recording, PATH.cpuN the
 * pages drained before the end.  The sink that wrote PATH (its version
 * says which) puts them together.
 */
#include <errno.h>
#include <stdio.h>
#include <slimtrace/record.h>
#include "record/rec.h"

SLIM_EXPORT int slim_record_recover(const char *path)
{
	struct rec_sink sink;
	int version, ret;

	if (!path || !*path)
		return -EINVAL;
	version = rec_sink_file_version(path);
	if (version == -EINVAL)
		fprintf(stderr, "slimtrace: recover %s: not a trace.dat header this host "
			"wrote while recording (at byte 0)\n", path);
	if (version < 0)
		return version;
	ret = rec_sink_open(&sink, version, path);
	if (!ret)
		ret = sink.ops->recover(&sink);
	rec_sink_close(&sink);
	return ret;
}
