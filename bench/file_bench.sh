#!/bin/sh
# Recording to a trace.dat file: the body of `make bench-file`.
#
# Usage: bench/file_bench.sh FILE_BENCH SLIMTRACE_CLI [OUTDIR]
# Environment:
#   FILE_BENCH_SECONDS       seconds per recording run (10; BENCH_QUICK=1: 3)
#   FILE_BENCH_RUNS          paced 4096 KiB and report runs, median printed (3; quick: 1)
#   FILE_BENCH_TARGET_RUNS   paced runs with the defaults `slimtrace record`
#                            uses: the issue's target line (5; quick: 1)
#   FILE_BENCH_FAST_RUNS     unpaced runs per line (1): each writes GBs
#   FILE_BENCH_RATE          paced line, events/s for both threads (10000000)
#   FILE_BENCH_REPORT_EVENTS events in the file the readers read (3000000)
#   BENCH_QUICK              set: short runs, one of each
#
# 1. Two threads fire bench_2int (int a; long b) for SECONDS into a file,
#    unpaced with default and with 4096 KiB buffers, then paced to RATE
#    with the defaults (the target: 0 lost in every run, the consumer's
#    CPU at most 1 s per 10 s) and with 4096 KiB; events written per
#    second and lost are read from the file (`slimtrace stat`), checked
#    against fired = recorded + lost; each run's consumer CPU and longest
#    pass over the buffers come from slim_record_get_stats().
# 2. `slimtrace report` and `trace-cmd report` read the same file.
# 3. Bytes per event of trace.dat, and of LTTng-UST's CTF (bench/lttng/
#    run.sh, "big" channel; its trace_bytes_per_event).
# 4. The report file rewritten (`slimtrace convert`) as version 7 and as
#    version 7 with zstd: bytes per event of each, and zstd's throughput
#    (MB of pages per second of one core: the time of the zstd convert
#    less that of the plain one) beside the sustained recording rate in
#    MB/s of pages.  Target: v7+zstd at or below LTTng's bytes per event.
# Ratios pair numbers from the same run; nothing here judges a time
# except the target line, which says PASS or MISS.

set -u

bin=${1:?usage: file_bench.sh FILE_BENCH SLIMTRACE_CLI [OUTDIR]}
cli=${2:?usage: file_bench.sh FILE_BENCH SLIMTRACE_CLI [OUTDIR]}
out=${3:-build/bench}
here=$(cd "$(dirname "$0")" && pwd)

if [ -n "${BENCH_QUICK:-}" ]; then
	secs=${FILE_BENCH_SECONDS:-3}
	runs=${FILE_BENCH_RUNS:-1}
	target_runs=${FILE_BENCH_TARGET_RUNS:-1}
	fast_runs=${FILE_BENCH_FAST_RUNS:-1}
	rep_events=${FILE_BENCH_REPORT_EVENTS:-1000000}
	lt_events=100000
else
	secs=${FILE_BENCH_SECONDS:-10}
	runs=${FILE_BENCH_RUNS:-3}
	target_runs=${FILE_BENCH_TARGET_RUNS:-5}
	# An unpaced run writes ~7 GB here and takes 3x its time to finish.
	fast_runs=${FILE_BENCH_FAST_RUNS:-1}
	rep_events=${FILE_BENCH_REPORT_EVENTS:-3000000}
	lt_events=200000
fi
rate=${FILE_BENCH_RATE:-10000000}
target=10000000

mkdir -p "$out/file_bench.d" || exit 1
work=$out/file_bench.d
results=$out/file_results.txt
: > "$results"
trap 'rm -f "$work"/*.dat "$work"/*.dat.cpu* "$work"/*.part "$work"/table.txt' EXIT
trap 'exit 130' INT TERM HUP

result() { echo "$*"; echo "$*" >> "$results"; }
# A run that could not be measured, or whose file disagrees with what was
# fired: reported, and the exit status says so.
errors=0
error() { result "file ERROR: $*"; errors=1; }

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 }
	END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2];
	      else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# "recorded lost" from slimtrace stat's events line.
stat_counts() {
	"$cli" stat "$1" 2>&1 | awk '$1 == "events:" { print $2, $4; found = 1 }
		END { if (!found) print "- -" }'
}

