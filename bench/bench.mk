# make bench: what recording an event costs in slimtrace, side by side
# with LTTng-UST 2.13 measured in the same run (docs/benchmarks.md).
#
#   make bench                  ~5 min: medians, ratios, PASS/MISS tables
#                               (in memory, then to a file: make bench-file)
#   make bench BENCH_QUICK=1    ~30 s, fewer events and runs
#   make bench-profile          instructions per event, by part (valgrind)
#
# The report also lands in $(BENCH_OUT)/results.txt.  The component
# benchmarks below are built (not run) so that they keep compiling.

BENCH_OUT ?= build/bench
BENCH_CFLAGS = $(CPPFLAGS) -Ibench -Isrc $(ALL_CFLAGS)

RECORD_BENCH := $(BENCH_OUT)/record_bench
BENCH_PARTS := $(patsubst bench/%.c,$(BENCH_OUT)/%,\
	$(wildcard bench/rb_bench.c bench/clock_bench.c bench/filter_bench.c))

$(RECORD_BENCH): bench/record_bench.c bench/record_events.c bench/record_events.h \
		$(STATIC) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ bench/record_bench.c bench/record_events.c \
		$(STATIC) $(LDLIBS)

# The same program linked against the shared library, as pkg-config
# links it: the record path must cost no more there (no PLT hop on it).
RECORD_BENCH_SO := $(BENCH_OUT)/record_profile
$(RECORD_BENCH_SO): bench/record_profile.c bench/record_events.c bench/record_events.h \
		$(SHARED) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ibench $(ALL_CFLAGS) -o $@ bench/record_profile.c \
		bench/record_events.c -L$(B) -Wl,-rpath,$(abspath $(B)) -lslimtrace

# The same again, its events defined with SLIM_RECORD_INLINE (the fast
# path inline in each class's probe: fewer instructions, more bytes).
RECORD_BENCH_INLINE := $(BENCH_OUT)/record_profile_inline
$(RECORD_BENCH_INLINE): bench/record_profile.c bench/record_events.c bench/record_events.h \
		$(SHARED) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ibench $(ALL_CFLAGS) -DSLIM_RECORD_INLINE -o $@ \
		bench/record_profile.c bench/record_events.c -L$(B) \
		-Wl,-rpath,$(abspath $(B)) -lslimtrace

# A disabled call site in a small function, disassembled by compare.py.
CALLSITE_OBJ := $(BENCH_OUT)/callsite.o
$(CALLSITE_OBJ): bench/callsite.c bench/record_events.h $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ibench $(CSTD) -O2 $(WARN) -fPIE -c -o $@ $<

# Build commands as in each file's header; the ring buffer's page switch
# now ticks the clock calibration, hence src/core/clock.c for rb_bench.
$(BENCH_OUT)/rb_bench: bench/rb_bench.c src/ring/ring_buffer.c src/ring/page.c src/core/clock.c \
		src/core/fork.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -D_GNU_SOURCE -Iinclude -Isrc $< src/ring/ring_buffer.c src/ring/page.c \
		src/core/fork.c src/core/clock.c -lpthread -o $@

$(BENCH_OUT)/clock_bench: bench/clock_bench.c src/core/clock.c src/core/fork.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -D_GNU_SOURCE -Iinclude -Isrc $< src/core/clock.c src/core/fork.c -lpthread -o $@

# The filter's internals come from the static library: symbols.c (for
# the symbol predicates) pulls in the fork hooks and the seq printer.
$(BENCH_OUT)/filter_bench: bench/filter_bench.c $(STATIC) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -D_GNU_SOURCE -Iinclude -Isrc $< $(STATIC) $(LDLIBS) -o $@

.PHONY: bench-build bench-profile bench-baseline
bench-build: $(RECORD_BENCH) $(RECORD_BENCH_SO) $(RECORD_BENCH_INLINE) $(CALLSITE_OBJ) $(BENCH_PARTS) \
	$(BENCH_OUT)/trigger_bench $(LIVE_BENCH) $(LIVE_PROG)

# The previous release's record_bench, built from git beside this tree's
# so that both are measured in the same run (the record path must not get
# slower).  Without git or that commit, the report says it was not built.
BENCH_BASELINE ?= a418899
BASELINE_DIR := $(BENCH_OUT)/baseline-$(BENCH_BASELINE)
BASELINE_BIN := $(BASELINE_DIR)/build/bench/record_bench
bench-baseline:
	@[ -x $(BASELINE_BIN) ] || { rm -rf $(BASELINE_DIR) && mkdir -p $(BASELINE_DIR) && \
		git archive $(BENCH_BASELINE) | tar -x -C $(BASELINE_DIR) && \
		$(MAKE) --no-print-directory -C $(BASELINE_DIR) -s B=build/plain \
			BENCH_OUT=build/bench build/bench/record_bench >/dev/null; } || \
		echo "bench: the previous release ($(BENCH_BASELINE)) could not be built"

# Then recording to a file and reading it back (bench/file_bench.mk),
# then live control (bench/live_bench.mk).
# The peers and the tools the report measures with, installed when missing
# as `make deps` installs its own: a fresh machine otherwise reports every
# LTTng-UST line as SKIP.
BENCH_DEPS := liblttng-ust-dev lttng-tools valgrind
.PHONY: bench-deps
bench-deps:
	@$(call apt_ensure,$(BENCH_DEPS))

bench: bench-deps bench-build bench-baseline
	@BENCH_BASELINE=$(BENCH_BASELINE) python3 bench/compare.py --bin $(RECORD_BENCH) \
		--out $(BENCH_OUT) --baseline $(BASELINE_BIN) $(if $(BENCH_QUICK),--quick)
	@$(MAKE) --no-print-directory bench-file
	@$(MAKE) --no-print-directory bench-live
	@$(MAKE) --no-print-directory bench-trigger

.PHONY: bench-trigger
bench-trigger: $(BENCH_OUT)/trigger_bench
	@echo "== triggers: an enabled event with and without 'traceoff if a == -1'"
	@$(BENCH_OUT)/trigger_bench
	@bench/trigger_ir.sh $(BENCH_OUT)/trigger_bench

bench-profile: $(RECORD_BENCH) $(RECORD_BENCH_SO) $(RECORD_BENCH_INLINE) bench-baseline
	@python3 bench/compare.py --bin $(RECORD_BENCH) --out $(BENCH_OUT) \
		--baseline $(BASELINE_BIN) --profile

# A trigger's cost (docs/benchmarks.md): ns per event, then instructions.
$(BENCH_OUT)/trigger_bench: bench/trigger_bench.c tests/triggers/triggers_events.c $(STATIC) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -Itests/dialect -o $@ bench/trigger_bench.c \
		tests/triggers/triggers_events.c $(STATIC) $(LDLIBS)
