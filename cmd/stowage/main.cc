// stowage: a Kubernetes scheduler, a drop-in for kube-scheduler 1.37 (cf. upstream's
// cmd/kube-scheduler/scheduler.go). The command itself is app::Run, which custom schedulers call
// with their own plugins.
#include "stowage/app/run.h"

int main(int argc, char** argv) { return stowage::app::Run(argc, argv); }
