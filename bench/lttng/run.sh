#!/bin/sh
# LTTng-UST 2.13 recording cost per event: the peer side of `make bench`.
#
# Usage: bench/lttng/run.sh [OUTDIR]          (default: build/lttng)
# Environment:
#   LTTNG_BENCH_EVENTS    events per thread per run        (2000000)
#   LTTNG_BENCH_RUNS      runs per measurement; median     (5)
#   LTTNG_BENCH_CHANNELS  channel set, from: default big pid snapshot
#                         ("default big pid snapshot")
#   CC                    compiler for the benchmark program (cc)
#
# Starts its own lttng-sessiond (user space only, LTTNG_HOME under OUTDIR),
# one session per measurement, and stops the daemon it started on any exit.
# Lines starting with "lttng " are the machine-readable results; the table
# after them repeats them for people.  Exits 0 with a "SKIP" line when
# LTTng-UST or lttng-tools is missing, or another session daemon is reachable
# (its sessions could enable or steal our events).

set -u

src=$(cd "$(dirname "$0")" && pwd)
out=${1:-build/lttng}
events=${LTTNG_BENCH_EVENTS:-2000000}
runs=${LTTNG_BENCH_RUNS:-5}
channels=${LTTNG_BENCH_CHANNELS:-default big pid snapshot}
cc=${CC:-cc}

mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
bin=$out/lt_bench
results=$out/results.txt
sess=slimbench$$
sd_pid=
sd_kids=
: > "$results"

# Private home: traces, config and (non-root) sockets stay under OUTDIR.
# As root the daemon's sockets live in /var/run/lttng whatever we do, hence
# the check for a foreign daemon below.
LTTNG_HOME=$out/home
export LTTNG_HOME
mkdir -p "$LTTNG_HOME"

say() { echo "$*"; }
result() { echo "$*"; echo "$*" >> "$results"; }

stop_daemon() {
	[ -n "$sd_pid" ] || return 0
	lttng -n destroy "$sess" </dev/null >/dev/null 2>&1
	# Children (run-as helper, consumer daemons) and theirs, by id.
	sd_kids=$(ps -o pid= --ppid "$sd_pid" 2>/dev/null)
	for p in $sd_kids; do
		sd_kids="$sd_kids $(ps -o pid= --ppid "$p" 2>/dev/null)"
	done
	kill -TERM "$sd_pid" 2>/dev/null
	i=0
	while kill -0 "$sd_pid" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.2; i=$((i + 1))
	done
	kill -0 "$sd_pid" 2>/dev/null && kill -KILL "$sd_pid" 2>/dev/null
	wait "$sd_pid" 2>/dev/null
	# The daemon takes its consumer daemons down with it; make sure.
	sleep 0.2
	for p in $sd_kids; do
		kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null
	done
	sd_pid=
	rm -rf "$out/traces"
}
trap stop_daemon EXIT
trap 'exit 130' INT TERM HUP

# --- build -----------------------------------------------------------------
ust_flags=$(pkg-config --cflags --libs lttng-ust 2>/dev/null || echo -llttng-ust)
# shellcheck disable=SC2086 # $cc and $ust_flags are word lists
if ! $cc -std=gnu11 -O2 -g -Wall -Wextra -I"$src" -o "$bin" \
	"$src/lt_bench.c" "$src/lt_bench_tp.c" $ust_flags -ldl -lpthread \
	</dev/null >"$out/build.log" 2>&1; then
	head -20 "$out/build.log"
	say "lttng SKIP: cannot build against LTTng-UST (apt install liblttng-ust-dev)"
	exit 0
fi

# --- no session: clock costs, empty loop, disabled tracepoint ----------------
baseline() {
	LTTNG_UST_REGISTER_TIMEOUT=0 timeout 60 "$bin" "$@" </dev/null
}
result "$(baseline clock "$events" "$runs")"
result "$(baseline empty $((events * 10)) "$runs")"
result "$(baseline disabled $((events * 10)) "$runs")"

# --- session daemon ------------------------------------------------------
start_daemon() {
	if ! command -v lttng >/dev/null || ! command -v lttng-sessiond >/dev/null; then
		say "lttng SKIP recording: lttng-tools not installed (apt install lttng-tools)"
		return 1
	fi
	if lttng -n list </dev/null >/dev/null 2>&1; then
		say "lttng SKIP recording: a session daemon is already running" \
			"(uid $(id -u)); not sharing it"
		return 1
	fi
	lttng-sessiond --no-kernel --quiet </dev/null >"$out/sessiond.log" 2>&1 &
	sd_pid=$!
	i=0
	while ! lttng -n list </dev/null >/dev/null 2>&1; do
		i=$((i + 1))
		if ! kill -0 "$sd_pid" 2>/dev/null || [ $i -gt 50 ]; then
			tail -5 "$out/sessiond.log"
			say "lttng SKIP recording: lttng-sessiond did not come up"
			return 1
		fi
		sleep 0.2
	done
	return 0
}

