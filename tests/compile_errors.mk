# The compile-error cases run the same compiler that built the test.
$(B)/tests/test_compile_errors: TEST_CFLAGS += -DTEST_CC='"$(CC)"'
