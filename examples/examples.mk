# The demo: an instrumented program that reads its own tracing files.
EXAMPLES := $(B)/examples/demo

$(B)/examples/demo: examples/demo.c examples/demo_events.c examples/demo_events.h $(STATIC) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Iexamples $(ALL_CFLAGS) -o $@ examples/demo.c examples/demo_events.c $(STATIC) $(LDLIBS)

examples: $(EXAMPLES)

# The demo reads its own control files, then runs again under
# `slimtrace record` (writing trace.dat) and the trace is reported.
demo: $(B)/examples/demo $(B)/tools/slimtrace
	$(B)/examples/demo
	@echo '$$ slimtrace record -o trace.dat -- $(B)/examples/demo'
	@$(B)/tools/slimtrace record -o trace.dat -- $(B)/examples/demo > /dev/null
	@echo '$$ slimtrace report trace.dat'
	@$(B)/tools/slimtrace report trace.dat
