# Uses the sample events of the dialect test; -rdynamic so that the
# dynamic linker knows the test's functions the stacks must name; runs
# the slimtrace command on its recording.
$(B)/tests/test_stacktrace: TEST_CFLAGS += -Itests/dialect -rdynamic
$(B)/tests/test_stacktrace: $(B)/tools/slimtrace