# One recording: LABEL then file_bench options.  Appends one value to each
# of the lists rate_L, lost_L, stop_L, bpe_L.
record_run() {
	label=$1; shift
	f=$work/$label.dat
	rm -f "$f"
	line=$("$bin" "$@" "$f") || { error "file_bench $* failed"; return 1; }
	fired=$(echo "$line" | sed -n 's/.*fired=\([0-9]*\).*/\1/p')
	sec=$(echo "$line" | sed -n 's/.* seconds=\([0-9.]*\) .*/\1/p')
	stop=$(echo "$line" | sed -n 's/.*stop_seconds=\([0-9.]*\).*/\1/p')
	ccpu=$(echo "$line" | sed -n 's/.*consumer_cpu_s=\([0-9.]*\).*/\1/p')
	pmax=$(echo "$line" | sed -n 's/.*pass_max_ms=\([0-9.]*\).*/\1/p')
	# shellcheck disable=SC2046 # two words on purpose
	set -- $(stat_counts "$f")
	rec=$1 lost=$2
	size=$(stat -c %s "$f")
	if [ "$rec" = - ] || [ $((rec + lost)) -ne "$fired" ]; then
		error "$label: fired $fired but the file says recorded $rec lost $lost"
	fi
	result "$(awk -v l="$label" -v f="$fired" -v r="$rec" -v lo="$lost" \
		-v s="$sec" -v st="$stop" -v b="$size" -v c="$ccpu" -v p="$pmax" 'BEGIN {
		printf "file run %s fired=%.0f recorded=%.0f lost=%.0f seconds=%s", l, f, r, lo, s
		printf " stop_seconds=%s mev_written_per_s=%.3f mev_fired_per_s=%.3f", st, r / s / 1e6, f / s / 1e6
		printf " lost_pct=%.3f bytes=%.0f bytes_per_event=%.2f", 100 * lo / f, b, b / r
		printf " consumer_cpu_s=%s consumer_cpu_per_10s=%.3f longest_pass_ms=%s\n", c, 10 * c / s, p }')"
	eval "rate_$label=\"\${rate_$label:-} $(awk -v r="$rec" -v s="$sec" 'BEGIN { printf "%.3f", r / s / 1e6 }')\""
	eval "lost_$label=\"\${lost_$label:-} $lost\""
	eval "cpu_$label=\"\${cpu_$label:-} $(awk -v c="$ccpu" -v s="$sec" 'BEGIN { printf "%.3f", 10 * c / s }')\""
	eval "pmax_$label=\"\${pmax_$label:-} $pmax\""
	eval "bpe_$label=\"\${bpe_$label:-} $(awk -v b="$size" -v r="$rec" 'BEGIN { printf "%.2f", b / r }')\""
	rm -f "$f"
}

# --- 1. sustained recording --------------------------------------------------
echo "file: ${secs} s per run, 2 threads, bench_2int; unpaced lines $fast_runs run(s)," \
	"paced $target_runs (defaults) and $runs (4096 KiB)"
i=0
while [ $i -lt "$runs" ] || [ $i -lt "$target_runs" ]; do
	if [ $i -lt "$fast_runs" ]; then
		record_run default -s "$secs"
		record_run big -k 4096 -s "$secs"
	fi
	[ $i -lt "$target_runs" ] && record_run paced -s "$secs" -r "$rate"
	[ $i -lt "$runs" ] && record_run paced4m -k 4096 -s "$secs" -r "$rate"
	i=$((i + 1))
done

# PASS: at least TARGET events/s written, in every run none lost, and
# (CPU given) the consumer's CPU per 10 s at most that in every run.  The
# paced lines' threads fire RATE at most, so they pass at 99 % of it.
# shellcheck disable=SC2154 # r, lo, lmax, lr, b, n, c, cmax, pm are set by eval
summary() {
	label=$1 what=$2 want=$3 cpu_want=${4:-}
	eval "r=\$(echo \${rate_$label:-} | median)"
	eval "lo=\$(echo \${lost_$label:-} | median)"
	eval "lmax=\$(echo \${lost_$label:-} | tr ' ' '\n' | grep . | sort -g | tail -1)"
	eval "b=\$(echo \${bpe_$label:-} | median)"
	eval "lr=\${lost_$label:-}"
	eval "c=\$(echo \${cpu_$label:-} | median)"
	eval "cmax=\$(echo \${cpu_$label:-} | tr ' ' '\n' | grep . | sort -g | tail -1)"
	eval "pm=\$(echo \${pmax_$label:-} | tr ' ' '\n' | grep . | sort -g | tail -1)"
	verdict=$(awk -v r="$r" -v lo="${lmax:--}" -v t="$want" -v c="${cmax:--}" -v cw="$cpu_want" 'BEGIN {
		ok = r != "-" && r * 1e6 >= t && lo == 0
		if (cw != "")
			ok = ok && c != "-" && c <= cw
		print ok ? "PASS" : "MISS" }')
	eval "n=\$(echo \${rate_$label:-} | wc -w)"
	result "file $label $what seconds=$secs runs=$n mev_written_per_s=$r" \
		"lost_median=$lo lost_max=${lmax:--} lost_runs=$(echo "$lr" | tr -s ' ' ',' | sed 's/^,//')" \
		"consumer_cpu_per_10s_median=$c consumer_cpu_per_10s_max=${cmax:--}" \
		"longest_pass_ms=${pm:--} bytes_per_event=$b target=${verdict}"
}
summary default "buffers=default" "$target"
summary big "buffer_size_kb=4096" "$target"
summary paced "buffers=default paced_mev_per_s=$(awk -v r="$rate" 'BEGIN { print r / 1e6 }')" \
	"$(awk -v r="$rate" 'BEGIN { print r * 0.99 }')" 1
