// Package e2e is a slim build of upstream's e2e suite: of the spec packages it
// imports only test/e2e/scheduling (the suite setup brings test/e2e/common's
// along), so it builds in a fraction of the full e2e.test's time while running
// those specs unmodified.
package e2e

import (
	"flag"
	"os"
	"testing"

	"k8s.io/kubernetes/test/e2e"
	"k8s.io/kubernetes/test/e2e/framework"
	"k8s.io/kubernetes/test/e2e/framework/config"

	// The specs under test, and the framework hooks the full suite installs.
	_ "k8s.io/kubernetes/test/e2e/framework/debug/init"
	_ "k8s.io/kubernetes/test/e2e/framework/node/init"
	_ "k8s.io/kubernetes/test/e2e/scheduling"
)

// TestMain registers the same flags as upstream's e2e.test, so the runner can
// pass the usual --kubeconfig, --provider and --ginkgo.* flags.
func TestMain(m *testing.M) {
	config.CopyFlags(config.Flags, flag.CommandLine)
	framework.RegisterCommonFlags(flag.CommandLine)
	framework.RegisterClusterFlags(flag.CommandLine)
	flag.Parse()
	framework.AfterReadingAllFlags(&framework.TestContext)
	os.Exit(m.Run())
}

func TestE2E(t *testing.T) { e2e.RunE2ETests(t) }
