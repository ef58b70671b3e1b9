package main

// Dynamic resource allocation for the DRA shapes (bench/workloads.yaml, sets "dra" and
// "dra-small"): scheduler_perf's dra/performance-config.yaml at v1.37.2; and for the extended
// resource shapes (sets "dra-extended", "dra-extended-small", "dra-extended-5k"):
// dra/extendedresource/performance-config.yaml and its scoring/ (deviceClasses, indexedResource
// below; the scoring shape's scheduler-config.yaml is the workload's schedulerConfig).
//
//   - nodes 0..dra.nodesWithDRA-1 carry the node-with-dra label (node-with-dra-test-driver.yaml)
//     and each gets ResourceSlice resourceslice-<i> of driver test-driver.cdi.k8s.io, pool
//     resourceslice-<i>, with dra.devicesPerNode devices basic-device-<k>, attributes and
//     capacity as templates/resourceslice-basic-devices.yaml (SliceAt); upstream names its DRA
//     nodes scheduler-perf-dra-<i>, here they keep the driver's scheduler-perf-NNNNN names;
//   - dra.deviceClass (templates/deviceclass.yaml), dra.claim (resourceclaim.yaml) and
//     dra.claimTemplate (resourceclaimtemplate.yaml) are JSON merge patches over empty objects;
//   - dra.allocatedClaims: upstream's initClaims claims <claim>-<k> in sched-init, created and
//     then allocated without a pod (upstream's allocResourceClaims op). Upstream runs the
//     structured allocator with the nodes shuffled; the driver writes the same kind of result
//     deterministically instead (InitClaimAt): claim k takes device k/nodesWithDRA of node
//     k%nodesWithDRA, so the init claims fill every node evenly, each device once, with the
//     node selector the allocator writes and reservedFor empty;
//   - dra.podsPerClaim (pod-with-claim-ref.yaml): pod i of a namespace refers to claim
//     <claim>-<i/podsPerClaim> of it, created unallocated during set-up for every pod whose
//     template refers to the claim by name;
//   - pods whose template names dra.claimTemplate (pod-with-claim-template.yaml) get their
//     claims from kube-controller-manager's resourceclaim controller
//     (dra.resourceClaimController), run beside the cluster as the volumes shapes run the PV
//     binder; the template is created in every namespace of the run;
//   - dra.deviceClasses (upstream's classes param of the ExtendedResource shapes,
//     dra/extendedresource/performance-config.yaml and scoring/): that many classes are made
//     from dra.deviceClass, class k named <name>-<k> (deviceclass-extended-resource*.yaml);
//   - dra.indexedResource R (pod-with-extended-resource.yaml): pod i's requests and limits of R
//     become R-<i mod deviceClasses>, and a class whose extendedResourceName is R gets R-<k>.
//     With R = example.com/gpu that is upstream's explicit variant; with R =
//     deviceclass.resource.kubernetes.io/<class name> its implicit one (the classes then name
//     no extended resource). Pods asking for an extended resource that a class backs and no
//     node advertises get their claim from the scheduler itself, at PreBind, so set-up makes
//     none; the ExtendedResourceScoring shape requests one name all classes share, unindexed.
//
// Everything is created during set-up on the driver's unthrottled client before the scheduler
// starts, so the measured phase creates pods only. Every run has a fresh cluster, so no slice,
// class or claim outlives its run. At the end of the run every pod with claims must have each
// claim allocated on its node and reserved for it, and no device may be allocated twice
// (dra_run.go).

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

// DRASpec is the dra field of a workload.
type DRASpec struct {
	// NodesWithDRA: nodes 0..N-1 get a ResourceSlice (the others, if any, none).
	NodesWithDRA int `json:"nodesWithDRA"`
	// DevicesPerNode (upstream's numDevices) and PCIRoots (numPCIRoots, default 2).
	DevicesPerNode int `json:"devicesPerNode"`
	PCIRoots       int `json:"pciRoots,omitempty"`
	// DeviceClass, Claim and ClaimTemplate are merge patches over empty objects.
	DeviceClass   map[string]any `json:"deviceClass"`
	Claim         map[string]any `json:"claim,omitempty"`
	ClaimTemplate map[string]any `json:"claimTemplate,omitempty"`
	// AllocatedClaims are claims <claim>-<k> in sched-init, allocated during set-up.
	AllocatedClaims int `json:"allocatedClaims,omitempty"`
	// PodsPerClaim: pod i referring to the claim by name uses <claim>-<i/PodsPerClaim>.
	PodsPerClaim int `json:"podsPerClaim,omitempty"`
	// ResourceClaimController runs kube-controller-manager's resourceclaim controller.
	ResourceClaimController bool `json:"resourceClaimController,omitempty"`
	// DeviceClasses: that many classes <name>-<k> from DeviceClass (0: one, named as it is).
	DeviceClasses int `json:"deviceClasses,omitempty"`
	// IndexedResource: pod i's requests of it become <it>-<i mod DeviceClasses>, and so does
	// class k's extendedResourceName if it names it.
	IndexedResource v1.ResourceName `json:"indexedResource,omitempty"`
}

