# Uses the sample events of the dialect test.
$(B)/tests/test_instances: TEST_CFLAGS += -Itests/dialect -Itests/consumer
