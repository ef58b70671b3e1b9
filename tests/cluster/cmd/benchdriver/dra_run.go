package main

// The DRA shapes in a run (dra.go): set-up, kube-controller-manager beside the cluster, the
// backlog mode's wait for the pods' claims, and the check at the end of a run that every pod
// with claims got them allocated on its node and reserved for it.

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
)

// Controllers are the kube-controller-manager controllers the workload runs beside the cluster.
func (w *Workload) Controllers() []string {
	var c []string
	if w.Volumes != nil && w.Volumes.PVController {
		c = append(c, "persistentvolume-binder-controller")
	}
	if w.DRA != nil && w.DRA.ResourceClaimController {
		c = append(c, "resourceclaim-controller") // testcluster's DRAControllers
	}
	return c
}

// startControllers starts kube-controller-manager with the workload's controllers, if any.
func (x *runner) startControllers() error {
	controllers := x.w.Controllers()
	if len(controllers) == 0 {
		return nil
	}
	if x.env.ControllerManager == "" {
		return fmt.Errorf("%s needs kube-controller-manager (-kube-controller-manager)", strings.Join(controllers, ","))
	}
	log := filepath.Join(x.env.LogDir, fmt.Sprintf("%s-%s-%d.kube-controller-manager.log", x.w.Slug(), x.spec.Name, x.r.Run))
	var err error
	x.kcm, err = StartChild("kube-controller-manager", x.env.ControllerManager,
		controllerArgs(x.cl.Kubeconfig, controllers), log)
	return err
}

// createResourceClaim creates c and then writes its allocation, if it has one (creation drops
// the status). A claim that already exists (an earlier attempt landed) is read back.
func createResourceClaim(ctx context.Context, cs kubernetes.Interface, c *resourceapi.ResourceClaim) error {
	api := cs.ResourceV1().ResourceClaims(c.Namespace)
	got, err := api.Create(ctx, c, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		got, err = api.Get(ctx, c.Name, metav1.GetOptions{})
	}
	if err != nil || c.Status.Allocation == nil || got.Status.Allocation != nil {
		return err
	}
	got.Status.Allocation = c.Status.Allocation
	_, err = api.UpdateStatus(ctx, got, metav1.UpdateOptions{})
	return err
}

// DRASetup creates the slices, the classes, the claim templates, the allocated init claims and
// the claims pods refer to by name, and returns how long the slices and claims took.
func DRASetup(ctx context.Context, cs kubernetes.Interface, w *Workload, t Templates) (CreateResult, error) {
	var total CreateResult
	d := w.DRA
	if d == nil {
		return total, nil
	}
	start := time.Now()
	add := func(res CreateResult, err error) error { total.Count += res.Count; return err }
	if err := add(parallelCreate(ctx, d.NodesWithDRA, "resourceslice", func(ctx context.Context, i int) error {
		_, err := cs.ResourceV1().ResourceSlices().Create(ctx, d.SliceAt(w.NodeAt(t, i).Name, i), metav1.CreateOptions{})
		return err
	})); err != nil {
		return total, err
	}
	for k := 0; k < d.DeviceClassCount(); k++ {
		dc := d.DeviceClassAt(t, k)
		if _, err := cs.ResourceV1().DeviceClasses().Create(ctx, dc, metav1.CreateOptions{}); err != nil &&
			!apierrors.IsAlreadyExists(err) {
			return total, fmt.Errorf("creating deviceclass %s: %w", dc.Name, err)
		}
	}
	nss := append(w.InitNamespaceNames(), measureNS)
	for _, ns := range nss {
		if t.ClaimTemplate == nil {
			break
		}
		rct := t.ClaimTemplate.DeepCopy()
		rct.Namespace = ns
		if _, err := cs.ResourceV1().ResourceClaimTemplates(ns).Create(ctx, rct, metav1.CreateOptions{}); err != nil &&
			!apierrors.IsAlreadyExists(err) {
			return total, fmt.Errorf("creating resourceclaimtemplate %s/%s: %w", ns, rct.Name, err)
		}
	}
	if err := add(parallelCreate(ctx, d.AllocatedClaims, "allocated resourceclaim in "+initNS,
		func(ctx context.Context, k int) error { return createResourceClaim(ctx, cs, w.InitClaimAt(t, k)) })); err != nil {
		return total, err
	}
	// Claims by name: for every namespace whose pods' template refers to one.
	initRefs := slices.ContainsFunc(t.InitPods, refersToClaim)
	for _, ns := range nss {
		pods := w.MeasurePods
		if ns != measureNS {
			if !initRefs {
				continue
			}
			pods = w.TotalInitPods() / len(w.InitNamespaceNames())
		} else if !refersToClaim(t.Pod) {
			continue
		}
		if err := add(parallelCreate(ctx, d.SharedClaimsIn(pods), "resourceclaim in "+ns, func(ctx context.Context, k int) error {
			c := t.Claim.DeepCopy()
			c.Name, c.Namespace = SharedClaimName(t.Claim.Name, k), ns
			return createResourceClaim(ctx, cs, c)
		})); err != nil {
			return total, err
		}
	}
	total.Seconds = time.Since(start).Seconds()
	return total, nil
}