const (
	draDriver  = "test-driver.cdi.k8s.io"
	draNodeKey = "node-with-dra"
	defaultDC  = `{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{},"spec":{}}`
	defaultRC  = `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{},"spec":{}}`
	defaultRCT = `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{},"spec":{}}`
)

// checkDRA validates the dra field of a workload (what needs the templates is checked in
// decodeDRATemplates).
func (w *Workload) checkDRA() error {
	d := w.DRA
	if d == nil {
		return nil
	}
	switch {
	case d.NodesWithDRA < 1 || d.NodesWithDRA > w.Nodes:
		return fmt.Errorf("dra.nodesWithDRA must be between 1 and nodes")
	case d.DevicesPerNode < 1 || d.PCIRoots < 0:
		return fmt.Errorf("dra.devicesPerNode must be at least 1, dra.pciRoots not negative")
	case d.DeviceClass == nil:
		return fmt.Errorf("dra.deviceClass must be set")
	case (d.AllocatedClaims > 0 || d.PodsPerClaim > 0) && d.Claim == nil:
		return fmt.Errorf("dra.allocatedClaims and dra.podsPerClaim need dra.claim")
	case d.AllocatedClaims < 0 || d.PodsPerClaim < 0:
		return fmt.Errorf("dra.allocatedClaims and dra.podsPerClaim must not be negative")
	case d.AllocatedClaims > d.NodesWithDRA*d.DevicesPerNode:
		return fmt.Errorf("dra.allocatedClaims (%d) exceeds the devices (%d)", d.AllocatedClaims,
			d.NodesWithDRA*d.DevicesPerNode)
	case d.ClaimTemplate != nil && !d.ResourceClaimController:
		return fmt.Errorf("dra.claimTemplate needs dra.resourceClaimController (it makes the pods' claims)")
	case d.DeviceClasses < 0:
		return fmt.Errorf("dra.deviceClasses must not be negative")
	case d.IndexedResource != "" && d.DeviceClasses < 1:
		return fmt.Errorf("dra.indexedResource needs dra.deviceClasses (the index is modulo the classes)")
	case w.Volumes != nil:
		return fmt.Errorf("dra and volumes exclude each other")
	}
	return nil
}

// decodeDRATemplates fills the class, claim and claim template of t and checks that the pod
// templates refer to them.
func (w *Workload) decodeDRATemplates(t *Templates) error {
	d := w.DRA
	if d == nil {
		return nil
	}
	t.DeviceClass = &resourceapi.DeviceClass{}
	if err := decodeTemplate(defaultDC, d.DeviceClass, t.DeviceClass); err != nil {
		return fmt.Errorf("workload %q: dra.deviceClass: %w", w.Name, err)
	}
	if d.Claim != nil {
		t.Claim = &resourceapi.ResourceClaim{}
		if err := decodeTemplate(defaultRC, d.Claim, t.Claim); err != nil {
			return fmt.Errorf("workload %q: dra.claim: %w", w.Name, err)
		}
		if t.Claim.Name == "" {
			return fmt.Errorf("workload %q: dra.claim has no name", w.Name)
		}
		perNode := (d.AllocatedClaims + d.NodesWithDRA - 1) / d.NodesWithDRA
		if n := len(t.Claim.Spec.Devices.Requests); perNode*n > d.DevicesPerNode {
			return fmt.Errorf("workload %q: dra.allocatedClaims of %d requests each do not fit %d devices per node",
				w.Name, n, d.DevicesPerNode)
		}
	}
	if d.ClaimTemplate != nil {
		t.ClaimTemplate = &resourceapi.ResourceClaimTemplate{}
		if err := decodeTemplate(defaultRCT, d.ClaimTemplate, t.ClaimTemplate); err != nil {
			return fmt.Errorf("workload %q: dra.claimTemplate: %w", w.Name, err)
		}
		if t.ClaimTemplate.Name == "" {
			return fmt.Errorf("workload %q: dra.claimTemplate has no name", w.Name)
		}
	}
	if t.DeviceClass.Name == "" {
		return fmt.Errorf("workload %q: dra.deviceClass has no name", w.Name)
	}
	indexed := false
	for k, p := range append([]*v1.Pod{t.Pod}, t.InitPods...) {
		indexed = indexed || requests(p, d.IndexedResource)
		for _, c := range p.Spec.ResourceClaims {
			switch {
			case c.ResourceClaimName != nil && (d.PodsPerClaim == 0 || *c.ResourceClaimName != claimName(t)):
				return fmt.Errorf("workload %q: pod template %d refers to claim %q: needs dra.podsPerClaim "+
					"and dra.claim of that name", w.Name, k, *c.ResourceClaimName)
			case c.ResourceClaimName != nil && k > 0 && d.AllocatedClaims > 0:
				return fmt.Errorf("workload %q: init pods referring to claims and dra.allocatedClaims "+
					"exclude each other (both are <claim>-<i> in %s)", w.Name, initNS)
			case c.ResourceClaimTemplateName != nil && *c.ResourceClaimTemplateName != templateName(t):
				return fmt.Errorf("workload %q: pod template %d refers to claim template %q: needs "+
					"dra.claimTemplate of that name", w.Name, k, *c.ResourceClaimTemplateName)
			}
		}
	}
	if d.IndexedResource != "" && !indexed {
		return fmt.Errorf("workload %q: no pod template requests dra.indexedResource %s", w.Name, d.IndexedResource)
	}
	return nil
}

