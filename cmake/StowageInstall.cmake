# The SDK as a package: `cmake --install build --prefix P` installs
#   P/include/stowage/...            the SDK's folder, sdk/include/stowage/, as it is in the tree
#   P/lib/libstowage_*.a             every library of pkg/ and cmd/ (static, position-independent)
#   P/lib/cmake/stowage/             stowageConfig.cmake, its version file, the exported targets,
#                                    plugin_api.dynamic-list
# so that an out-of-tree project does
#   find_package(stowage 0.1 REQUIRED)
#   target_link_libraries(my_plugin PRIVATE stowage::sdk)           # plugin code in a program
#   target_link_libraries(my_scheduler PRIVATE stowage::scheduler)  # a binary around app::Run
#   target_link_libraries(my_library PRIVATE stowage::plugin)       # a MODULE stowage loads
# The headers reach nothing beyond the standard library, which tests/sdk/run checks on the
# installed tree; what belongs in the folder is said in sdk/README.md.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY ${STOWAGE_SDK_INCLUDE_DIR}/stowage DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT sdk FILES_MATCHING PATTERN "*.h")

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
