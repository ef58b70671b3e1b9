// A library with the ABI tag but no registration function: the loader must refuse it.
#include "stowage/framework/plugin_library.h"

extern "C" __attribute__((visibility("default"))) const char stowage_plugin_abi_tag[] =
    STOWAGE_PLUGIN_ABI_TAG;
