# test_interop runs the slimtrace command and the demo.
$(B)/tests/test_interop: $(B)/tools/slimtrace $(B)/examples/demo
