// A scheduler with every flag, the configuration, serving, leader election, metrics and the
// sandbox of stowage, plus ExamplePlugin.
#include "random_score.h"
#include "stowage/app/run.h"

int main(int argc, char** argv) {
  return stowage::app::Run(argc, argv, {example::RegisterExamplePlugin});
}
