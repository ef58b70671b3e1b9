// A scheduler with every flag, the configuration, serving, leader election, metrics and the
// sandbox of stowage, plus sample-plugin.
#include "sample.h"
#include "stowage/app/run.h"

int main(int argc, char** argv) { return stowage::app::Run(argc, argv, {example::RegisterSample}); }
