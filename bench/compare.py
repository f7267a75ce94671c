#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make bench: slimtrace's recording costs beside LTTng-UST's, one run.

    compare.py --bin build/bench/record_bench [--out build/bench] [--quick]
    compare.py --bin ... --profile        instructions per event only

Runs bench/record_bench (one process per trace clock: a buffer's stamps
must not go back), then bench/lttng/run.sh, then valgrind's callgrind if
installed, and prints medians, ratios against peers measured in the same
run, and a PASS/MISS table against the targets of docs/benchmarks.md.
Nothing fails on a time: the exit status is non-zero only when a
benchmark could not run or an event went missing.  The report is also
written to OUT/results.txt, followed by every raw line.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CLOCKS = ["mono_tsc", "mono_gettime", "mono_raw", "tsc"]
# The clock of the record path's targets: mono on the cycle counter, or,
# where the library does not trust the counter for mono (the kernel's
# clocksource is not the TSC: kvm-clock on some guests), the raw counter,
# whose record path is the same.  Set by main() from record_bench itself.
CTR = "mono_tsc"
TRACE_CLOCK = {"mono_tsc": "mono", "tsc": "tsc"}


def counter_clock(binpath):
    """mono_tsc if record_bench can record with it here, else tsc."""
    try:
        p = subprocess.run([binpath, "-c", "mono_tsc", "profile", "floor", "1"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           stdin=subprocess.DEVNULL, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return "mono_tsc"
    m = re.search(r"clock=(\S+)", p.stdout)
    return "mono_tsc" if not m or m.group(1) == "mono_tsc" else "tsc"
CLOCK_COST = {  # what each trace clock reads per event
    "mono_tsc": "slim_clock_now:mono_tsc",
    "mono_gettime": "slim_clock_now:mono_gettime",
    "mono_raw": "slim_clock_now:mono_raw",
    "tsc": "slim_clock_now:tsc",
}
TARGETS = {
    "disabled": 1.05,       # disabled / empty loop, at most
    "scaling": 1.8,         # 2-thread / 1-thread throughput, at least
    "net": 3.0,             # 2int ns minus its clock read, at most
    "lttng_gettime": 3.5,   # LTTng / slimtrace, same clock, at least
    "lttng_counter": 6.0,   # LTTng / slimtrace on the cycle counter
    "pred1": 3.0,           # ns a one-predicate filter adds, at most
    "pred5": 10.0,          # ns five predicates add, at most
    "reject": 1.05,         # rejecting / passing filter, at most (noise)
    "floor": 1.3,           # 2int recorded / the floor loop, at most
    "instr": 70,            # instructions per recorded 2int, at most
    "instr_pred1": 35,      # instructions a one-predicate filter adds
}

out_lines = []  # the report, for results.txt
raw_lines = []  # every machine-readable line


def say(text=""):
    print(text, flush=True)
    out_lines.append(text)


def fields(line):
    """key=value pairs of a result line; quoted values may hold blanks."""
    return {k: v.strip('"') for k, v in re.findall(r'(\w[\w:]*)=("[^"]*"|\S+)', line)}


def runs(f, key):
    return [float(x) for x in f[key + "_runs"].split(",")]


def med(v):
    return statistics.median(v)


def paired(a, b, op):
    """Median over rounds of op(a[i], b[i]): each value beside its peer."""
    return med([op(x, y) for x, y in zip(a, b)])


def run(cmd, timeout, env=None):
    """Run a benchmark; its result lines, or None (and why) on failure."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, text=True, timeout=timeout,
                           env=env)
    except subprocess.TimeoutExpired:
        return None, "timed out after %d s" % timeout
    except OSError as e:
        return None, str(e)
    raw_lines.extend(p.stdout.splitlines())
    if p.returncode != 0:
        return None, "exit %d: %s" % (p.returncode, p.stderr.strip()[-400:])
    return p.stdout.splitlines(), None


class Busy:
    """CPU time the rest of the machine used while we measured."""

    def __init__(self):
        self.t0 = time.monotonic()
        self.busy0 = self._busy()
        self.self0 = self._ours()

    @staticmethod
    def _busy():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        tick = os.sysconf("SC_CLK_TCK")
        # user nice system irq softirq steal (not idle, iowait)
        return (v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)) / tick

    @staticmethod
    def _ours():
        t = os.times()
        return t.children_user + t.children_system + t.user + t.system

    def others(self):
        wall = time.monotonic() - self.t0
        busy = self._busy() - self.busy0
        ours = self._ours() - self.self0
        return max(0.0, (busy - ours) / wall) if wall > 0 else 0.0


# ---- running the benchmarks ------------------------------------------------

def merge(old, new):
    """One measurement's lines from several passes: runs joined, counts added."""
    if old is None:
        return new
    for k, v in new.items():
        if k.endswith("_runs"):
            old[k] = old[k] + "," + v
        elif k in ("fired", "written", "lost"):
            old[k] = str(int(old[k]) + int(v))
    return old


def slim_new():
    return {"clock": {}, "record": {}, "filter": {}, "sessions": {}, "skip": set(),
            "raw_clock": {}}


def slim_pass(res, args, cmds):
    """Run record_bench once per command line, adding to res."""
    for cmd in cmds:
        lines, err = run([args.bin] + cmd, 600)
        if lines is None:
            say("slimtrace ERROR: record_bench %s: %s" % (" ".join(cmd), err))
            res["error"] = True
            continue
        for line in lines:
            if line.startswith("slim "):
                slim_line(res, line)
    res["clock"] = {k: med(runs(f, "ns")) for k, f in res["raw_clock"].items()}


def slim_line(res, line):
    f = fields(line)
    kind = line.split()[1]
    if "SKIP" in line:
        res["skip"].add(line)
    elif kind == "clock":
        res["raw_clock"][f["name"]] = merge(res["raw_clock"].get(f["name"]), f)
    elif kind == "loop":
        res["loop"] = merge(res.get("loop"), f)
    elif kind == "parallel":
        res.setdefault("parallel", {})
        res["parallel"][f["name"]] = merge(res["parallel"].get(f["name"]), f)
    elif kind == "record":
        k = (f["ev"], int(f["thr"]), f["clock"])
        res["record"][k] = merge(res["record"].get(k), f)
    elif kind == "filter":
        res["filter"][f["kind"]] = merge(res["filter"].get(f["kind"]), f)
    elif kind == "sessions":
        res["sessions"][f["kind"]] = merge(res["sessions"].get(f["kind"]), f)
    elif kind == "memory":
        res["memory"] = f
    elif kind == "floor":
        res["floor"] = merge(res.get("floor"), f)


def slim_cmds(events, nruns):
    """One pass: the clock reads and loops, then one process per clock."""
    base = ["-e", str(events), "-r", str(nruns)]
    cmds = [base + ["clock", "loop"]]
    for c in CLOCKS:
        cmds.append(["-c", c] + base + ["record"] +
                    (["filter", "sessions", "floor"] if c == CTR else []))
    return cmds


def lttng_new():
    return {"clock": None, "rec": {}, "skip": [], "empty_l": [], "disabled_l": []}


def lttng_run(res, args, events, nruns, channel):
    env = dict(os.environ, LTTNG_BENCH_EVENTS=str(events),
               LTTNG_BENCH_RUNS=str(nruns), LTTNG_BENCH_CHANNELS=channel)
    lines, err = run(["sh", os.path.join(HERE, "lttng", "run.sh"),
                      os.path.join(args.out, "lttng")], 900, env)
    if lines is None:
        res["skip"].append("lttng run.sh failed: " + err)
        return
    for line in lines:
        if not line.startswith("lttng "):
            continue
        w = line.split()
        f = fields(line)
        if "SKIP" in line or "ERROR" in line:
            if line not in res["skip"]:
                res["skip"].append(line)
        elif w[1] == "clock":
            res["clock"] = f
        elif w[1] in ("empty", "disabled"):
            res[w[1] + "_l"].append(float(f["ns_per_event"]))
            res[w[1]] = med(res[w[1] + "_l"])
        elif "chan" in f:
            res["rec"][(w[1], int(w[2].rstrip("thr")), f["chan"])] = f


# ---- callgrind: instructions per event, by part ------------------------------

PARTS = [  # (part, test on "file:function"), first match wins
    ("call site + loop", lambda s: ":fire_" in s),
    ("fast path: reserve (static/record.h)", lambda s: ":__slim_record_fast" in s),
    ("fast path: commit (static/record.h)", lambda s: ":__slim_record_commit" in s),
    ("fast path inline in the probe (static/record.h)", lambda s: "static/record.h:" in s),
    ("RCU read lock/unlock", lambda s: "/rcu.h:" in s),
    ("probe iteration", lambda s: ":__slim_iter_" in s),
    ("clock read", lambda s: "/clock.h:" in s),
    ("filter: match", lambda s: "filter.c:" in s),
    ("filter: commit, inline test (emit.c)",
     lambda s: ":slim_record_commit_filtered" in s or ":commit_fast_filtered" in s),
    ("filter: inline (filter.h)", lambda s: "filter/filter.h:" in s),
    ("filter: sched_getcpu", lambda s: "sched_getcpu" in s),
    ("filter: set-up", lambda s: ":filter_rejects" in s),
    ("ring buffer reserve", lambda s: "ring_buffer.h:slim_event_reserve" in s or
     "ring_buffer.h:reserve" in s),
    ("ring buffer commit/discard", lambda s: "ring_buffer.h:slim_event_commit" in s or
     "ring_buffer.h:slim_rb_commit" in s or "ring_buffer.h:commit" in s),
    ("thread's buffer (slot table)", lambda s: "buffers/buffer.h:" in s),
    ("reserve: targets, header", lambda s: "buffer.c:slim_event_reserve" in s or
     "emit.c:slim_event_reserve" in s or "emit.c:reserve" in s),
    ("commit (+ next target)", lambda s: "buffer.c:slim_event_commit" in s or
     "emit.c:slim_event_commit" in s or "emit.c:commit" in s),
    ("class probe (fields)", lambda s: ":__slim_probe_" in s),
    ("libc strlen/memcpy", lambda s: "strlen" in s or "memcpy" in s or "memmove" in s),
]


def callgrind(args, what, n):
    fn = {"str": "fire_str", "floor": "fire_floor"}.get(what, "fire_2int")
    outf = os.path.join(args.out, "callgrind.%s.out" % what)
    # record_bench takes -c; record_profile (public API only) the trace clock.
    if os.path.basename(args.bin).startswith("record_profile"):
        cmd = [args.bin, "profile", what, str(n), TRACE_CLOCK[CTR]]
    else:
        cmd = [args.bin, "-c", CTR, "profile", what, str(n)]
    try:
        p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + outf,
                            "--toggle-collect=" + fn] + cmd,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, text=True, timeout=300)
        a = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100",
                            "--auto=no", outf], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    if p.returncode != 0 or a.returncode != 0:
        return None, p.stderr.strip()[-300:]
    parts, total = {}, 0
    for line in a.stdout.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(\S.*)$", line)
        if not m or "PROGRAM TOTALS" in line:
            continue
        ir = int(m.group(1).replace(",", ""))
        name = m.group(2).split(" [")[0]
        part = next((p for p, test in PARTS if test(name)), "other: " + name)
        parts[part] = parts.get(part, 0) + ir
        total += ir
    events = n + 10  # the profile fires 10 first, to claim the buffer
    return {k: v / events for k, v in parts.items()}, total / events