// requests reports whether a container of p requests or limits r.
func requests(p *v1.Pod, r v1.ResourceName) bool {
	for _, c := range append(slices.Clone(p.Spec.InitContainers), p.Spec.Containers...) {
		if _, ok := c.Resources.Requests[r]; ok {
			return true
		}
		if _, ok := c.Resources.Limits[r]; ok {
			return true
		}
	}
	return false
}

// IndexedName is r-<k>, the name of r for pod or class k.
func IndexedName(r v1.ResourceName, k int) v1.ResourceName {
	return v1.ResourceName(fmt.Sprintf("%s-%d", r, k))
}

// DeviceClassCount is how many classes set-up creates.
func (d *DRASpec) DeviceClassCount() int { return max(d.DeviceClasses, 1) }

// DeviceClassAt is class k: the template as it is without dra.deviceClasses, else named
// <name>-<k> and, if its extendedResourceName is dra.indexedResource, naming <that>-<k>
// (deviceclass-extended-resource.yaml, deviceclass-extended-resource-scoring.yaml).
func (d *DRASpec) DeviceClassAt(t Templates, k int) *resourceapi.DeviceClass {
	c := t.DeviceClass.DeepCopy()
	if d.DeviceClasses == 0 {
		return c
	}
	c.Name = fmt.Sprintf("%s-%d", c.Name, k)
	if e := c.Spec.ExtendedResourceName; e != nil && d.IndexedResource != "" && *e == string(d.IndexedResource) {
		c.Spec.ExtendedResourceName = ptr.To(string(IndexedName(d.IndexedResource, k)))
	}
	return c
}

// WithIndexedResource renames pod i's requests and limits of dra.indexedResource to
// <it>-<i mod deviceClasses> (pod-with-extended-resource.yaml's {{Mod .Index .classes}}).
func (d *DRASpec) WithIndexedResource(p *v1.Pod, i int) {
	to := IndexedName(d.IndexedResource, i%d.DeviceClasses)
	for _, cs := range [][]v1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for k := range cs {
			for _, l := range []v1.ResourceList{cs[k].Resources.Requests, cs[k].Resources.Limits} {
				if q, ok := l[d.IndexedResource]; ok {
					delete(l, d.IndexedResource)
					l[to] = q
				}
			}
		}
	}
}

func claimName(t *Templates) string {
	if t.Claim == nil {
		return ""
	}
	return t.Claim.Name
}

func templateName(t *Templates) string {
	if t.ClaimTemplate == nil {
		return ""
	}
	return t.ClaimTemplate.Name
}

// refersToClaim reports whether pods of template p name a claim (pod-with-claim-ref.yaml).
func refersToClaim(p *v1.Pod) bool {
	for _, c := range p.Spec.ResourceClaims {
		if c.ResourceClaimName != nil {
			return true
		}
	}
	return false
}

// usesClaimTemplate reports whether pods of template p get claims from a template.
func usesClaimTemplate(p *v1.Pod) bool {
	for _, c := range p.Spec.ResourceClaims {
		if c.ResourceClaimTemplateName != nil {
			return true
		}
	}
	return false
}