summary paced4m "buffer_size_kb=4096 paced_mev_per_s=$(awk -v r="$rate" 'BEGIN { print r / 1e6 }')" \
	"$(awk -v r="$rate" 'BEGIN { print r * 0.99 }')"

# --- 2. report speed ---------------------------------------------------------
rf=$work/report.dat
rm -f "$rf"
# Paced below what the consumer drains, so the file holds them all.
"$bin" -k 4096 -n "$rep_events" -r 4000000 "$rf" >/dev/null ||
	error "cannot write $rf"
# shellcheck disable=SC2046 # two words on purpose
set -- $(stat_counts "$rf")
rep_rec=$1
rep_size=$(stat -c %s "$rf" 2>/dev/null || echo 0)

time_cmd() {
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || { echo fail; return; }
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}

if command -v trace-cmd >/dev/null; then tc=yes; else tc=; fi
slim_t='' tc_t='' i=0
while [ $i -lt "$runs" ]; do
	slim_t="$slim_t $(time_cmd "$cli" report "$rf")"
	[ -n "$tc" ] && tc_t="$tc_t $(time_cmd trace-cmd report -i "$rf")"
	i=$((i + 1))
done
case "$slim_t $tc_t" in *fail*)
	error "a report of $rf failed (times: slimtrace$slim_t trace-cmd$tc_t)";;
esac
st=$(echo "$slim_t" | median)
tt=$(echo "$tc_t" | median)
result "$(awk -v n="$rep_rec" -v b="$rep_size" -v s="$st" -v t="${tt:--}" -v r="$runs" 'BEGIN {
	printf "file report events=%.0f bytes=%.0f runs=%d slimtrace_s=%s slimtrace_mev_per_s=%.3f", n, b, r, s, n / s / 1e6
	if (t == "-" || t == "")
		printf " trace_cmd=SKIP\n"
	else
		printf " trace_cmd_s=%s trace_cmd_mev_per_s=%.3f speed_ratio_slim_over_trace_cmd=%.2f\n", t, n / t / 1e6, t / s }')"
# --- 4 (measured here, printed after 3). version 7, zstd ----------------------
v7f=$work/v7.dat
v7z=$work/v7z.dat
conv_none='' conv_zstd='' i=0
while [ $i -lt "$runs" ]; do
	conv_none="$conv_none $(time_cmd "$cli" convert --file-version 7 --compression none "$rf" "$v7f")"
	conv_zstd="$conv_zstd $(time_cmd "$cli" convert --file-version 7 --compression zstd "$rf" "$v7z")"
	i=$((i + 1))
done
case "$conv_none $conv_zstd" in *fail*) error "slimtrace convert of $rf failed";; esac
v7_size=$(stat -c %s "$v7f" 2>/dev/null || echo 0)
v7z_size=$(stat -c %s "$v7z" 2>/dev/null || echo 0)
# shellcheck disable=SC2046 # two words on purpose
set -- $(stat_counts "$v7z")
[ "$1" = "$rep_rec" ] || error "$v7z holds $1 events, $rf $rep_rec"
tn=$(echo "$conv_none" | median)
tz=$(echo "$conv_zstd" | median)
rm -f "$rf" "$v7f" "$v7z"

# --- 3. bytes per event beside LTTng-UST ---------------------------------------
lt_out=$out/file_bench_lttng
lt=$(LTTNG_BENCH_CHANNELS=big LTTNG_BENCH_EVENTS=$lt_events LTTNG_BENCH_RUNS=1 \
	sh "$here/lttng/run.sh" "$lt_out" 2>&1 |
	awk '$1 == "lttng" && $2 == "2int" && $3 == "1thr" && /chan=big/')
lt_bpe=$(echo "$lt" | sed -n 's/.*trace_bytes_per_event=\([0-9.]*\).*/\1/p')
# shellcheck disable=SC2154 # set by eval
slim_bpe=$(echo "${bpe_paced:-}" | median)
if [ -z "$lt_bpe" ]; then
	result "file size slimtrace_bytes_per_event=$slim_bpe lttng=SKIP (run.sh: ${lt:-no 2int line})"