# ---- the report --------------------------------------------------------------

class Summary:
    """Targets: judged on medians; the best run beside, for a quiet machine."""

    def __init__(self):
        self.rows = []

    def add(self, name, goal, sign, limit, median, best, unit):
        if median is None:
            self.rows.append((name, goal, "-", "-", "SKIP"))
            return
        ok = median <= limit if sign == "<=" else median >= limit
        fmt = "%.2f ns" if unit == "ns" else "%.2fx"
        self.rows.append((name, "%s %s" % (sign, goal), fmt % median,
                          fmt % best if best is not None else "-",
                          "PASS" if ok else "MISS"))

    def add_text(self, name, goal, got, verdict):
        self.rows.append((name, goal, got, "", verdict))

    def print(self):
        say("== Summary (PASS/MISS on the median; best: the best runs) ==")
        say("  %-46s %-9s %-16s %-10s %s" % ("target", "goal", "median", "best", ""))
        for r in self.rows:
            say("  %-46s %-9s %-16s %-10s %s" % r)


def clock_runs(s, clock):
    f = s["raw_clock"].get(CLOCK_COST[clock])
    return runs(f, "ns") if f else None


def report_clocks(s):
    say("== Clock reads (ns per call; median, best) ==")
    for name, f in s["raw_clock"].items():
        v = runs(f, "ns")
        say("  %-32s %7.2f %7.2f" % (name, med(v), min(v)))
    par = s.get("parallel", {})
    if par:
        say("  the machine itself: 2 threads at once / 1 thread alone, throughput:")
        for name, f in par.items():
            sc = paired(runs(f, "ns1"), runs(f, "ns2"), lambda x, y: 2 * x / y)
            say("    %-20s %.2fx  (%.2f ns alone, %.2f ns per thread with 2)"
                % (name, sc, med(runs(f, "ns1")), med(runs(f, "ns2"))))
        f = par.get("integer_work")
        if f:
            v = runs(f, "ns1")
            say("  host speed: integer work took %.2f-%.2f ns (median %.2f) across"
                " the run" % (min(v), max(v), med(v)))
    say()


