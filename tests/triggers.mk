# Uses the sample events of the dialect test.
$(B)/tests/test_triggers: TEST_CFLAGS += -Itests/dialect
