# The slimtrace command.  It reads trace.dat files with libtraceevent
# (Debian: libtraceevent-dev); the library itself never links it.
CLI      := $(B)/tools/slimtrace
CLI_SRCS := $(wildcard tools/slimtrace/*.c)
CLI_HDRS := $(wildcard tools/slimtrace/*.h)
TRACEEVENT_LIBS ?= $(shell pkg-config --libs libtraceevent 2>/dev/null || echo -ltraceevent)

$(CLI): $(CLI_SRCS) $(CLI_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DSLIM_VERSION='"$(VERSION)"' $(ALL_CFLAGS) -o $@ $(CLI_SRCS) $(TRACEEVENT_LIBS)

.PHONY: tools
tools: $(CLI)