def report_loop(s, lt, summ):
    say("== 1. Disabled tracepoint vs empty loop ==")
    f = s.get("loop")
    if not f:
        say("  (no result)")
        summ.add("disabled / empty loop", "1.05x", "<=", 1.05, None, None, "x")
        return
    e, d = runs(f, "empty"), runs(f, "disabled")
    ratio = paired(d, e, lambda x, y: x / y)
    say("  %s iterations, median of %d runs; ratio: median of the rounds' ratios"
        % (f["iters"], len(e)))
    say("  empty loop        %6.3f ns/iter (best %.3f)" % (med(e), min(e)))
    say("  disabled 2int     %6.3f ns/iter (best %.3f), +%.3f ns"
        % (med(d), min(d), med(d) - med(e)))
    say("  ratio             %6.3f" % ratio)
    if "disabled" in lt and "empty" in lt:
        say("  (LTTng-UST, same make bench: empty %.2f, disabled %.2f ns/iter, %.2fx;"
            % (lt["empty"], lt["disabled"], lt["disabled"] / lt["empty"]))
        say("   its empty loop keeps i in a register, hence not the same baseline)")
    summ.add("disabled / empty loop", "%.2fx" % TARGETS["disabled"], "<=",
             TARGETS["disabled"], ratio, min(d) / min(e), "x")
    say()


