# test_headers runs the compilers: the build's own (and its C++
# sibling) with the build's sanitizer flags, so that what it links runs
# against this build's library.
TEST_CXX = $(if $(findstring clang,$(CC)),$(subst clang,clang++,$(CC)),g++)
$(B)/tests/test_headers: TEST_CFLAGS += -DTEST_CC='"$(CC)"' -DTEST_CXX='"$(TEST_CXX)"' \
	-DTEST_SAN='"$(SAN_FLAGS)"'
$(B)/tests/test_headers: $(wildcard tests/data/headers/*) tests/data/kernel/field-names.txt
