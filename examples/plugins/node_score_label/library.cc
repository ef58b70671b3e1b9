// The plugin library: `stowage --plugin-library=/path/to/node_score_label.so` runs the registration
// function a custom binary passes to app::Run, after checking the library's ABI tag.
#include "node_score_label.h"
#include "stowage/framework/plugin_library.h"

STOWAGE_PLUGIN_LIBRARY(example::RegisterNodeScoreLabel)