// waitPodClaims (backlog mode) waits until the resourceclaim controller has made the claims of
// every measured pod whose template uses a claim template and recorded them in the pod's
// status, so that the scheduler starts on a backlog of pods that can all be scheduled.
func (x *runner) waitPodClaims(ctx context.Context) error {
	if x.w.DRA == nil || !usesClaimTemplate(x.t.Pod) {
		return nil
	}
	want := 0 // the resourceclaim controller records only the claims it makes
	for _, c := range x.t.Pod.Spec.ResourceClaims {
		if c.ResourceClaimTemplateName != nil {
			want++
		}
	}
	lister := x.col.factory.Core().V1().Pods().Lister().Pods(measureNS)
	ready := 0
	err := waitFor(ctx, x.timeout, "waiting for the measured pods' claims (resourceclaim controller)", func() (bool, error) {
		if x.kcm != nil && !x.kcm.Alive() {
			return false, x.kcm.ExitError()
		}
		pods, err := lister.List(labels.Everything())
		if err != nil {
			return false, err
		}
		ready = 0
		for _, p := range pods {
			if len(p.Status.ResourceClaimStatuses) >= want {
				ready++
			}
		}
		return ready >= x.w.MeasurePods, nil
	})
	if err != nil {
		return fmt.Errorf("%w (%d/%d pods have their claims)", err, ready, x.w.MeasurePods)
	}
	return nil
}

// verifyClaims checks, once every pod is bound, what a scheduler must have written for each
// pod with claims in the run's namespaces (VerifyClaims).
func (x *runner) verifyClaims() error {
	if x.w.DRA == nil {
		return nil
	}
	if err := VerifyClaims(x.ctx, x.cl.Client, append(x.w.InitNamespaceNames(), measureNS)); err != nil {
		return fmt.Errorf("after the measured phase: %w", err)
	}
	return nil
}

// VerifyClaims checks that every pod with claims in nss is bound and that each of its claims
// is allocated on the pod's node (node selector and the devices' slices) and reserved for the
// pod, and that no device of the cluster is allocated to two claims. A pod requesting
// extended resources that a DeviceClass backs must name in its status the claim the scheduler
// made for them (checkExtendedClaim).
func VerifyClaims(ctx context.Context, cs kubernetes.Interface, nss []string) error {
	sl, err := cs.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing resourceslices: %w", err)
	}
	poolNode := map[string]string{}
	for _, s := range sl.Items {
		if s.Spec.NodeName != nil {
			poolNode[s.Spec.Driver+"/"+s.Spec.Pool.Name] = *s.Spec.NodeName
		}
	}
	cl, err := cs.ResourceV1().ResourceClaims("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing resourceclaims: %w", err)
	}
	claims, owner := map[string]*resourceapi.ResourceClaim{}, map[string]string{}
	var problems []string
	for i := range cl.Items {
		c := &cl.Items[i]
		claims[c.Namespace+"/"+c.Name] = c
		if c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			dev := r.Driver + "/" + r.Pool + "/" + r.Device
			if o, ok := owner[dev]; ok {
				problems = append(problems, fmt.Sprintf("device %s allocated to both %s and %s/%s", dev, o, c.Namespace, c.Name))
			}
			owner[dev] = c.Namespace + "/" + c.Name
		}
	}
	dcl, err := cs.ResourceV1().DeviceClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing deviceclasses: %w", err)
	}
	backed := map[v1.ResourceName]bool{} // extended resources a class backs, explicitly or not
	for _, c := range dcl.Items {
		backed[v1.ResourceName(resourceapi.ResourceDeviceClassPrefix+c.Name)] = true
		if c.Spec.ExtendedResourceName != nil {
			backed[v1.ResourceName(*c.Spec.ExtendedResourceName)] = true
		}
	}
	checked := 0
	for _, ns := range nss {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("listing pods of %s: %w", ns, err)
		}
		for i := range pods.Items {
			p := &pods.Items[i]
			for _, pc := range p.Spec.ResourceClaims {
				checked++
				if msg := checkPodClaim(p, pc, claims, poolNode); msg != "" {
					problems = append(problems, fmt.Sprintf("pod %s/%s: %s", p.Namespace, p.Name, msg))
				}
			}
			if devices := backedDevices(p, backed); devices > 0 || p.Status.ExtendedResourceClaimStatus != nil {
				checked++
				if msg := checkExtendedClaim(p, devices, claims, poolNode); msg != "" {
					problems = append(problems, fmt.Sprintf("pod %s/%s: %s", p.Namespace, p.Name, msg))
				}
			}
		}
	}
	if n := len(problems); n > 0 {
		more := ""
		if n > 5 {
			more = fmt.Sprintf("; and %d more", n-5)
			problems = problems[:5]
		}
		return fmt.Errorf("%d problems with the pods' %d resource claims: %s%s", n, checked,
			strings.Join(problems, "; "), more)
	}
	return nil
}

