# test_silent runs itself as the traced program, directly and under the
# slimtrace command, and opens the dlopen test's shared object (an event
# that loads late): like test_dlopen it carries the whole static library
# and exports it, so the plugin's references resolve to it.
$(B)/tests/test_silent: tests/test_silent.c $(wildcard tests/silent/*.c tests/silent/*.h) \
		$(B)/tests/libslim_plugin.so $(B)/tools/slimtrace $(STATIC) $(HDRS) $(wildcard tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_CFLAGS) -Itests/silent $(ALL_CFLAGS) -rdynamic -o $@ $< \
		$(wildcard tests/silent/*.c) -Wl,--whole-archive $(STATIC) -Wl,--no-whole-archive $(LDLIBS)
