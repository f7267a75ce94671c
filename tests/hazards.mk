# Uses the sample events of the dialect test; wraps the allocator to see
# whether a signal handler's first event calls it.
$(B)/tests/test_hazards: TEST_CFLAGS += -Itests/dialect \
	-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=aligned_alloc
