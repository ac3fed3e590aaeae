// The target that owns the test executables' shared precompiled header
// (tests/CMakeLists.txt, quadbin_test_pch): nothing to compile but the
// header itself.