// WithClaimRef points pod i's claims by name at <name>-<i/podsPerClaim>.
func (d *DRASpec) WithClaimRef(p *v1.Pod, i int) {
	for k := range p.Spec.ResourceClaims {
		if c := &p.Spec.ResourceClaims[k]; c.ResourceClaimName != nil {
			c.ResourceClaimName = ptr.To(SharedClaimName(*c.ResourceClaimName, i/d.PodsPerClaim))
		}
	}
}

// SharedClaimName is claim k of a namespace.
func SharedClaimName(base string, k int) string { return fmt.Sprintf("%s-%d", base, k) }

// SliceName is the ResourceSlice (and pool) of DRA node i.
func SliceName(i int) string { return fmt.Sprintf("resourceslice-%d", i) }

// SliceAt is templates/resourceslice-basic-devices.yaml for DRA node i named node.
func (d *DRASpec) SliceAt(node string, i int) *resourceapi.ResourceSlice {
	roots := d.PCIRoots
	if roots == 0 {
		roots = 2
	}
	s := &resourceapi.ResourceSlice{}
	s.Name = SliceName(i)
	s.Spec = resourceapi.ResourceSliceSpec{Driver: draDriver, NodeName: ptr.To(node),
		Pool: resourceapi.ResourcePool{Name: SliceName(i), Generation: 1, ResourceSliceCount: 1}}
	str := func(v string) resourceapi.DeviceAttribute { return resourceapi.DeviceAttribute{StringValue: &v} }
	for k := 0; k < d.DevicesPerNode; k++ {
		root, addr := fmt.Sprint(k%roots), fmt.Sprintf("0000:0%d:00.0", k)
		s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{
			Name: fmt.Sprintf("basic-device-%d", k),
			Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
				"driver":                          str("xe"),
				"driverVersion":                   {VersionValue: ptr.To("1.2.3")},
				"resource.k8s.io/pciRoot":         str(root),
				"family":                          str("Arc Pro B-Series"),
				"health":                          str("Healthy"),
				"model":                           str("B60"),
				"pciAddress":                      str(addr),
				"pciId":                           str("0xe211"),
				"pciRoot":                         str("0" + root),
				"resource.kubernetes.io/pciBusID": str(addr),
				"resource.kubernetes.io/pciRoot":  str("pci0000:0" + root),
				"sriov":                           {BoolValue: ptr.To(true)},
				"type":                            str("gpu"),
			},
			Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
				"memory":     {Value: resource.MustParse("24480Mi")},
				"millicores": {Value: resource.MustParse("1k")},
			},
		})
	}
	return s
}

// Allocation is what the structured allocator writes for devices of one node-local pool: one
// result per request, in order, and the node selector of the slice's node.
func Allocation(claim *resourceapi.ResourceClaim, node, pool string, devices []string) *resourceapi.AllocationResult {
	a := &resourceapi.AllocationResult{NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn,
			Values: []string{node}}}}}}}
	for k, r := range claim.Spec.Devices.Requests {
		a.Devices.Results = append(a.Devices.Results, resourceapi.DeviceRequestAllocationResult{
			Request: r.Name, Driver: draDriver, Pool: pool, Device: devices[k]})
	}
	return a
}

// InitClaimAt is allocated init claim k (dra.allocatedClaims), written deterministically
// instead of by upstream's allocator: claim k goes to DRA node j = k%nodesWithDRA and its n
// requests take devices (k/nodesWithDRA)*n .. +n-1 of that node, so the init claims fill the
// nodes evenly and no device is taken twice. reservedFor stays empty, as upstream's.
func (w *Workload) InitClaimAt(t Templates, k int) *resourceapi.ResourceClaim {
	d := w.DRA
	c := t.Claim.DeepCopy()
	c.Name, c.Namespace = SharedClaimName(t.Claim.Name, k), initNS
	n := len(c.Spec.Devices.Requests)
	node := k % d.NodesWithDRA
	devices := make([]string, n)
	for r := range devices {
		devices[r] = fmt.Sprintf("basic-device-%d", (k/d.NodesWithDRA)*n+r)
	}
	c.Status.Allocation = Allocation(c, w.NodeAt(t, node).Name, SliceName(node), devices)
	return c
}

// SharedClaimsIn is how many claims by name a namespace needs for its pods 0..pods-1.
func (d *DRASpec) SharedClaimsIn(pods int) int {
	return (pods + d.PodsPerClaim - 1) / d.PodsPerClaim
}