def rec_sort(item):
    (ev, thr, clock), _ = item
    return CLOCKS.index(clock), ev != "2int", thr


def report_record(s, summ):
    say("== 2. Recorded events (own buffer per thread; ns/event per thread,"
        " Mev/s all threads) ==")
    rec = s["record"]
    say("  %-6s %-3s %-13s %8s %8s %8s %8s %10s %6s" % (
        "event", "thr", "clock", "ns/ev", "best", "clock", "net", "Mev/s", "lost"))
    lost, fired = 0, 0
    for (ev, thr, clock), f in sorted(rec.items(), key=rec_sort):
        ns = runs(f, "ns")
        ck = clock_runs(s, clock)
        lost += int(f["lost"])
        fired += int(f["fired"])
        say("  %-6s %-3d %-13s %8.2f %8.2f %8s %8s %10.2f %6s" % (
            ev, thr, clock, med(ns), min(ns),
            "%.2f" % med(ck) if ck else "-",
            "%.2f" % (med(ns) - med(ck)) if ck else "-",
            med(runs(f, "mev")), f["lost"]))
    if rec:
        f = next(iter(rec.values()))
        say("  %s events per thread per run, %d runs; buffer_size_kb=%s per thread,"
            " drop mode, sized to hold a run" % (f["events"], len(runs(f, "ns")),
                                                 f["buffer_size_kb"]))
        say("  net = ns/event - slim_clock_now() of that clock, each timed alone")
    say()
    say("  2-thread throughput / 1-thread (median of the rounds' ratios):")
    for clock in CLOCKS:
        for ev in ("2int", "str16"):
            one, two = rec.get((ev, 1, clock)), rec.get((ev, 2, clock))
            if not one or not two:
                continue
            r = [x / y for x, y in zip(runs(two, "mev"), runs(one, "mev"))]
            say("    %-6s %-13s %.2fx" % (ev, clock, med(r)))
            if clock == CTR:
                summ.add("2 threads / 1 thread, %s %s" % (ev, clock), "1.8x", ">=",
                         TARGETS["scaling"], med(r), max(r), "x")
    summ.add_text("events lost, all recording runs", "0", "%d of %d" % (lost, fired),
                  "PASS" if lost == 0 and fired > 0 else "MISS")
    for clock in (CTR, "mono_gettime"):
        f, ck = rec.get(("2int", 1, clock)), clock_runs(s, clock)
        if f and ck:
            ns = runs(f, "ns")
            summ.add("2int recording minus clock read (%s)" % clock, "3 ns", "<=",
                     TARGETS["net"], med(ns) - med(ck), min(ns) - min(ck), "ns")
    fl, f = s.get("floor"), rec.get(("2int", 1, CTR))
    if fl and f:
        v, b = runs(f, "ns"), runs(fl, "ns")
        say("  the floor loop (rdtsc + three stores into a page): %.2f ns/event (best %.2f);"
            " 2int %s / floor: %.2fx" % (med(b), min(b), CTR, med(v) / med(b)))
        summ.add("2int recorded / floor loop (%s)" % CTR, "%.1fx" % TARGETS["floor"], "<=",
                 TARGETS["floor"], med(v) / med(b), min(v) / min(b), "x")
    say()


