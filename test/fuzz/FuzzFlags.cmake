# PROOFC_FUZZ: the libFuzzer build of test/fuzz (scripts/fuzz.sh drives it).
#
# Included from the top-level CMakeLists.txt before any target is defined:
# every translation unit of this build (runtime, eval dialect, export) gets
# coverage instrumentation and ASan/UBSan, so the fuzzer is guided by the
# parsers' own branches and a memory or UB error anywhere is a finding. Only
# the fuzz executables link libFuzzer's main (-fsanitize=fuzzer).
option(PROOFC_FUZZ
  "Build the libFuzzer targets in test/fuzz (clang only; instruments the whole build)"
  OFF)

if(PROOFC_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR
      "PROOFC_FUZZ=ON needs clang (libFuzzer), found ${CMAKE_CXX_COMPILER_ID}: "
      "configure with -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang")
  endif()
  set(PROOFC_FUZZ_SANITIZERS
    "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer")
  string(APPEND CMAKE_C_FLAGS " -fsanitize=fuzzer-no-link ${PROOFC_FUZZ_SANITIZERS}")
  string(APPEND CMAKE_CXX_FLAGS " -fsanitize=fuzzer-no-link ${PROOFC_FUZZ_SANITIZERS}")
  string(APPEND CMAKE_EXE_LINKER_FLAGS " ${PROOFC_FUZZ_SANITIZERS}")
  string(APPEND CMAKE_SHARED_LINKER_FLAGS " ${PROOFC_FUZZ_SANITIZERS}")
endif()
