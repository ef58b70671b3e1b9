# The SDK as a package: `cmake --install build --prefix P` installs
#   P/include/stowage/<folder>/*.h   the plugin API's headers, their "pkg/..." include lines
#                                    rewritten to "stowage/..." (in-tree code keeps "pkg/...")
#   P/lib/libstowage_*.a             every library of pkg/ and cmd/ (static, position-independent)
#   P/lib/cmake/stowage/             stowageConfig.cmake, its version file, the exported targets,
#                                    plugin_api.dynamic-list
# so that an out-of-tree project does
#   find_package(stowage 0.1 REQUIRED)
#   target_link_libraries(my_plugin PRIVATE stowage::sdk)           # plugin code in a program
#   target_link_libraries(my_scheduler PRIVATE stowage::scheduler)  # a binary around app::Run
#   target_link_libraries(my_library PRIVATE stowage::plugin)       # a MODULE stowage loads
# Every header of the folders below is installed (a new header needs no edit here); the headers
# reach nothing beyond the standard library, which tests/sdk/run checks on the installed tree.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(STOWAGE_SDK_INCLUDE_DIR ${CMAKE_BINARY_DIR}/sdk/include)
set(_sdk_headers)
# stowage_sdk_headers(<folder under the source root> [EXCLUDE h...]): the folder's headers, as
# include/stowage/<folder without its pkg/ or cmd/stowage/ prefix>/.
function(stowage_sdk_headers dir)
  cmake_parse_arguments(ARG "" "" "EXCLUDE;ONLY" ${ARGN})
  if(ARG_ONLY)
    set(headers ${ARG_ONLY})
  else()
    file(GLOB headers CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR}/${dir}
         ${PROJECT_SOURCE_DIR}/${dir}/*.h)
    if(ARG_EXCLUDE)
      list(REMOVE_ITEM headers ${ARG_EXCLUDE})
    endif()
  endif()
  string(REGEX REPLACE "^(pkg|cmd/stowage)/" "" sub ${dir})
  set(outs ${_sdk_headers})
  foreach(h IN LISTS headers)
    set(out ${STOWAGE_SDK_INCLUDE_DIR}/stowage/${sub}/${h})
    add_custom_command(OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -DIN=${PROJECT_SOURCE_DIR}/${dir}/${h} -DOUT=${out}
              -P ${PROJECT_SOURCE_DIR}/cmake/SdkHeader.cmake
      DEPENDS ${PROJECT_SOURCE_DIR}/${dir}/${h} ${PROJECT_SOURCE_DIR}/cmake/SdkHeader.cmake
      COMMENT "SDK header stowage/${sub}/${h}" VERBATIM)
    list(APPEND outs ${out})
  endforeach()
  set(_sdk_headers ${outs} PARENT_SCOPE)
endfunction()

# The plugin API: API types, Status and friends, the framework's interfaces, the plugins'
# configuration types and args decoder, the in-tree plugins' helpers, and app::Run. logging.h sets
# up spdlog for the process; plugins log through log.h. decode_internal.h is the JSON decoder's
# inside (simdjson); schema.h and schema_generated.h are the codecs' tables, no plugin API.
stowage_sdk_headers(pkg/api EXCLUDE decode_internal.h schema.h schema_generated.h)
stowage_sdk_headers(pkg/common EXCLUDE logging.h)
stowage_sdk_headers(pkg/framework)
stowage_sdk_headers(pkg/plugin_config)
stowage_sdk_headers(pkg/plugins/helper)
stowage_sdk_headers(pkg/plugins ONLY names.h)
stowage_sdk_headers(cmd/stowage/app ONLY run.h)
add_custom_target(sdk_headers ALL DEPENDS ${_sdk_headers})
# The folders are emptied on each configure so a deleted header does not linger in the SDK.
file(REMOVE_RECURSE ${STOWAGE_SDK_INCLUDE_DIR})
install(DIRECTORY ${STOWAGE_SDK_INCLUDE_DIR}/stowage DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT sdk)

# stowage::plugin, for a plugin library (a MODULE that stowage loads, docs/plugin-libraries.md):
# the headers, the SDK version and the language standard its ABI tag records, position-independent
# code, and no archive, since the program that loads the library provides the plugin API.
add_library(stowage_sdk_plugin INTERFACE)
target_link_libraries(stowage_sdk_plugin INTERFACE stowage_plugin_library)
target_include_directories(stowage_sdk_plugin INTERFACE
                           $<BUILD_INTERFACE:${STOWAGE_SDK_INCLUDE_DIR}>
                           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(stowage_sdk_plugin INTERFACE cxx_std_20)
set_target_properties(stowage_sdk_plugin PROPERTIES EXPORT_NAME plugin
                                                    INTERFACE_POSITION_INDEPENDENT_CODE ON)
add_dependencies(stowage_sdk_plugin sdk_headers)
add_library(stowage::plugin ALIAS stowage_sdk_plugin)

# stowage::sdk, for plugin code linked into a program (a scheduler binary, a test): the same
# compile requirements plus the plugin API's static libraries. stowage::scheduler, for a scheduler
# binary: the whole command plus the link hardening of docs/security.md (the compile flags are the
# consumer's own); the installed package adds what lets it load plugin libraries too
# (stowageConfig.cmake.in).
add_library(stowage_sdk INTERFACE)
target_link_libraries(stowage_sdk INTERFACE stowage_sdk_plugin ${_stowage_plugin_api_libs})
set_target_properties(stowage_sdk PROPERTIES EXPORT_NAME sdk)
add_library(stowage::sdk ALIAS stowage_sdk)

add_library(stowage_sdk_scheduler INTERFACE)
target_link_libraries(stowage_sdk_scheduler INTERFACE stowage_sdk stowage_run)
target_link_options(stowage_sdk_scheduler INTERFACE
                    "$<INSTALL_INTERFACE:LINKER:-z,relro,-z,now,-z,noexecstack>")
set_target_properties(stowage_sdk_scheduler PROPERTIES EXPORT_NAME scheduler)
add_library(stowage::scheduler ALIAS stowage_sdk_scheduler)

get_property(_libs GLOBAL PROPERTY STOWAGE_INSTALLED_LIBRARIES)
install(TARGETS ${_libs} stowage_plugin_library stowage_sdk_plugin stowage_sdk stowage_sdk_scheduler
        EXPORT stowageTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT sdk)
set(_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/stowage)
install(EXPORT stowageTargets NAMESPACE stowage:: DESTINATION ${_cmake_dir} COMPONENT sdk)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/stowageConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/sdk/stowageConfig.cmake
                              INSTALL_DESTINATION ${_cmake_dir})
# 0.x: a minor version may change the plugin API, so only 0.1.* satisfies find_package(stowage 0.1).
write_basic_package_version_file(${CMAKE_BINARY_DIR}/sdk/stowageConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/sdk/stowageConfig.cmake
              ${CMAKE_BINARY_DIR}/sdk/stowageConfigVersion.cmake ${_stowage_plugin_api_list}
        DESTINATION ${_cmake_dir} COMPONENT sdk)
