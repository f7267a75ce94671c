# make bench-live: what live control costs (docs/benchmarks.md, "Live
# control"): attach/enable/detach latency, recording through
# `slimtrace record -p` beside in-process recording, the endpoint's
# start-up cost.  Part of `make bench`; under a minute.
#
#   make bench-live                  ~40 s
#   make bench-live BENCH_QUICK=1    ~10 s: 1 s runs, one of each
#
# The report also lands in $(BENCH_OUT)/live_results.txt.

BENCH_OUT ?= build/bench
LIVE_BENCH := $(BENCH_OUT)/live_bench
LIVE_PROG := $(BENCH_OUT)/live_prog

# The driver is a client only (the CLI's own, tools/slimtrace/live.c): no
# events, no endpoint of its own.
$(LIVE_BENCH): bench/live_bench.c tools/slimtrace/live.c tools/slimtrace/live.h \
		src/live/sockdir.c src/live/sockdir.h src/live/proto.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Isrc -Itools/slimtrace $(ALL_CFLAGS) -o $@ bench/live_bench.c \
		tools/slimtrace/live.c src/live/sockdir.c

$(LIVE_PROG): bench/live_prog.c bench/paced_worker.c bench/paced_worker.h bench/record_events.c bench/record_events.h $(STATIC) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ibench $(ALL_CFLAGS) -o $@ bench/live_prog.c bench/paced_worker.c bench/record_events.c \
		$(STATIC) $(LDLIBS)

.PHONY: bench-live
bench-live: $(LIVE_BENCH) $(LIVE_PROG) $(CLI)
	@BENCH_QUICK=$(BENCH_QUICK) $(LIVE_BENCH) $(CLI) $(LIVE_PROG) $(BENCH_OUT)
