# The fuzz build (-DSTOWAGE_FUZZ=ON, clang only): every library is compiled with libFuzzer's
# coverage instrumentation, AddressSanitizer and UndefinedBehaviorSanitizer, and only the targets
# of tests/fuzz are defined beside the libraries (scripts/fuzz builds and runs them). ASan and
# _FORTIFY_SOURCE do not mix, so the hardening flags and the tests are off in this build.
if(NOT STOWAGE_FUZZ)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "STOWAGE_FUZZ needs clang (libFuzzer): -DCMAKE_CXX_COMPILER=clang++")
endif()
set(STOWAGE_HARDENING OFF)
set(STOWAGE_BUILD_TESTS OFF)
# Debug-only ASSERTs and libstdc++'s bounds checks stay on: a broken invariant is a finding too.
# Every UBSan report aborts, so libFuzzer counts it as a crash and keeps the input.
set(CMAKE_CXX_FLAGS_RELEASE "-O1 -gline-tables-only -D_GLIBCXX_ASSERTIONS")
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                    -fno-omit-frame-pointer)
add_link_options(-fsanitize=address,undefined)
