# make footprint: bytes per event and per call site, slimtrace beside
# LTTng-UST 2.13, measured with size(1) on linked PIE programs (see
# bench/footprint/README.md).  Everything lands in build/footprint/,
# the report also in build/footprint/report.txt.
#
#   make footprint                 the table and the computed lines
#   make footprint FP_CC=clang     another compiler (default gcc)
#   make footprint FP_B=build/x    link build/x/libslimtrace.a instead

FP_OUT ?= build/footprint
FP_CC  ?= gcc
FP_B   ?= build/plain
FP_LIB := $(FP_B)/libslimtrace.a

# The slimtrace variants need the dialect and the plain static library;
# without them the script still measures LTTng and says what is missing.
footprint:
	@if [ -f include/slimtrace/define_trace.h ]; then \
		$(MAKE) --no-print-directory B=$(FP_B) $(FP_LIB) || \
		echo "footprint: $(FP_LIB) did not build"; \
	fi
	@python3 bench/footprint/footprint.py --out $(FP_OUT) --lib $(FP_LIB) \
		--cc $(FP_CC)
