# stowage_library(<name> SOURCES ... DEPS ...): one static library per pkg/ folder, named
# stowage_<name>, with the project root on its include path so includes read "pkg/api/types.h".
function(stowage_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(stowage_${name} STATIC ${ARG_SOURCES})
  target_include_directories(stowage_${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(stowage_${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
endfunction()

# stowage_test(<name> SOURCES ... DEPS ... [LABELS ...]): a GoogleTest binary registered with ctest.
function(stowage_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS "${ARG_LABELS}")
endfunction()
