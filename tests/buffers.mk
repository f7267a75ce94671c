# Uses the sample events of the dialect test.
$(B)/tests/test_buffers: TEST_CFLAGS += -Itests/dialect
