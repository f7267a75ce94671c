# Uses the sample events of the dialect test.
$(B)/tests/test_ctl: TEST_CFLAGS += -Itests/dialect
