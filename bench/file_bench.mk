# make bench-file: recording to a trace.dat file (docs/benchmarks.md,
# "Recording to a file"): sustained rate and loss with 2 threads, report
# speed beside trace-cmd, bytes per event beside LTTng-UST's CTF.
#
#   make bench-file                ~2.5 min
#   make bench-file BENCH_QUICK=1  3 s runs, one of each
#
# The report also lands in $(BENCH_OUT)/file_results.txt.

BENCH_OUT ?= build/bench
FILE_BENCH := $(BENCH_OUT)/file_bench

$(FILE_BENCH): bench/file_bench.c bench/paced_worker.c bench/paced_worker.h bench/record_events.c bench/record_events.h \
		$(STATIC) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ibench $(ALL_CFLAGS) -o $@ bench/file_bench.c \
		bench/paced_worker.c bench/record_events.c $(STATIC) $(LDLIBS)

.PHONY: bench-file
bench-file: $(FILE_BENCH) $(CLI)
	@BENCH_QUICK=$(BENCH_QUICK) sh bench/file_bench.sh $(FILE_BENCH) $(CLI) \
		$(BENCH_OUT)