# Channel sets, all discard mode written to disk except the last:
#   default   LTTng's defaults: per-user buffers, 4 x 512 KiB per CPU
#   big       per-user, 8 x 2 MiB per CPU: how loss depends on size
#   pid       per-process buffers, default sizes: the set-up that loses
#             events with two producers on this 2-CPU machine
#   snapshot  flight recorder (overwrite mode, nothing read while
#             recording): the cost of recording alone
session_setup() {
	case $1 in
	snapshot) mode=--snapshot; chopts= ;;
	big) mode=; chopts="--subbuf-size=2M --num-subbuf=8" ;;
	pid) mode=; chopts=--buffers-pid ;;
	default) mode=; chopts= ;;
	*) echo "unknown channel set '$1' in LTTNG_BENCH_CHANNELS"; return 1 ;;
	esac
	# shellcheck disable=SC2086 # $mode and $chopts are option lists
	lttng -n create "$sess" $mode --output="$out/traces/$sess" &&
	lttng -n enable-channel -u -s "$sess" $chopts ch &&
	lttng -n enable-event -u -s "$sess" -c ch "slimbench:$2" &&
	lttng -n start "$sess"
}

# One measurement: session, program, stop, statistics, destroy.
measure() {
	chan=$1 ev=$2 thr=$3
	tp=$ev; [ "$ev" = 2int ] && tp=two_int
	if ! session_setup "$chan" "$tp" </dev/null >"$out/lttng.log" 2>&1; then
		cat "$out/lttng.log"
		say "lttng ERROR: cannot set up session for $ev/$chan"
		lttng -n destroy "$sess" </dev/null >/dev/null 2>&1
		return 1
	fi
	line=$(LTTNG_UST_REGISTER_TIMEOUT=10000 timeout 120 \
		"$bin" "$ev" "$events" "$runs" "$thr" </dev/null)
	rc=$?
	lttng -n stop "$sess" </dev/null >/dev/null 2>&1
	lttng -n list "$sess" </dev/null >"$out/list.log" 2>&1
	lttng -n destroy "$sess" </dev/null >/dev/null 2>&1
	# What lttng reports, and what the trace's packet index says; the
	# second is authoritative (the first reads 0 once a per-process buffer
	# is gone, and has been seen to read garbage).
	reported=$(awk '/Discarded events:/ { n += $3 } END { print n + 0 }' "$out/list.log")
	subbuf=$(awk '/Sub-buffer size:/ { s = $3 } /Sub-buffer count:/ { c = $3 }
		END { printf "%sx%s", s, c }' "$out/list.log")
	if [ "$chan" = snapshot ]; then
		idx="lost=na content_bytes=0"
	elif ! idx=$(python3 "$src/ctf_lost.py" "$out/traces/$sess" 2>&1); then
		echo "$idx"
		idx="lost=$reported content_bytes=0"
	fi
	rm -rf "$out/traces/$sess"
	if [ $rc -ne 0 ] || [ -z "$line" ]; then
		say "lttng ERROR: $ev $thr thread(s) on $chan channel failed (exit $rc)"
		return 1
	fi
	result "$(echo "$line $idx" | awk -v chan="$chan" -v rep="$reported" -v sb="$subbuf" '
	function val(k,   i) {
		for (i = 1; i <= NF; i++)
			if (index($i, k "=") == 1) return substr($i, length(k) + 2)
		return ""
	}
	{
		fired = val("fired"); lost = val("lost"); bytes = val("content_bytes")
		printf "%s %s %s chan=%s subbuf=%s", $1, $2, $3, chan, sb
		for (i = 4; i <= NF; i++)
			if ($i !~ /^(lost|packets|content_bytes|streams)=/) printf " %s", $i
		if (lost == "na") {
			printf " lost=na lost_pct=na\n"
			next
		}
		# Counts print with %.0f: mawk'"'"'s %d stops at 2^31.
		printf " lost=%.0f lost_pct=%.2f lost_reported=%.0f", lost, 100 * lost / fired, rep
		if (fired - lost > 0 && bytes > 0)
			printf " trace_bytes_per_event=%.1f", bytes / (fired - lost)
		printf "\n"
	}')"
}

if start_daemon; then
	for chan in $channels; do
		for ev in 2int str16; do
			for thr in 1 2; do
				measure "$chan" "$ev" "$thr"
			done
		done
	done
fi
stop_daemon

# --- the table -----------------------------------------------------------
echo
awk '
function val(k,   i) {
	for (i = 1; i <= NF; i++)
		if (index($i, k "=") == 1) return substr($i, length(k) + 2)
	return "-"
}
$2 == "clock" { clk = val("clock_gettime_ns"); tsc = val("rdtsc_ns"); next }
{
	rows[++n] = sprintf("%-9s %-4s %-9s %9s %9s %9s %10s %8s",
		$2, $3, (val("chan") == "-" ? "none" : val("chan")),
		val("ns_per_event"),
		(val("chan") == "-" ? "-" : sprintf("%.1f", val("ns_per_event") - clk)),
		val("mev_per_s"), val("lost"), val("lost_pct"))
}
END {
	printf "LTTng-UST 2.13: clock_gettime(CLOCK_MONOTONIC) %s ns, rdtsc %s ns (medians)\n", clk, tsc
	printf "ns/event: per thread, median of runs; net: minus one clock_gettime;"
	printf " Mev/s: all threads together\n"
	printf "%-9s %-4s %-9s %9s %9s %9s %10s %8s\n", "event", "thr", "channel",
		"ns/event", "net", "Mev/s", "lost", "lost%"
	for (i = 1; i <= n; i++) print rows[i]
}' "$results"
