# Uses the sample events of the dialect test; -rdynamic so that the
# user stack's callers resolve to the test's own functions by name.
$(B)/tests/test_snapshot: TEST_CFLAGS += -Itests/dialect
$(B)/tests/test_snapshot: LDLIBS += -rdynamic
