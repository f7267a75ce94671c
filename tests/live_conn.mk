# The live target's events, compiled into the test binary.
$(B)/tests/test_live_conn: TEST_CFLAGS += -Itests/live_target
$(B)/tests/test_live_conn: tests/live_target/target_events.h