def report_lttng(s, lt, summ):
    say("== 3. Versus LTTng-UST 2.13 (same make bench run) ==")
    for line in lt["skip"]:
        say("  " + line)
    names = (("mono_gettime", "LTTng / slimtrace, clock_gettime", "lttng_gettime"),
             (CTR, "LTTng / slimtrace, cycle counter", "lttng_counter"))
    if not lt["rec"]:
        say("  SKIP: no LTTng-UST recording results; slimtrace's numbers above stand alone")
        for _, name, _ in names:
            summ.add_text(name + " (2int, 1 thr)", "-", "SKIP", "SKIP")
        say()
        return
    if lt["clock"]:
        say("  LTTng's process: clock_gettime %s ns, rdtsc %s ns"
            % (lt["clock"].get("clock_gettime_ns"), lt["clock"].get("rdtsc_ns")))
    rec = s["record"]
    say("  %-6s %-3s %-9s %9s %9s %7s | %-21s %-21s" % (
        "event", "thr", "channel", "LTTng ns", "best", "lost%",
        "/ slim mono_gettime", "/ slim " + CTR))
    fastest = {}
    for (ev, thr, chan), f in sorted(lt["rec"].items()):
        lns = float(f["ns_per_event"])
        lmin = float(f.get("ns_per_event_min", lns))
        cells = []
        for clock, _, _ in names:
            sf = rec.get((ev, thr, clock))
            if not sf:
                cells.append("-")
                continue
            sns = med(runs(sf, "ns"))
            cells.append("%6.2f ns -> %5.2fx" % (sns, lns / sns))
            k = (ev, thr, clock)
            if k not in fastest or lns < fastest[k][0]:
                fastest[k] = (lns, lmin)
        say("  %-6s %-3d %-9s %9.2f %9.2f %7s | %-21s %-21s" % (
            ev, thr, chan, lns, lmin, f.get("lost_pct", "-"), cells[0], cells[1]))
    say("  ratio = LTTng ns/event / slimtrace ns/event (medians); the targets take")
    say("  the fastest LTTng channel of the run; best = best run against best run")
    for clock, name, target in names:
        k = ("2int", 1, clock)
        if k in fastest:
            ns = runs(rec[k], "ns")
            summ.add(name + " (2int, 1 thr)", "%.1fx" % TARGETS[target], ">=",
                     TARGETS[target], fastest[k][0] / med(ns), fastest[k][1] / min(ns), "x")
    say()


