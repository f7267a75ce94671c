# test_report_inputs runs the slimtrace command, and parses filters with
# libtraceevent itself to show which ones crash it.
$(B)/tests/test_report_inputs: $(B)/tools/slimtrace tests/cmd.h
$(B)/tests/test_report_inputs: LDLIBS += -ltraceevent
