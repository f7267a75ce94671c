# test_fastpath with SLIM_RECORD_INLINE events: its source, its flags.
$(B)/tests/test_fastpath_inline: tests/test_fastpath.c
$(B)/tests/test_fastpath_inline: TEST_CFLAGS += -Itests/dialect -Wl,--wrap=slim_event_reserve -Wl,--wrap=slim_record_fast_clock
