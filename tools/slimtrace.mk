# The slimtrace command.  It reads trace.dat files with libtraceevent
# (Debian: libtraceevent-dev) and zstd (libzstd-dev), and mounts with
# libfuse3; the library itself never links them.  The library's page decoder (src/ring/page.c) is
# compiled in, as trace-cmd shares libtraceevent's kbuffer, and so are
# its trace.dat sinks, which `recover` and `record` rebuild files with
# (they need only libc), and the value parsers of the control files
# (src/ctl/parse.c), so that `record -b` refuses what buffer_size_kb does.
CLI      := $(B)/tools/slimtrace
CLI_REC  := recover tdat_sink sink_tdat6 sink_tdat7 tdat_out mem
CLI_SRCS := $(wildcard tools/slimtrace/*.c) src/ring/page.c src/live/sockdir.c src/ctl/parse.c \
	$(CLI_REC:%=src/record/%.c)
CLI_HDRS := $(wildcard tools/slimtrace/*.h) src/ring/page.h src/live/sockdir.h src/live/proto.h src/ctl/parse.h \
	$(wildcard src/record/*.h)
TRACEEVENT_LIBS ?= $(shell pkg-config --libs libtraceevent 2>/dev/null || echo -ltraceevent)
ZSTD_LIBS ?= $(shell pkg-config --libs libzstd 2>/dev/null || echo -lzstd)
# slimtrace mount serves with libfuse3 (Debian: libfuse3-dev, fuse3);
# without it the command says it was built without.
FUSE_CFLAGS ?= $(shell pkg-config --cflags fuse3 2>/dev/null || echo -DSLIM_NO_FUSE)
FUSE_LIBS ?= $(shell pkg-config --libs fuse3 2>/dev/null)

$(CLI): $(CLI_SRCS) $(CLI_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Isrc -DSLIM_VERSION='"$(VERSION)"' $(ALL_CFLAGS) $(FUSE_CFLAGS) -o $@ \
		$(CLI_SRCS) $(TRACEEVENT_LIBS) $(ZSTD_LIBS) $(FUSE_LIBS)

.PHONY: tools
tools: $(CLI)
