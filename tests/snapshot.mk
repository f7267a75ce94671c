# Uses the sample events of the dialect test.
$(B)/tests/test_snapshot: TEST_CFLAGS += -Itests/dialect
