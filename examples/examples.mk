# The demo: an instrumented program that reads its own tracing files.
EXAMPLES := $(B)/examples/demo

$(B)/examples/demo: examples/demo.c examples/demo_events.c examples/demo_events.h $(STATIC) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Iexamples $(ALL_CFLAGS) -o $@ examples/demo.c examples/demo_events.c $(STATIC) $(LDLIBS)

examples: $(EXAMPLES)

demo: $(B)/examples/demo
	$(B)/examples/demo
