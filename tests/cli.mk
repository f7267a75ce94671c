# test_cli runs the slimtrace command (and records the demo with it).
$(B)/tests/test_cli: $(B)/tools/slimtrace $(B)/examples/demo
