#!/bin/sh
# What a trigger that never fires adds to an event, in instructions
# (callgrind, which the guest's noise does not move): the same N events
# with and without "traceoff if a == -1", the difference over N.
# Usage: bench/trigger_ir.sh build/bench/trigger_bench
bin=$1
n=200000
command -v valgrind >/dev/null 2>&1 || {
	echo "trigger: valgrind not installed: no instruction counts"; exit 0; }
tmp=$(mktemp -d) || exit 1
ir() {
	valgrind --tool=callgrind --callgrind-out-file="$tmp/$1.out" "$bin" "$1" $n \
		>/dev/null 2>"$tmp/$1.err" || { cat "$tmp/$1.err" >&2; return 1; }
	sed -n 's/^summary: //p' "$tmp/$1.out"
}
plain=$(ir plain) && trig=$(ir trigger) || { rm -rf "$tmp"; exit 1; }
rm -rf "$tmp"
awk -v p="$plain" -v t="$trig" -v n=$n 'BEGIN {
	printf "trigger: instructions per event, enabled event %.1f, with the trigger %.1f (+%.1f)\n",
		p / n, t / n, (t - p) / n }'
