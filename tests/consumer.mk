# Uses the sample events of the dialect test.
$(B)/tests/test_consumer: TEST_CFLAGS += -Itests/dialect
