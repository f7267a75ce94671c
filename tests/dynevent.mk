# Eprobes are made on the sample events of the dialect test.
$(B)/tests/test_dynevent: TEST_CFLAGS += -Itests/dialect
