# test_record counts, with the slimtrace command, what a file says was lost.
$(B)/tests/test_record: $(B)/tools/slimtrace