else
	result "$(awk -v s="$slim_bpe" -v l="$lt_bpe" 'BEGIN {
		printf "file size slimtrace_bytes_per_event=%s lttng_ctf_bytes_per_event=%s", s, l
		printf " ratio_slim_over_lttng=%.2f\n", s / l }')"
fi
# The formats side by side, on the report file's events; zstd's speed
# beside the paced recording's MB/s of pages (v6's bytes an event).
# shellcheck disable=SC2154 # set by eval
paced_r=$(echo "${rate_paced:-}" | median)
result "$(awk -v n="$rep_rec" -v b6="$rep_size" -v b7="$v7_size" -v bz="$v7z_size" \
	-v tn="$tn" -v tz="$tz" -v l="${lt_bpe:-}" -v pr="$paced_r" 'BEGIN {
	z = bz / n
	printf "file formats events=%.0f v6_bytes_per_event=%.2f v7_bytes_per_event=%.2f", n, b6 / n, b7 / n
	printf " v7_zstd_bytes_per_event=%.2f", z
	mb = b6 / 1e6; dt = tz - tn
	if (dt > 0)
		printf " zstd_mb_per_s_per_core=%.0f zstd_ns_per_event=%.1f", mb / dt, dt * 1e9 / n
	else
		printf " zstd_mb_per_s_per_core=-"
	if (pr != "-" && pr != "")
		printf " recording_mb_per_s=%.0f", pr * b6 / n
	if (l == "") {
		printf " lttng_ctf_bytes_per_event=SKIP target=%s (against the 18 measured before)\n", z <= 18 ? "PASS" : "MISS"
	} else
		printf " lttng_ctf_bytes_per_event=%s target=%s\n", l, z <= l ? "PASS" : "MISS" }')"

# --- the table -----------------------------------------------------------
echo
awk -v target="$target" '
function val(k,   i) {
	for (i = 1; i <= NF; i++)
		if (index($i, k "=") == 1) return substr($i, length(k) + 2)
	return "-"
}
$2 == "default" || $2 == "big" || $2 == "paced" || $2 == "paced4m" {
	name = "2 threads, default buffers"
	if ($2 == "big")
		name = "2 threads, 4096 KiB buffers"
	if ($2 == "paced")
		name = "2 threads paced to " val("paced_mev_per_s") " M/s, defaults"
	if ($2 == "paced4m")
		name = "2 threads paced to " val("paced_mev_per_s") " M/s, 4096 KiB"
	printf "%-40s %8s Mev/s written, lost median %s max %s: %s\n", name,
		val("mev_written_per_s"), val("lost_median"), val("lost_max"),
		val("target")
	printf "%-40s lost per run %s; consumer CPU per 10 s median %s max %s s; longest pass %s ms\n", "",
		val("lost_runs"), val("consumer_cpu_per_10s_median"), val("consumer_cpu_per_10s_max"),
		val("longest_pass_ms")
}
$2 == "report" {
	printf "report of %s events: slimtrace %s Mev/s, trace-cmd %s Mev/s, slimtrace %sx as fast\n",
		val("events"), val("slimtrace_mev_per_s"), val("trace_cmd_mev_per_s"),
		val("speed_ratio_slim_over_trace_cmd")
}
$2 == "formats" {
	printf "bytes/event on disk: v6 %s, v7 %s, v7+zstd %s, LTTng CTF %s: v7+zstd %s\n",
		val("v6_bytes_per_event"), val("v7_bytes_per_event"), val("v7_zstd_bytes_per_event"),
		val("lttng_ctf_bytes_per_event"), val("target")
	printf "zstd: %s MB/s of pages per core (%s ns/event), recording writes %s MB/s of pages\n",
		val("zstd_mb_per_s_per_core"), val("zstd_ns_per_event"), val("recording_mb_per_s")
}
$2 == "size" {
	printf "bytes/event: trace.dat %s, LTTng CTF %s, ratio %s\n",
		val("slimtrace_bytes_per_event"), val("lttng_ctf_bytes_per_event"),
		val("ratio_slim_over_lttng")
}
END {
	printf "target: >= %d M events/s written for the whole run, 0 lost (PASS/MISS above);\n", target / 1e6
	printf "        paced with the defaults: also the consumer CPU <= 1 s per 10 s in every run\n"
}' "$results" > "$work/table.txt"
cat "$work/table.txt"
cat "$work/table.txt" >> "$results"
exit $errors
