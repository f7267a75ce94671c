# Kernel-style headers reach slimtrace through the compat include folder.
$(B)/tests/test_kernel_compat: TEST_CFLAGS += -Iinclude/slimtrace/compat
$(B)/tests/test_kernel_compat: $(wildcard tests/kernel_compat/trace/events/*.h)
