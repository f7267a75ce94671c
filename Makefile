# slimtrace — GNU make, no configure step.
#
#   make              library (static + shared), examples, tests, CLI
#   make deps         install the Debian packages the CLI and tests use
#   make demo         build and run the demo program
#   make check        every test, plain + ASan/UBSan + TSan builds
#   make check-plain | check-asan | check-tsan   one build's tests
#   make bench        performance, side by side with LTTng-UST
#   make footprint    bytes per event, side by side with LTTng-UST
#   make install PREFIX=DIR   headers, libraries, pkg-config file, CLI, man pages

CC       ?= cc
PREFIX   ?= /usr/local
VERSION  := 0.2.0
# The soname follows the ABI of the record path inlined into programs.
SOVER    := $(shell sed -n 's/^\#define SLIM_ABI_VERSION[[:space:]]*//p' include/slimtrace/static/record.h)

WARN     := -Wall -Wextra
CSTD     := -std=gnu11
OPT      ?= -O2 -g
CPPFLAGS += -Iinclude -D_GNU_SOURCE
CFLAGS   += $(CSTD) $(OPT) $(WARN)
LIB_CFLAGS := -fPIC -fvisibility=hidden -Isrc
LDLIBS   += -lpthread -ldl

B ?= build/plain
SAN_FLAGS ?=

LIB_SRCS  := $(wildcard src/*/*.c)
LIB_OBJS  := $(patsubst src/%.c,$(B)/obj/%.o,$(LIB_SRCS))
TEST_SRCS := $(wildcard tests/test_*.c)
TESTS     := $(patsubst tests/%.c,$(B)/tests/%,$(TEST_SRCS))
HDRS      := $(wildcard include/slimtrace/*.h include/slimtrace/*/*.h include/slimtrace/*/*/*.h src/*/*.h)

STATIC := $(B)/libslimtrace.a
SHARED := $(B)/libslimtrace.so.$(SOVER)

ALL_CFLAGS = $(CFLAGS) $(SAN_FLAGS)

.PHONY: all lib tests examples demo deps check check-plain check-asan check-tsan check-clang clean install bench footprint fuzz
all: lib tests examples tools

lib: $(STATIC) $(SHARED)

$(B)/obj/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LIB_CFLAGS) -c -o $@ $<

$(STATIC): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(SHARED): $(LIB_OBJS)
	$(CC) $(ALL_CFLAGS) -shared -Wl,-soname,libslimtrace.so.$(SOVER) -o $@ $^ $(LDLIBS)
	ln -sf libslimtrace.so.$(SOVER) $(B)/libslimtrace.so

# A test is tests/test_NAME.c plus every tests/NAME/*.c; a test needing
# more (a shared object, extra flags) says so in its own tests/NAME.mk.
TEST_EXTRA = $(wildcard tests/$(patsubst test_%,%,$(notdir $@))/*.c)
TEST_CFLAGS = -Itests -Isrc
.SECONDEXPANSION:
$(B)/tests/%: tests/%.c $$(wildcard tests/$$(patsubst test_%,%,$$*)/*.c) $(STATIC) $(HDRS) $(wildcard tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_CFLAGS) -Itests/$(patsubst test_%,%,$(notdir $@)) $(ALL_CFLAGS) -o $@ $< $(TEST_EXTRA) $(STATIC) $(LDLIBS)

-include tests/*.mk
-include examples/*.mk
-include tools/*.mk
-include bench/*.mk
-include fuzz/*.mk

tests: $(TESTS)

check-plain:
	@$(MAKE) --no-print-directory B=build/plain WARN="$(WARN) -Werror" tests
	@tests/run.sh plain $(TESTS:$(B)/%=build/plain/%)

check-asan:
	@$(MAKE) --no-print-directory B=build/asan WARN="$(WARN) -Werror" OPT="-O1 -g" \
		SAN_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" tests
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tests/run.sh asan $(TESTS:$(B)/%=build/asan/%)

check-tsan:
	@$(MAKE) --no-print-directory B=build/tsan WARN="$(WARN) -Werror" OPT="-O1 -g" SAN_FLAGS="-fsanitize=thread" tests
	@TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
		tests/run.sh tsan $(TESTS:$(B)/%=build/tsan/%)

# Debian packages the CLI, the demo and the tests use: installed only
# when missing (apt-get, as root or through sudo).  The viewers the
# converted traces are checked with: babeltrace2 and babeltrace (CTF),
# protobuf-compiler (protoc, Perfetto), libkshark-dev and libjson-c-dev
# (KernelShark's library and the header it includes).
DEPS := build-essential clang-19 libclang-rt-19-dev libtraceevent-dev \
	libzstd-dev trace-cmd pkg-config python3 babeltrace2 babeltrace protobuf-compiler \
	libkshark-dev libjson-c-dev libfuse3-dev fuse3
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
# The packages $(1), installed unless every one is there.
apt_ensure = dpkg -s $(1) >/dev/null 2>&1 || { \
		$(SUDO) apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q \
			--no-install-recommends $(1); }
deps:
	@$(call apt_ensure,$(DEPS))

# The whole suite: every build, one closing line with the totals.
check:
	@tests/check-all.sh

clean:
	rm -rf build

install: lib tools
	install -d $(DESTDIR)$(PREFIX)/include/slimtrace $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(B)/tools/slimtrace $(DESTDIR)$(PREFIX)/bin/
	install -m 644 docs/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	cp -r include/slimtrace/. $(DESTDIR)$(PREFIX)/include/slimtrace/
	install -m 644 $(STATIC) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(SHARED) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libslimtrace.so.$(SOVER) $(DESTDIR)$(PREFIX)/lib/libslimtrace.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
		slimtrace.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/slimtrace.pc

# clang with UBSan's -fsanitize=function: every call through a function
# pointer must match the callee's type (the probe design relies on it).
CLANG ?= clang-19
check-clang:
	@$(MAKE) --no-print-directory B=build/clang WARN="$(WARN) -Werror" CC=$(CLANG) OPT="-O1 -g" \
		SAN_FLAGS="-fsanitize=undefined,function -fno-sanitize-recover=all" tests
	@UBSAN_OPTIONS=print_stacktrace=1 tests/run.sh clang $(TESTS:$(B)/%=build/clang/%)