// checkPodClaim is "" when the pod's claim pc is allocated on its node and reserved for it.
func checkPodClaim(p *v1.Pod, pc v1.PodResourceClaim, claims map[string]*resourceapi.ResourceClaim,
	poolNode map[string]string) string {
	name := pc.ResourceClaimName
	if name == nil {
		for _, st := range p.Status.ResourceClaimStatuses {
			if st.Name == pc.Name {
				name = st.ResourceClaimName
			}
		}
	}
	if name == nil {
		return fmt.Sprintf("claim %q has no ResourceClaim in the pod's status", pc.Name)
	}
	return checkClaimOn(p, *name, claims, poolNode)
}

// backedDevices is how many devices the pod's containers request of extended resources that
// a DeviceClass backs (the benchmark's nodes advertise none, so DRA must provide them all).
// Init containers are not counted: the shapes' pods have none.
func backedDevices(p *v1.Pod, backed map[v1.ResourceName]bool) int64 {
	var n int64
	for _, c := range p.Spec.Containers {
		for r, q := range c.Resources.Requests {
			if backed[r] {
				n += q.Value()
			}
		}
	}
	return n
}

// checkExtendedClaim is "" when the claim the scheduler made for the pod's extended resources
// (named in status.extendedResourceClaimStatus) carries the annotation, holds one device per
// unit requested, and is allocated on the pod's node and reserved for it.
func checkExtendedClaim(p *v1.Pod, devices int64, claims map[string]*resourceapi.ResourceClaim,
	poolNode map[string]string) string {
	st := p.Status.ExtendedResourceClaimStatus
	if st == nil || st.ResourceClaimName == "" {
		return fmt.Sprintf("requests %d devices as extended resources, status.extendedResourceClaimStatus names no claim", devices)
	}
	if msg := checkClaimOn(p, st.ResourceClaimName, claims, poolNode); msg != "" {
		return msg
	}
	c := claims[p.Namespace+"/"+st.ResourceClaimName]
	if got := int64(len(c.Status.Allocation.Devices.Results)); got != devices {
		return fmt.Sprintf("claim %s has %d devices for the %d requested", c.Name, got, devices)
	}
	if c.Annotations[resourceapi.ExtendedResourceClaimAnnotation] != "true" {
		return fmt.Sprintf("claim %s lacks annotation %s", c.Name, resourceapi.ExtendedResourceClaimAnnotation)
	}
	return ""
}

// checkClaimOn is "" when claim name of the pod's namespace is allocated on its node and
// reserved for it.
func checkClaimOn(p *v1.Pod, name string, claims map[string]*resourceapi.ResourceClaim,
	poolNode map[string]string) string {
	c := claims[p.Namespace+"/"+name]
	switch {
	case p.Spec.NodeName == "":
		return "not bound"
	case c == nil:
		return fmt.Sprintf("claim %s does not exist", name)
	case c.Status.Allocation == nil:
		return fmt.Sprintf("claim %s is not allocated", name)
	case !slices.ContainsFunc(c.Status.ReservedFor, func(r resourceapi.ResourceClaimConsumerReference) bool {
		return r.Resource == "pods" && r.Name == p.Name && r.UID == p.UID
	}):
		return fmt.Sprintf("claim %s is not reserved for the pod", name)
	}
	ns := c.Status.Allocation.NodeSelector
	if ns == nil || len(ns.NodeSelectorTerms) != 1 || len(ns.NodeSelectorTerms[0].MatchFields) != 1 ||
		!slices.Equal(ns.NodeSelectorTerms[0].MatchFields[0].Values, []string{p.Spec.NodeName}) {
		return fmt.Sprintf("claim %s's node selector %v does not select the pod's node %s", name, ns, p.Spec.NodeName)
	}
	for _, r := range c.Status.Allocation.Devices.Results {
		if n := poolNode[r.Driver+"/"+r.Pool]; n != p.Spec.NodeName {
			return fmt.Sprintf("claim %s has device %s of pool %s on node %q, the pod is on %s", name,
				r.Device, r.Pool, n, p.Spec.NodeName)
		}
	}
	return ""
}
