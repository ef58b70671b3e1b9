// The table lives in extension_point.h as constants; this file gives the target a translation
// unit and checks the header compiles on its own.
#include "stowage/plugin_config/extension_point.h"
