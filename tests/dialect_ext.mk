# Kernel-style header: the compat include folder.
$(B)/tests/test_dialect_ext: TEST_CFLAGS += -Iinclude/slimtrace/compat
# %pS names the test's own functions only if they are dynamic symbols.
$(B)/tests/test_dialect_ext: LDLIBS += -rdynamic
# test_dialect_ext reads what it recorded with the slimtrace command.
$(B)/tests/test_dialect_ext: $(B)/tools/slimtrace
$(B)/tests/test_dialect_ext: tests/dialect_ext/ext_events.h
