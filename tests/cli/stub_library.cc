// A shared library that is not a backend library: it has no zerosim entry point
// (tests/cli/lazy_backends_test.cc puts it where libzerosim_cuda.so should be).
extern "C" int zs_test_stub_library() { return 0; }
