# PROOFC_FUZZ: the sanitized build of test/fuzz and of the whole project
# (scripts/sanitized-build.sh drives it; scripts/test-sanitizers.sh runs the
# test suite in the same build).
#
# Included from the top-level CMakeLists.txt before any target is defined:
# every translation unit gets ASan and UBSan, so a memory or UB error
# anywhere -- in a fuzz target or in a test -- is a finding. libFuzzer's
# coverage instrumentation (PROOFC_FUZZ_COVERAGE_FLAGS: edge counters and
# comparison tracing) guides the fuzzers, but it slows every instrumented
# comparison several-fold, so it goes only where the fuzzers run code: the
# parsers' own copies compiled in test/fuzz and the compiler libraries
# (fuzz-program), not the runtime, whose sanitized tests it would slow about
# threefold. Only the fuzz executables link libFuzzer's main
# (-fsanitize=fuzzer).
option(PROOFC_FUZZ
  "Build with ASan + UBSan and the libFuzzer targets in test/fuzz (clang only)"
  OFF)

if(PROOFC_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR
      "PROOFC_FUZZ=ON needs clang (libFuzzer), found ${CMAKE_CXX_COMPILER_ID}: "
      "configure with -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang")
  endif()
  set(PROOFC_FUZZ_SANITIZERS
    "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer")
  string(APPEND CMAKE_C_FLAGS " ${PROOFC_FUZZ_SANITIZERS}")
  string(APPEND CMAKE_CXX_FLAGS " ${PROOFC_FUZZ_SANITIZERS}")
  string(APPEND CMAKE_EXE_LINKER_FLAGS " ${PROOFC_FUZZ_SANITIZERS}")
  string(APPEND CMAKE_SHARED_LINKER_FLAGS " ${PROOFC_FUZZ_SANITIZERS}")
  set(PROOFC_FUZZ_COVERAGE_FLAGS -fsanitize=fuzzer-no-link)
endif()
