#!/bin/sh
# Run test binaries, add up their RESULT lines, print "N passed, N failed".
# A binary that crashes, hangs (killed after SLIM_TEST_TIMEOUT seconds,
# default 600) or prints no RESULT line counts as one failure.
# Usage: tests/run.sh LABEL BINARY...
label=$1; shift
passed=0; failed=0
for t in "$@"; do
	name=$(basename "$t")
	# Under TSan every process with events has the control endpoint's
	# thread, so a fork child that starts a thread (a recording's consumer)
	# is killed by TSan ("threads after multi-threaded fork").  Only the
	# endpoint's own tests, and the mount's, keep it there (docs/live.md).
	control=
	case "$label:$name" in
	tsan:test_live*|tsan:test_mount) ;;
	tsan:*) control=0 ;;
	esac
	out=$(cd "$(dirname "$t")" && SLIM_TEST_BUILD="$label" env \
		${control:+SLIMTRACE_CONTROL=$control} \
		timeout -k 10 "${SLIM_TEST_TIMEOUT:-600}" "./$name" 2>&1 </dev/null)
	rc=$?
	res=$(printf '%s\n' "$out" | grep '^RESULT ' | tail -n 1)
	if [ -z "$res" ]; then
		printf '%s\n' "$out" | tail -n 20
		[ $rc -eq 124 ] && echo "[$label] $name: hung: killed after ${SLIM_TEST_TIMEOUT:-600} s"
		echo "[$label] $name: crashed or printed no RESULT (exit $rc)"
		failed=$((failed + 1))
		continue
	fi
	p=$(echo "$res" | cut -d' ' -f3); f=$(echo "$res" | cut -d' ' -f4)
	if [ "$f" -ne 0 ] || [ $rc -ne 0 ]; then
		printf '%s\n' "$out" | grep -v '^RESULT ' | tail -n 40
		[ "$f" -eq 0 ] && f=1
	fi
	echo "[$label] $name: $p passed, $f failed"
	passed=$((passed + p)); failed=$((failed + f))
done
echo "[$label] total: $passed passed, $failed failed"