def report_filter(s, summ):
    flt = s["filter"]
    say("== 4. Filters (2int, 1 thread, clock %s) ==" % (
        flt["none"]["clock"] if "none" in flt else "-"))
    if "none" not in flt:
        say("  (no result)")
        summ.add("1-predicate filter adds", "3 ns", "<=", 3, None, None, "ns")
        return
    base = runs(flt["none"], "ns")
    say("  %-7s %8s %8s %8s %7s  %s" % ("filter", "ns/ev", "best", "+ns", "ratio",
                                        "expression"))
    for kind in ("none", "pred1", "pred5", "reject"):
        if kind not in flt:
            continue
        v = runs(flt[kind], "ns")
        add = paired(v, base, lambda x, y: x - y)
        say("  %-7s %8.2f %8.2f %+8.2f %7.2f  %s%s" % (
            kind, med(v), min(v), add, paired(v, base, lambda x, y: x / y),
            flt[kind]["expr"], "   (every event discarded)" if kind == "reject" else ""))
        if kind == "pred1":
            summ.add("1-predicate filter adds", "3 ns", "<=", TARGETS["pred1"], add,
                     min(v) - min(base), "ns")
        if kind == "pred5":
            summ.add("5-predicate filter adds", "10 ns", "<=", TARGETS["pred5"], add,
                     min(v) - min(base), "ns")
    if "reject" in flt and "pred1" in flt:
        rj, p1 = runs(flt["reject"], "ns"), runs(flt["pred1"], "ns")
        summ.add("rejecting / passing 1-predicate filter", "1.05x", "<=",
                 TARGETS["reject"], paired(rj, p1, lambda x, y: x / y),
                 min(rj) / min(p1), "x")
    say("  +ns, ratio: median over rounds, each run against the unfiltered run beside it")
    say()


def report_sessions(s, base, summ):
    ses = s["sessions"]
    say("== 5. Instances and consumers (2int, 1 thread, clock %s) ==" % CTR)
    if "top" not in ses:
        say("  (no result)")
    else:
        top = runs(ses["top"], "ns")
        say("  %-14s %8s %8s %8s" % ("into", "ns/ev", "best", "+ns"))
        for kind in ("top", "top+instance", "consumer", "top+consumer"):
            if kind not in ses:
                continue
            v = runs(ses[kind], "ns")
            say("  %-14s %8.2f %8.2f %+8.2f" % (kind, med(v), min(v),
                                                  paired(v, top, lambda x, y: x - y)))
        say("  top: the top level's buffers; top+instance: the same event also in one"
            " instance; consumer: a callback that does nothing, no buffer")
    # The same measurement, this tree against the previous release, pass by pass.
    k = ("2int", 1, CTR)
    if base is None:
        say("  previous release: not built (make bench builds it with git; see"
            " BENCH_BASELINE)")
    elif k in base["record"] and k in s["record"]:
        v, b = runs(s["record"][k], "ns"), runs(base["record"][k], "ns")
        r = paired(v, b, lambda x, y: x / y)
        say("  2int into the top level: this tree %.2f ns, previous release (%s) %.2f ns:"
            " ratio %.3f (pass by pass)" % (med(v), base.get("name", "?"), med(b), r))
        summ.add("record path vs previous release", "1.05x", "<=", 1.05, r,
                 min(v) / min(b), "x")
    say()


def report_memory(s):
    say("== 6. Memory ==")
    m = s.get("memory")
    if not m:
        say("  (no result)")
        return
    say("  default buffer_size_kb: %s KiB per recording thread (overwrite mode)"
        % m["buffer_size_kb"])
    say("  RSS added by the first recording thread:  %5s KiB (its buffer, wrapped"
        " twice, and one-time state)" % m["first_recording_thread_rss_kb"])
    say("  RSS added by a further recording thread:  %5s KiB (a new buffer)"
        % m["next_recording_thread_rss_kb"])
    say("  (two idle threads alone added %s KiB of stack)" % m["idle_threads_rss_kb"])
    if s["record"]:
        f = next(iter(s["record"].values()))
        say("  the recording runs above used buffer_size_kb=%s per thread"
            % f["buffer_size_kb"])
    say()


