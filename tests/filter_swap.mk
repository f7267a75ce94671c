# Uses the sample events of the dialect test.
$(B)/tests/test_filter_swap: TEST_CFLAGS += -Itests/dialect
