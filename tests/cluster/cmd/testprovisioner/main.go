// Command testprovisioner is a dynamic volume provisioner for the test cluster, built on
// sigs.k8s.io/sig-storage-lib-external-provisioner. For every claim of a StorageClass whose
// provisioner is -name (default stowage.dev/test-provisioner) it creates a PersistentVolume of
// the claim's requested size whose source is a fake hostPath directory under -root (created,
// never mounted: the test cluster has no kubelet). A claim of a WaitForFirstConsumer class gets
// a volume with node affinity kubernetes.io/hostname In [<selected node>], the node the
// scheduler wrote in the claim's volume.kubernetes.io/selected-node annotation; the class's
// allowedTopologies are honoured. A released volume with reclaim policy Delete has its
// directory removed and the PV deleted.
//
// It needs the PV binder controller (kube-controller-manager --controllers=
// persistentvolume-binder-controller), which hands claims to external provisioners and binds
// the volumes they create; `testcluster -storage` runs both.
//
// Usage: testprovisioner -kubeconfig FILE -root DIR [-name NAME] [-v N]
// It runs without leader election and serves nothing; SIGTERM or SIGINT stops it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v13/controller"
)

// DefaultName is the provisioner name the test cluster's StorageClasses use.
const DefaultName = "stowage.dev/test-provisioner"

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the cluster")
	root := flag.String("root", "", "directory under which the fake volumes' directories are made")
	name := flag.String("name", DefaultName, "provisioner name (a StorageClass's provisioner field)")
	klog.InitFlags(nil)
	flag.Parse()
	if err := run(*kubeconfig, *root, *name); err != nil {
		fmt.Fprintln(os.Stderr, "testprovisioner:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, root, name string) error {
	if kubeconfig == "" || root == "" {
		return errors.New("-kubeconfig and -root are required")
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cfg.UserAgent = "testprovisioner"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	p := &Provisioner{Root: root, GetNode: func(ctx context.Context, n string) (*v1.Node, error) {
		return client.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{})
	}}
	pc := controller.NewProvisionController(ctx, client, name, p,
		controller.LeaderElection(false),
		// Retries after a failure (a selected node not created yet, for instance) come within
		// seconds, not after the library's 15 s, and never stop (threshold 0).
		controller.RateLimiter(workqueue.NewTypedItemExponentialFailureRateLimiter[string](
			250*time.Millisecond, 5*time.Second)),
		controller.FailedProvisionThreshold(0), controller.FailedDeleteThreshold(0))
	klog.FromContext(ctx).Info("testprovisioner running", "name", name, "root", root)
	pc.Run(ctx)
	return nil
}
