#!/bin/sh
# Regenerate field-names.txt: every field name of every event of the
# running kernel's tracefs, one a line, sorted.  test_headers checks that
# the public headers define none of them as a macro (a kernel trace header
# may use any of them).  Needs tracefs (root).
set -eu
T=/sys/kernel/tracing
HERE=$(cd "$(dirname "$0")" && pwd)
[ -e "$T/events" ] || mount -t tracefs nodev "$T"
grep -h '^	field:' "$T"/events/*/*/format |
	sed -E 's/^\tfield:([^;]*);.*/\1/; s/\[[^]]*\]$//; s/.*[ *]//' |
	LC_ALL=C sort -u > "$HERE/field-names.txt"
ls "$T"/events/*/*/format | wc -l > "$HERE/field-names.count"
