# Uses the sample events of the dialect test.
$(B)/tests/test_env: TEST_CFLAGS += -Itests/dialect
