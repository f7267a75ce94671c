#!/bin/sh
# make check: run the suite in the plain (gcc), ASan+UBSan (gcc), TSan
# (gcc) and UBSan with -fsanitize=function (clang) builds, and close with
# the totals of all four.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
builds="plain asan tsan clang"
for build in $builds; do
	make --no-print-directory check-$build 2>&1 | tee -a "$log" || status=1
done
passed=0; failed=0
for line in $(grep -E '^\[[a-z]+\] total: ' "$log" | sed -E 's/.*total: ([0-9]+) passed, ([0-9]+) failed/\1:\2/'); do
	passed=$((passed + ${line%%:*})); failed=$((failed + ${line##*:}))
done
# CI keeps only the last lines: name every failing test and its FAIL
# lines again here, so the cause is never cut off above.
if grep -qE '^\[[a-z]+\] [^ ]+: [0-9]+ passed, [1-9][0-9]* failed|^FAIL |crashed or printed no RESULT|hung: killed' "$log"; then
	echo "failures:"
	grep -E '^FAIL |^\[[a-z]+\] [^ ]+: [0-9]+ passed, [1-9][0-9]* failed|crashed or printed no RESULT|hung: killed' "$log" | tail -n 40
fi
# A build that failed to compile prints no total: count it as a failure.
want=$(echo $builds | wc -w)
got=$(grep -cE '^\[[a-z]+\] total: ' "$log")
[ "$got" -eq "$want" ] || failed=$((failed + want - got))
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ $status -eq 0 ]
