# Uses the sample events of the dialect test; wraps slim_event_reserve()
# to count the events that leave the inline fast path.
$(B)/tests/test_fastpath: TEST_CFLAGS += -Itests/dialect -Wl,--wrap=slim_event_reserve -Wl,--wrap=slim_record_fast_clock
