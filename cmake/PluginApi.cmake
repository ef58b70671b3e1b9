# stowage_export_plugin_api(<executable>): makes the program able to host plugin libraries
# (--plugin-library, docs/plugin-libraries.md). Libraries link no stowage archive; their references
# to the plugin API resolve against the program when dlopen maps them, so there is one copy of
# every global (logging, registries, typeinfo). For that the program
#   * exports the SDK's symbols, and only those: stowage's libraries are compiled with hidden
#     visibility but for what the headers of sdk/include/stowage/ declare (their `#pragma GCC
#     visibility push(default)`), and the dynamic list (cmake/plugin_api.dynamic-list) exports the
#     default-visibility `stowage::` symbols and nothing of the libraries stowage links (spdlog,
#     the standard library, ...). tests/sdk/exports checks the result;
#   * contains the whole plugin API, not just the members its own code happens to use: the
#     libraries of the API are linked whole (--whole-archive), ahead of the ordinary link line.
set(_stowage_plugin_api_list ${CMAKE_CURRENT_LIST_DIR}/plugin_api.dynamic-list)
# The libraries whose headers plugins see: the plugin API and the in-tree plugins' helpers
# (normalize_score.h, taint.h, ...).
set(_stowage_plugin_api_libs stowage_framework stowage_plugin_config stowage_api stowage_common
    stowage_plugin_helper)
function(stowage_export_plugin_api target)
  set(archives)
  foreach(lib IN LISTS _stowage_plugin_api_libs)
    list(APPEND archives $<TARGET_FILE:${lib}>)
  endforeach()
  target_link_options(${target} PRIVATE "LINKER:--dynamic-list=${_stowage_plugin_api_list}"
                      "LINKER:--whole-archive" ${archives} "LINKER:--no-whole-archive")
  target_link_libraries(${target} PRIVATE ${_stowage_plugin_api_libs})
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${_stowage_plugin_api_list})
endfunction()
