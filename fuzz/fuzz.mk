# make fuzz: build the filter's libFuzzer target with ASan and UBSan and
# run it for FUZZ_SECONDS from the seed corpus in fuzz/corpus/filter/.
# New inputs the fuzzer finds go to fuzz/corpus-run/filter/ (not kept in
# git); a crash leaves its input in build/fuzz/ and fails the target.
#
#   make fuzz                     60 seconds
#   make fuzz FUZZ_SECONDS=600    longer

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_OUT     := build/fuzz
FUZZ_FLAGS   := -std=gnu11 -g -O1 -D_GNU_SOURCE -Iinclude -Isrc \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_SRCS    := fuzz/filter_fuzz.c src/filter/filter.c src/core/fields.c \
		src/core/symbols.c src/core/fork.c src/text/print.c

$(FUZZ_OUT)/filter_fuzz: $(FUZZ_SRCS) src/filter/filter.h include/slimtrace/field.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(FUZZ_SRCS) -ldl -lpthread

fuzz: $(FUZZ_OUT)/filter_fuzz
	@mkdir -p fuzz/corpus-run/filter
	$(FUZZ_OUT)/filter_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
		-timeout=10 -artifact_prefix=$(FUZZ_OUT)/ -print_final_stats=1 \
		fuzz/corpus-run/filter fuzz/corpus/filter

# make fuzz-live: the control endpoint's protocol (fuzz/live_fuzz.c) over
# the whole library but the endpoint thread, from fuzz/corpus/live/.
LIVE_FUZZ_SRCS := fuzz/live_fuzz.c $(filter-out src/live/endpoint.c,$(LIB_SRCS))

$(FUZZ_OUT)/live_fuzz: $(LIVE_FUZZ_SRCS) $(HDRS) tests/live_target/target_events.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Itests/live_target -o $@ $(LIVE_FUZZ_SRCS) -lpthread -ldl

.PHONY: fuzz-live
fuzz-live: $(FUZZ_OUT)/live_fuzz
	@mkdir -p fuzz/corpus-run/live
	$(FUZZ_OUT)/live_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
		-timeout=10 -rss_limit_mb=4096 -artifact_prefix=$(FUZZ_OUT)/ -print_final_stats=1 \
		fuzz/corpus-run/live fuzz/corpus/live

# make fuzz-dynevent: the dynamic_events command parser (fuzz/dynevent_fuzz.c),
# from fuzz/corpus/dynevent/.
DYN_FUZZ_SRCS := fuzz/dynevent_fuzz.c src/dynevent/parse.c src/core/fields.c

$(FUZZ_OUT)/dynevent_fuzz: $(DYN_FUZZ_SRCS) src/dynevent/dynevent.h include/slimtrace/field.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(DYN_FUZZ_SRCS) -ldl

.PHONY: fuzz-dynevent
fuzz-dynevent: $(FUZZ_OUT)/dynevent_fuzz
	@mkdir -p fuzz/corpus-run/dynevent
	$(FUZZ_OUT)/dynevent_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
		-timeout=10 -artifact_prefix=$(FUZZ_OUT)/ -print_final_stats=1 \
		fuzz/corpus-run/dynevent fuzz/corpus/dynevent
