// Command testdradriver is the test cluster's DRA driver gpu.example.com (testcluster -dra). It
// has no kubelet plugin, and the test cluster has no kubelets: it only publishes what a real
// driver's kubelet plugin would, for every Node object, and creates the DeviceClasses.
//
// On start it creates (or updates) the DeviceClasses gpu.example.com and
// extended-gpu.example.com (the latter maps the extended resource example.com/gpu to the
// driver's devices), then watches Nodes and its own ResourceSlices: each node gets its pool of
// ResourceSlices (devices.go), written again only when their content differs (or one was
// deleted by someone else), and a deleted node's slices are deleted, as are slices of nodes
// that no longer exist when the driver starts. It logs to stderr and stops on SIGTERM or
// SIGINT.
//
// Usage: testdradriver -kubeconfig FILE [-qps N]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
)

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s testdradriver: %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the cluster")
	qps := flag.Float64("qps", 500, "client-side limit of API requests per second (burst: twice this)")
	flag.Parse()
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		logf("%v", err)
		os.Exit(1)
	}
	cfg.QPS, cfg.Burst = float32(*qps), int(2**qps)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, kubernetes.NewForConfigOrDie(cfg)); err != nil && ctx.Err() == nil {
		logf("%v", err)
		os.Exit(1)
	}
}

// run publishes the classes and the slices until ctx ends.
func run(ctx context.Context, cs kubernetes.Interface) error {
	for _, c := range Classes() {
		if err := applyClass(ctx, cs, c); err != nil {
			return err
		}
	}
	factory := informers.NewSharedInformerFactory(cs, 0)
	nodes := factory.Core().V1().Nodes()
	// Only this driver's slices: their lister replaces a GET per slice and node.
	sliceFactory := informers.NewSharedInformerFactoryWithOptions(cs, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector(resourceapi.ResourceSliceSelectorDriver, DriverName).String()
		}))
	slices := sliceFactory.Resource().V1().ResourceSlices()
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	defer queue.ShutDown()
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			queue.Add(key)
		}
	}
	if _, err := nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, DeleteFunc: enqueue,
		UpdateFunc: func(old, cur any) {
			if old.(*v1.Node).UID != cur.(*v1.Node).UID {
				enqueue(cur)
			}
		},
	}); err != nil {
		return err
	}
	// A slice deleted or changed by someone else is written again; at start, this also
	// queues the slices of nodes deleted while the driver was not running.
	enqueueSliceNode := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if s, ok := obj.(*resourceapi.ResourceSlice); ok && s.Spec.NodeName != nil {
			queue.Add(*s.Spec.NodeName)
		}
	}
	if _, err := slices.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueueSliceNode, DeleteFunc: enqueueSliceNode,
		UpdateFunc: func(old, cur any) {
			if old.(*resourceapi.ResourceSlice).Annotations[specHashAnnotation] !=
				cur.(*resourceapi.ResourceSlice).Annotations[specHashAnnotation] {
				enqueueSliceNode(cur)
			}
		},
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	sliceFactory.Start(ctx.Done())
	defer factory.Shutdown()
	defer sliceFactory.Shutdown()
	if !cache.WaitForCacheSync(ctx.Done(), nodes.Informer().HasSynced, slices.Informer().HasSynced) {
		return ctx.Err()
	}
	all, _ := nodes.Lister().List(labels.Everything())
	logf("publishing for %d nodes", len(all))
	for i := 0; i < 8; i++ {
		go func() {
			for work(ctx, cs, nodes.Lister(), slices.Lister(), queue) {
			}
		}()
	}
	<-ctx.Done()
	return nil
}

// work syncs one node from the queue; false once the queue shuts down.
func work(ctx context.Context, cs kubernetes.Interface, nodes corelisters.NodeLister,
	slices resourcelisters.ResourceSliceLister, queue workqueue.TypedRateLimitingInterface[string]) bool {
	name, shutdown := queue.Get()
	if shutdown {
		return false
	}
	defer queue.Done(name)
	if err := syncNode(ctx, cs, nodes, slices, name); err != nil {
		if ctx.Err() == nil {
			logf("node %s: %v (retrying)", name, err)
			queue.AddRateLimited(name)
		}
		return true
	}
	queue.Forget(name)
	return true
}

// syncNode makes the node's slices what Slices says, or deletes them if the node is gone.
func syncNode(ctx context.Context, cs kubernetes.Interface, nodes corelisters.NodeLister,
	slices resourcelisters.ResourceSliceLister, name string) error {
	api := cs.ResourceV1().ResourceSlices()
	node, err := nodes.Get(name)
	if apierrors.IsNotFound(err) {
		// Each deleted slice queues the node again: nothing left to do once they are gone.
		if gone, err := noSlices(slices, name); gone || err != nil {
			return err
		}
		sel := fields.AndSelectors(fields.OneTermEqualSelector(resourceapi.ResourceSliceSelectorDriver, DriverName),
			fields.OneTermEqualSelector(resourceapi.ResourceSliceSelectorNodeName, name))
		err := api.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{FieldSelector: sel.String()})
		if err == nil {
			logf("node %s deleted: slices deleted", name)
		}
		return err
	}
	if err != nil {
		return err
	}
	for _, want := range Slices(node) {
		have, err := slices.Get(want.Name)
		switch {
		case apierrors.IsNotFound(err):
			_, err := api.Create(ctx, want, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				// The lister lags behind our own create; the informer's add event queues the
				// node again, and that sync compares the hashes.
				continue
			} else if err != nil {
				return err
			}
			logf("node %s: created slice %s", name, want.Name)
		case err != nil:
			return err
		case have.Annotations[specHashAnnotation] != want.Annotations[specHashAnnotation] ||
			len(have.OwnerReferences) != 1 || have.OwnerReferences[0].UID != node.UID:
			want.ResourceVersion = have.ResourceVersion
			if _, err := api.Update(ctx, want, metav1.UpdateOptions{}); err != nil {
				return err
			}
			logf("node %s: updated slice %s", name, want.Name)
		}
	}
	return nil
}

// noSlices reports whether the lister has no slice of the node.
func noSlices(slices resourcelisters.ResourceSliceLister, node string) (bool, error) {
	all, err := slices.List(labels.Everything())
	if err != nil {
		return false, err
	}
	for _, s := range all {
		if s.Spec.NodeName != nil && *s.Spec.NodeName == node {
			return false, nil
		}
	}
	return true, nil
}

// applyClass creates the class or replaces its spec.
func applyClass(ctx context.Context, cs kubernetes.Interface, c *resourceapi.DeviceClass) error {
	api := cs.ResourceV1().DeviceClasses()
	have, err := api.Get(ctx, c.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = api.Create(ctx, c, metav1.CreateOptions{})
	} else if err == nil {
		have.Spec = c.Spec
		_, err = api.Update(ctx, have, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("DeviceClass %s: %w", c.Name, err)
	}
	return nil
}
