// The plugin library: `stowage --plugin-library=/path/to/random_score.so` runs the registration
// function a custom binary passes to app::Run, after checking the library's ABI tag.
#include "random_score.h"
#include "stowage/framework/plugin_library.h"

STOWAGE_PLUGIN_LIBRARY(example::RegisterExamplePlugin)
