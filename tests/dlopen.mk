# test_dlopen opens a shared object with events of its own.  The test
# carries the whole static library and exports it (-rdynamic), and the
# plugin's references to slimtrace resolve to it when it is opened.
$(B)/tests/libslim_plugin.so: tests/dlopen_plugin/plugin.c tests/dlopen_plugin/plugin_events.h $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/dlopen_plugin $(ALL_CFLAGS) -fPIC -shared -o $@ $<

$(B)/tests/test_dlopen: tests/test_dlopen.c $(B)/tests/libslim_plugin.so $(STATIC) $(HDRS) tests/check.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_CFLAGS) $(ALL_CFLAGS) -rdynamic -o $@ $< \
		-Wl,--whole-archive $(STATIC) -Wl,--no-whole-archive $(LDLIBS)
