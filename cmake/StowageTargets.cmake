# Include paths follow the link graph: a target sees the headers of its own folder and of the
# targets it links, nothing else, so an #include without the matching link dependency fails to
# compile. Each target's headers are published as symlinks under
# ${CMAKE_BINARY_DIR}/include/<target>/<folder>/, keeping include lines rooted at the repository
# ("stowage/api/types.h") while exposing one folder only (pkg/framework does not expose
# pkg/framework/runtime). The plugin API's headers live in the SDK's folder, sdk/include/stowage/
# (sdk/README.md), and are published the same way under their installed names
# ("stowage/framework/interface.h") by the library that defines them (stowage_library's SDK).
set(STOWAGE_SDK_INCLUDE_DIR ${PROJECT_SOURCE_DIR}/sdk/include)

# stowage_publish_headers(<target> <PUBLIC|PRIVATE> <dir> [HEADERS h...] [EXCLUDE_HEADERS h...]):
# links the headers of dir (every *.h and *.inc directly in it but the excluded, or the HEADERS
# given) into the target's include root.
function(stowage_publish_headers target scope dir)
  cmake_parse_arguments(ARG "" "" "HEADERS;EXCLUDE_HEADERS" ${ARGN})
  # Included by their path under the repository, or under sdk/include for the SDK's.
  cmake_path(IS_PREFIX STOWAGE_SDK_INCLUDE_DIR ${dir} NORMALIZE in_sdk)
  if(in_sdk)
    file(RELATIVE_PATH rel ${STOWAGE_SDK_INCLUDE_DIR} ${dir})
  else()
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${dir})
  endif()
  set(root ${CMAKE_BINARY_DIR}/include/${target})
  if(ARG_HEADERS)
    set(headers ${ARG_HEADERS})
  else()
    file(GLOB headers CONFIGURE_DEPENDS RELATIVE ${dir} ${dir}/*.h ${dir}/*.inc)
    if(ARG_EXCLUDE_HEADERS)
      list(REMOVE_ITEM headers ${ARG_EXCLUDE_HEADERS})
    endif()
  endif()
  # Rebuilt on every configure so a deleted or moved header does not linger.
  file(REMOVE_RECURSE ${root}/${rel})
  file(MAKE_DIRECTORY ${root}/${rel})
  foreach(h IN LISTS headers)
    file(CREATE_LINK ${dir}/${h} ${root}/${rel}/${h} SYMBOLIC)
  endforeach()
  # The build tree's path only: installed targets take the SDK's include root (StowageInstall).
  target_include_directories(${target} ${scope} $<BUILD_INTERFACE:${root}>)
  if(scope STREQUAL "PUBLIC")
    stowage_check_headers(${target} ${rel} ${headers})
  endif()
endfunction()

# check_headers (not part of "all"; scripts/test builds it in build-clang): one translation unit
# per public header that includes only that header, compiled with the include paths of the
# header's own library, so a header that does not include what it uses, or uses a library its
# target does not link, fails here rather than in whichever file happens to include it first.
if(NOT TARGET check_headers)
  add_custom_target(check_headers)
endif()
function(stowage_check_headers target rel)
  set(srcs)
  foreach(h IN LISTS ARGN)
    if(h MATCHES "\\.h$")
      set(src ${CMAKE_BINARY_DIR}/check_headers/${target}/${rel}/${h}.cc)
      # CONFIGURE rewrites the file only when its content changes, so reconfiguring rebuilds nothing.
      file(CONFIGURE OUTPUT ${src} CONTENT "#include \"${rel}/${h}\"\n")
      list(APPEND srcs ${src})
    endif()
  endforeach()
  if(srcs AND TARGET check_headers_${target})  # a library publishing two folders (an SDK one)
    target_sources(check_headers_${target} PRIVATE ${srcs})
  elseif(srcs)
    add_library(check_headers_${target} OBJECT EXCLUDE_FROM_ALL ${srcs})
    # Never batched (tests/ turns on unity builds for its libraries too): one header per unit.
    set_target_properties(check_headers_${target} PROPERTIES UNITY_BUILD OFF)
    target_link_libraries(check_headers_${target} PRIVATE ${target})
    add_dependencies(check_headers check_headers_${target})
  endif()
endfunction()

# stowage_library(<name> SOURCES ... DEPS ... [PRIVATE_DEPS ...] [HEADERS ...]
#                 [EXCLUDE_HEADERS ...] [SDK <folder> [SDK_HEADERS ...]]): one static library per
# folder, named stowage_<name>, publishing the headers of the folder it is declared in (only
# HEADERS, or all but EXCLUDE_HEADERS, where several libraries share a folder) and, with SDK, the
# plugin API headers it defines, those of sdk/include/stowage/<folder> (only SDK_HEADERS, or all
# but EXCLUDE_HEADERS).
#
# Its code is compiled with hidden visibility: nothing of it is exported from a program but what
# the SDK's headers declare (they open `#pragma GCC visibility push(default)`), so plugin
# libraries reach the plugin API and nothing else (cmake/PluginApi.cmake, tests/sdk/exports).
function(stowage_library name)
  cmake_parse_arguments(ARG "" "SDK" "SOURCES;DEPS;PRIVATE_DEPS;HEADERS;EXCLUDE_HEADERS;SDK_HEADERS"
                        ${ARGN})
  add_library(stowage_${name} STATIC ${ARG_SOURCES})
  set_target_properties(stowage_${name} PROPERTIES CXX_VISIBILITY_PRESET hidden)
  stowage_publish_headers(stowage_${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}
                          HEADERS ${ARG_HEADERS} EXCLUDE_HEADERS ${ARG_EXCLUDE_HEADERS})
  if(ARG_SDK)
    stowage_publish_headers(stowage_${name} PUBLIC ${STOWAGE_SDK_INCLUDE_DIR}/stowage/${ARG_SDK}
                            HEADERS ${ARG_SDK_HEADERS} EXCLUDE_HEADERS ${ARG_EXCLUDE_HEADERS})
  endif()
  target_link_libraries(stowage_${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  # The libraries of pkg/ and cmd/ are installed with the SDK (cmake/StowageInstall.cmake); test
  # helpers are not.
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  if(rel MATCHES "^(pkg|cmd)/")
    set_property(GLOBAL APPEND PROPERTY STOWAGE_INSTALLED_LIBRARIES stowage_${name})
  endif()
endfunction()

# stowage_program_headers(<target> <sources...>): a test or tool sees the headers of the folders
# its sources live in (its private fakes) besides those of the libraries it links.
function(stowage_program_headers target)
  set(dirs)
  foreach(src IN LISTS ARGN)
    get_filename_component(abs ${src} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    get_filename_component(dir ${abs} DIRECTORY)
    list(APPEND dirs ${dir})
  endforeach()
  list(REMOVE_DUPLICATES dirs)
  foreach(dir IN LISTS dirs)
    stowage_publish_headers(${target} PRIVATE ${dir})
  endforeach()
endfunction()

# stowage_test_namespaces(<sources...>): test files are compiled several to a translation unit
# (tests/CMakeLists.txt), so each keeps its code, using-declarations included, in a namespace
# named after the file (namespace stowage::scheduler::algorithm_test for algorithm_test.cc);
# two files' helpers of one name then cannot meet. Checked when CMake configures.
function(stowage_test_namespaces)
  foreach(src IN LISTS ARGN)
    get_filename_component(stem ${src} NAME_WE)
    file(STRINGS ${src} opens REGEX "^namespace [a-z0-9_:]+ {$")
    file(STRINGS ${src} own REGEX "^namespace [a-z0-9_:]+::${stem} {$")
    if(NOT opens OR NOT opens STREQUAL own)
      message(FATAL_ERROR "${src}: each top-level namespace of a test file must end in the "
                          "file's name, `namespace stowage::<folder>::${stem} {` (see "
                          "tests/CMakeLists.txt); found: ${opens}")
    endif()
  endforeach()
endfunction()

# stowage_test(<name> SOURCES ... DEPS ... [LABELS ...]): a GoogleTest binary registered with ctest.
function(stowage_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  stowage_test_namespaces(${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  stowage_program_headers(${name} ${ARG_SOURCES})
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS "${ARG_LABELS}")
  if("unit" IN_LIST ARG_LABELS AND TARGET unit_tests)
    add_dependencies(unit_tests ${name})
  endif()
endfunction()
