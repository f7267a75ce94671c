# test_live runs tests/live_target (a program with events that runs until
# told) and the slimtrace command against it.
$(B)/tests/live_target: tests/live_target/target.c tests/live_target/target_events.h $(STATIC) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/live_target $(ALL_CFLAGS) -o $@ $< $(STATIC) $(LDLIBS)

$(B)/tests/test_live: $(B)/tests/live_target $(B)/tools/slimtrace
$(B)/tests/test_live_security: $(B)/tests/live_target $(B)/tools/slimtrace
$(B)/tests/test_mount: $(B)/tests/live_target $(B)/tools/slimtrace
# The same with one more event first: its events have other ids (record -p A -p B).
$(B)/tests/live_target_extra: tests/live_target/target.c tests/live_target/target_events.h $(STATIC) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DLIVE_TARGET_EXTRA -Itests/live_target $(ALL_CFLAGS) -o $@ $< $(STATIC) $(LDLIBS)

$(B)/tests/test_live_record: $(B)/tests/live_target $(B)/tests/live_target_extra $(B)/tools/slimtrace
$(B)/tests/test_live_all: $(B)/tests/live_target $(B)/tests/live_target_extra $(B)/tools/slimtrace
