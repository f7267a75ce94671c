# test_viewers runs the slimtrace command, the demo, and the viewers
# (babeltrace2, babeltrace, protoc; Debian packages in DEPS).
$(B)/tests/test_viewers: $(B)/tools/slimtrace $(B)/examples/demo tests/cmd.h

# KernelShark's library (libkshark-dev, whose header needs json-c's) is
# driven by a small program, where it is installed.  It is built without
# the sanitizers: what it runs is KernelShark's code, not slimtrace's.
ifneq ($(wildcard /usr/include/kernelshark/libkshark.h),)
ifneq ($(wildcard /usr/include/json-c/json.h),)
$(B)/tests/ks_dump: tests/ks_dump/ks_dump.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -isystem /usr/include/kernelshark -o $@ $< -lkshark

$(B)/tests/test_viewers: $(B)/tests/ks_dump
endif
endif
