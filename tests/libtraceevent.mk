# test_libtraceevent reads slimtrace's format texts and records with
# libtraceevent (Debian: libtraceevent-dev).  Its events come from
# kernel-style headers (the compat include folder), from the dialect
# sample and from the kernel-equal headers of test_kernel_compat.
$(B)/tests/test_libtraceevent: TEST_CFLAGS += -Iinclude/slimtrace/compat \
	-Itests/dialect -Itests/kernel_compat -Itests/dialect_ext
$(B)/tests/test_libtraceevent: LDLIBS += -ltraceevent
$(B)/tests/test_libtraceevent: tests/libtraceevent/lte_events.h \
	tests/dialect/sample_events.h tests/dialect_ext/ext_events.h \
	$(wildcard tests/kernel_compat/trace/events/*.h)