def hot_code(obj, fn):
    """Instructions and bytes of fn's hot part (.text; .cold is elsewhere)."""
    try:
        d = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-j", ".text", obj],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           timeout=60).stdout
        n = subprocess.run(["nm", "-S", obj], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    size = next((int(w[1], 16) for w in (ln.split() for ln in n.splitlines())
                 if len(w) == 4 and w[3] == fn), None)
    m = re.search(r"^([0-9a-f]+) <%s>:\n(.*?)(?:\n\n|\Z)" % re.escape(fn), d, re.S | re.M)
    if size is None or not m:
        return None
    end = int(m.group(1), 16) + size
    insns = 0
    for line in m.group(2).splitlines():
        w = line.split("\t")
        if len(w) >= 2 and int(w[0].strip().rstrip(":"), 16) < end and not padding(w[1]):
            insns += 1
    return insns, size


def padding(insn):
    """Alignment padding: the nop forms, and the 2-byte nop (66 90), which
    objdump prints as xchg %ax,%ax and gcc emits before a loop head."""
    return "nop" in insn or insn.split() == ["xchg", "%ax,%ax"]


def report_callsite(args, summ):
    obj = os.path.join(os.path.dirname(args.bin), "callsite.o")
    say("== Disabled call site in a small function (bench/callsite.c, -O2, hot code) ==")
    a, b = hot_code(obj, "callsite_plain"), hot_code(obj, "callsite_traced")
    if not a or not b:
        say("  SKIP: %s not built or not readable" % obj)
        summ.add_text("disabled call site adds, instructions", "<= 3", "-", "SKIP")
        return
    di, db = b[0] - a[0], b[1] - a[1]
    say("  without the call %d instructions, %d bytes; with it %d, %d: +%d, +%d bytes"
        % (a[0], a[1], b[0], b[1], di, db))
    say("  (static counts of the function's hot part; the call itself is in .text.unlikely)")
    say()
    summ.add_text("disabled call site adds, instructions", "<= 3", "%d" % di,
                  "PASS" if di <= 3 else "MISS")
    summ.add_text("disabled call site adds, hot bytes", "<= 16", "%d" % db,
                  "PASS" if db <= 16 else "MISS")


def report_profile(prof, summ=None):
    say("== Where the instructions go (valgrind callgrind, instructions per event,"
        " clock %s) ==" % CTR)
    for what, (parts, total) in prof.items():
        if parts is None:
            say("  %s: SKIP (%s)" % (what, total))
            continue
        say("  %s: %.1f instructions per event" % (what, total))
        for part, ir in sorted(parts.items(), key=lambda kv: -kv[1]):
            if ir >= 0.5:
                say("    %-36s %6.1f" % (part, ir))
    say()
    if summ is None:
        return
    st, sh = prof.get("2int"), prof.get("2int, shared library")
    f1, fl = prof.get("2int-f1"), prof.get("floor loop")
    if st and st[0] is not None:
        summ.add_text("2int recorded: instructions per event", "<= %d" % TARGETS["instr"],
                      "%.1f" % st[1], "PASS" if st[1] <= TARGETS["instr"] else "MISS")
    il = prof.get("2int, SLIM_RECORD_INLINE (shared library)")
    if il and il[0] is not None:
        summ.add_text("2int with SLIM_RECORD_INLINE: instructions", "<= %d" % TARGETS["instr"],
                      "%.1f" % il[1], "PASS" if il[1] <= TARGETS["instr"] else "MISS")
    if st and f1 and st[0] is not None and f1[0] is not None:
        d = f1[1] - st[1]
        summ.add_text("1-predicate filter adds, instructions",
                      "<= %d" % TARGETS["instr_pred1"], "%.1f" % d,
                      "PASS" if d <= TARGETS["instr_pred1"] else "MISS")
    f5, f0 = prof.get("2int-f5"), prof.get("2int-f0")
    if st and f5 and st[0] is not None and f5[0] is not None:
        summ.add_text("5-predicate filter adds, instructions", "-",
                      "%.1f" % (f5[1] - st[1]), "")
    if f1 and f0 and f1[0] is not None and f0[0] is not None:
        summ.add_text("rejecting / passing 1-predicate filter, instr.", "<= 1.00x",
                      "%.3fx" % (f0[1] / f1[1]), "PASS" if f0[1] <= f1[1] else "MISS")
    if fl and fl[0] is not None:
        say("  the floor loop (rdtsc + three stores): %.1f instructions per event" % fl[1])
    pr = prof.get("2int, previous release")
    if st and pr and st[0] is not None and pr[0] is not None:
        r = st[1] / pr[1]
        summ.add_text("record path vs previous release, instructions", "<= 1.05x",
                      "%.3fx" % r, "PASS" if r <= 1.05 else "MISS")
    if st and sh and st[0] is not None and sh[0] is not None:
        r = sh[1] / st[1]
        summ.add_text("shared / static library, instructions", "<= 1.05x", "%.3fx" % r,
                      "PASS" if r <= 1.05 else "MISS")


def header(args, quick):
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "?")
    except OSError:
        pass
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    say("slimtrace make bench%s: %s, %d CPUs, load %s, %s" % (
        " (BENCH_QUICK)" if quick else "", cpu, os.cpu_count(), load,
        time.strftime("%Y-%m-%d %H:%M")))
    say()


