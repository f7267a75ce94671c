#!/bin/sh
# make check: run the suite in the plain, ASan+UBSan and TSan builds and
# close with the totals of all three.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
for build in plain asan tsan; do
	make --no-print-directory check-$build 2>&1 | tee -a "$log" || status=1
done
passed=0; failed=0
for line in $(grep -E '^\[[a-z]+\] total: ' "$log" | sed -E 's/.*total: ([0-9]+) passed, ([0-9]+) failed/\1:\2/'); do
	passed=$((passed + ${line%%:*})); failed=$((failed + ${line##*:}))
done
# A build that failed to compile prints no total: count it as a failure.
builds=$(grep -cE '^\[[a-z]+\] total: ' "$log")
[ "$builds" -eq 3 ] || failed=$((failed + 3 - builds))
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ $status -eq 0 ]