def profiles(args, n):
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        return {"2int": (None, "valgrind not installed")}
    prof = {}
    for what in ("2int", "2int-f1", "2int-f5", "2int-f0", "str"):
        prof[what] = callgrind(args, what, n)
    prof["floor loop"] = callgrind(args, "floor", n)
    shared = os.path.join(os.path.dirname(args.bin), "record_profile")
    if os.path.exists(shared):
        prof["2int, shared library"] = callgrind(
            argparse.Namespace(bin=shared, out=args.out), "2int", n)
    inline = os.path.join(os.path.dirname(args.bin), "record_profile_inline")
    if os.path.exists(inline):
        prof["2int, SLIM_RECORD_INLINE (shared library)"] = callgrind(
            argparse.Namespace(bin=inline, out=args.out), "2int", n)
    if getattr(args, "baseline", None) and os.path.exists(args.baseline):
        prof["2int, previous release"] = callgrind(
            argparse.Namespace(bin=args.baseline, out=args.out), "2int", n)
    return prof


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--out", default="build/bench")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--baseline", help="record_bench of the previous release")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    global CTR
    CTR = counter_clock(args.bin)

    if args.profile:
        report_profile(profiles(args, 200000))
        return 0

    quick = args.quick
    # Many short processes rather than a few long ones: this VM slows down
    # by up to 2x for seconds at a time, and a process measures one clock.
    events, nruns, passes = (500000, 1, 4) if quick else (2000000, 1, 9)
    lt_events, lt_runs, lt_chan = ((1000000, 3, "default") if quick
                                   else (2000000, 5, "default snapshot"))
    header(args, quick)
    # LTTng's channels run between slimtrace's passes, so that both sides
    # meet the same phases of a noisy host.
    chans = lt_chan.split()
    s, lt = slim_new(), lttng_new()
    cmds = slim_cmds(events, nruns)
    slim_busy, lt_busy = [], []
    due = {int((j + 0.5) * passes / len(chans)): c for j, c in enumerate(chans)}
    base, base_cmds = None, []
    if args.baseline and os.path.exists(args.baseline):
        base = slim_new()
        base["name"] = os.environ.get("BENCH_BASELINE", "baseline")
        base_cmds = [["-c", CTR, "-e", str(events), "-r", str(nruns), "record"]]
    for i in range(passes):
        busy = Busy()
        slim_pass(s, args, cmds)
        if base is not None:
            slim_pass(base, argparse.Namespace(bin=args.baseline), base_cmds)
        slim_busy.append(busy.others())
        if i in due:
            busy = Busy()
            lttng_run(lt, args, lt_events, lt_runs, due[i])
            lt_busy.append(busy.others())
    slim_pass(s, args, [["memory"]])
    slim_others, lt_others = med(slim_busy), med(lt_busy) if lt_busy else 0.0
    prof = profiles(args, 100000 if quick else 200000)

    summary = Summary()
    say("Other processes kept %.2f CPUs busy during slimtrace's runs, %.2f during"
        " LTTng's (of %d; medians over the passes)." % (slim_others, lt_others,
                                                        os.cpu_count()))
    if max(slim_others, lt_others) > 0.3:
        say("NOTE: the machine was busy: 2-thread numbers and LTTng's (whose consumer"
            " daemon needs a CPU) suffer first.")
    say()
    for line in s["skip"]:
        say(line)
    report_clocks(s)
    report_loop(s, lt, summary)
    report_record(s, summary)
    report_lttng(s, lt, summary)
    report_filter(s, summary)
    report_sessions(s, base, summary)
    report_memory(s)
    report_profile(prof, summary)
    report_callsite(args, summary)
    summary.print()

    path = os.path.join(args.out, "results.txt")
    with open(path, "w") as f:
        f.write("\n".join(out_lines) + "\n\n# raw result lines\n" + "\n".join(raw_lines) + "\n")
    print("\n(written to %s)" % path)
    return 1 if s.get("error") else 0


if __name__ == "__main__":
    sys.exit(main())
