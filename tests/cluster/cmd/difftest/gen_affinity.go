package main

// The affinity profile: what InterPodAffinity and PodTopologySpread read, added to a basic
// state. Its choices come from a second random stream of the same seed, so a seed's nodes and
// pods keep every basic field in both profiles.
//
// It adds a rack label on some nodes only (a topology key some nodes lack); extra namespaces
// with labels; Services, ReplicaSets, StatefulSets and ReplicationControllers whose selectors
// pick pods by their labels, and controller references from pods to those owners, so that the
// system default spreading constraints apply; existing pods bound to nodes; and on pods
// (existing ones included) labels, required and preferred pod affinity and anti-affinity and
// topology spread constraints.

import (
	"fmt"
	"math/rand/v2"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	rackLabel = "difftest.example.com/rack" // on some nodes only
	envLabel  = "difftest.example.com/env"  // on namespaces
	appLabel  = "app"
	teamLabel = "team"
	// versionLabel appears only in matchLabelKeys and mismatchLabelKeys: the apiserver rejects
	// a key that is also in the term's labelSelector.
	versionLabel = "version"
)

var (
	extraNamespaces = []string{"difftest-a", "difftest-b", "difftest-c"}
	apps            = []string{"web", "db", "cache"}
	teams           = []string{"red", "blue"}
	versions        = []string{"v1", "v2"}
	envs            = []string{"prod", "dev"}
	affinityKeys    = []string{v1.LabelHostname, v1.LabelHostname, v1.LabelTopologyZone, v1.LabelTopologyZone, rackLabel, v1.LabelTopologyRegion}
	spreadKeys      = []string{v1.LabelHostname, v1.LabelTopologyZone, rackLabel}
	policies        = []*v1.NodeInclusionPolicy{nil, nil, ptr(v1.NodeInclusionPolicyHonor), ptr(v1.NodeInclusionPolicyIgnore)}
)

func ptr[T any](v T) *T { return &v }

// owner is a controller a pod may reference: the selector it was created with.
type owner struct {
	ref      metav1.OwnerReference // without UID: the run fills it in from the created object
	ns       string
	selector map[string]string
}

// addAffinity extends a basic state with the affinity profile.
func addAffinity(s *State) {
	r := rand.New(rand.NewPCG(s.Seed, 0xaff1))
	s.Profile = ProfileAffinity
	for i := range s.Nodes {
		if chance(r, 70) {
			zone := s.Nodes[i].Labels[v1.LabelTopologyZone]
			s.Nodes[i].Labels[rackLabel] = fmt.Sprintf("rack-%s%d", zone[len(zone)-1:], 1+r.IntN(2))
		}
	}
	nss := []string{namespace}
	s.Namespaces = []v1.Namespace{genNamespace(r, namespace)}
	for _, ns := range extraNamespaces {
		if chance(r, 70) {
			nss = append(nss, ns)
			s.Namespaces = append(s.Namespaces, genNamespace(r, ns))
		}
	}
	owners := genOwners(r, s, nss)
	for i := 0; i < len(s.Nodes)/2+r.IntN(len(s.Nodes)/2+1); i++ {
		pod := v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("existing-%02d", i)},
			Spec: v1.PodSpec{NodeName: nodeName(r.IntN(len(s.Nodes))), TerminationGracePeriodSeconds: new(int64),
				Containers: []v1.Container{{Name: "c", Image: pick(r, imagePool)}}}}
		if chance(r, 40) { // small, so that the pods still find room
			pod.Spec.Containers[0].Resources.Requests = v1.ResourceList{
				v1.ResourceCPU:    *resource.NewMilliQuantity(int64(50*(1+r.IntN(4))), resource.DecimalSI),
				v1.ResourceMemory: *resource.NewQuantity(int64(64*(1+r.IntN(4)))*mib, resource.BinarySI)}
		}
		decoratePod(r, &pod, nss, owners, true)
		s.Existing = append(s.Existing, pod)
	}
	for i := range s.Pods {
		decoratePod(r, &s.Pods[i], nss, owners, false)
	}
}

func genNamespace(r *rand.Rand, name string) v1.Namespace {
	labels := map[string]string{}
	if chance(r, 75) {
		labels[envLabel] = pick(r, envs)
	}
	if chance(r, 40) {
		labels[teamLabel] = pick(r, teams)
	}
	return v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// genSelectorLabels is an owner's or a Service's selector: an app, sometimes with a team.
func genSelectorLabels(r *rand.Rand) map[string]string {
	l := map[string]string{appLabel: pick(r, apps)}
	if chance(r, 40) {
		l[teamLabel] = pick(r, teams)
	}
	return l
}

// genOwners creates the state's Services and controllers, and returns the controllers.
func genOwners(r *rand.Rand, s *State, nss []string) []owner {
	for i := 0; i < 1+r.IntN(3); i++ {
		s.Services = append(s.Services, v1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("svc-%d", i), Namespace: pick(r, nss)},
			Spec: v1.ServiceSpec{Selector: genSelectorLabels(r), ClusterIP: v1.ClusterIPNone,
				Ports: []v1.ServicePort{{Name: "http", Port: 80}}}})
	}
	var owners []owner
	template := func(sel map[string]string) v1.PodTemplateSpec {
		return v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel},
			Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "registry.example.com/tiny:1"}}}}
	}
	add := func(apiVersion, kind, name, ns string, sel map[string]string) {
		owners = append(owners, owner{ref: metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name,
			Controller: ptr(true)}, ns: ns, selector: sel})
	}
	for i := 0; i < 1+r.IntN(2); i++ {
		ns, sel := pick(r, nss), genSelectorLabels(r)
		name := fmt.Sprintf("rs-%d", i)
		s.ReplicaSets = append(s.ReplicaSets, appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: sel}, Template: template(sel)}})
		add("apps/v1", "ReplicaSet", name, ns, sel)
	}
	for i := 0; i < r.IntN(2); i++ {
		ns, sel := pick(r, nss), genSelectorLabels(r)
		name := fmt.Sprintf("ss-%d", i)
		s.StatefulSets = append(s.StatefulSets, appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: appsv1.StatefulSetSpec{Selector: &metav1.LabelSelector{MatchLabels: sel}, Template: template(sel),
				ServiceName: name}})
		add("apps/v1", "StatefulSet", name, ns, sel)
	}
	for i := 0; i < r.IntN(2); i++ {
		ns, sel := pick(r, nss), genSelectorLabels(r)
		name := fmt.Sprintf("rc-%d", i)
		tmpl := template(sel)
		s.ReplicationControllers = append(s.ReplicationControllers, v1.ReplicationController{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec:       v1.ReplicationControllerSpec{Selector: sel, Template: &tmpl}})
		add("v1", "ReplicationController", name, ns, sel)
	}
	return owners
}

// decoratePod gives a pod a namespace, labels, maybe an owner, pod (anti-)affinity and, unless
// it is an existing pod (whose constraints no incoming pod reads), spread constraints.
func decoratePod(r *rand.Rand, pod *v1.Pod, nss []string, owners []owner, existing bool) {
	pod.Namespace = namespace
	if chance(r, 40) {
		pod.Namespace = pick(r, nss)
	}
	pod.Labels = map[string]string{}
	var mine []owner
	for _, o := range owners {
		if o.ns == pod.Namespace {
			mine = append(mine, o)
		}
	}
	if len(mine) > 0 && chance(r, 45) {
		o := pick(r, mine)
		pod.OwnerReferences = []metav1.OwnerReference{o.ref}
		for k, v := range o.selector {
			pod.Labels[k] = v
		}
	} else {
		if chance(r, 80) {
			pod.Labels[appLabel] = pick(r, apps)
		}
		if chance(r, 50) {
			pod.Labels[teamLabel] = pick(r, teams)
		}
	}
	if chance(r, 50) {
		pod.Labels[versionLabel] = pick(r, versions)
	}
	var pa, anti v1.PodAffinity
	if chance(r, 12) {
		pa.RequiredDuringSchedulingIgnoredDuringExecution = []v1.PodAffinityTerm{genPodAffinityTerm(r)}
	}
	if chance(r, 15) {
		anti.RequiredDuringSchedulingIgnoredDuringExecution = []v1.PodAffinityTerm{genPodAffinityTerm(r)}
	}
	if chance(r, 20) {
		pa.PreferredDuringSchedulingIgnoredDuringExecution = genWeightedTerms(r)
	}
	if chance(r, 20) {
		anti.PreferredDuringSchedulingIgnoredDuringExecution = genWeightedTerms(r)
	}
	if pa.RequiredDuringSchedulingIgnoredDuringExecution != nil || pa.PreferredDuringSchedulingIgnoredDuringExecution != nil ||
		anti.RequiredDuringSchedulingIgnoredDuringExecution != nil || anti.PreferredDuringSchedulingIgnoredDuringExecution != nil {
		if pod.Spec.Affinity == nil {
			pod.Spec.Affinity = &v1.Affinity{}
		}
		if pa.RequiredDuringSchedulingIgnoredDuringExecution != nil || pa.PreferredDuringSchedulingIgnoredDuringExecution != nil {
			pod.Spec.Affinity.PodAffinity = &pa
		}
		if anti.RequiredDuringSchedulingIgnoredDuringExecution != nil || anti.PreferredDuringSchedulingIgnoredDuringExecution != nil {
			pod.Spec.Affinity.PodAntiAffinity = &v1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution:  anti.RequiredDuringSchedulingIgnoredDuringExecution,
				PreferredDuringSchedulingIgnoredDuringExecution: anti.PreferredDuringSchedulingIgnoredDuringExecution}
		}
	}
	if !existing && chance(r, 35) {
		pod.Spec.TopologySpreadConstraints = genSpread(r, pod.Labels)
	}
}

// genLabelSelector selects pods by app and team (never by version, see versionLabel).
func genLabelSelector(r *rand.Rand) *metav1.LabelSelector {
	switch r.IntN(6) {
	case 0, 1, 2:
		return &metav1.LabelSelector{MatchLabels: map[string]string{appLabel: pick(r, apps)}}
	case 3:
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: appLabel,
			Operator: metav1.LabelSelectorOpIn, Values: []string{pick(r, apps), pick(r, apps)}}}}
	case 4:
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: teamLabel, Operator: metav1.LabelSelectorOpExists},
			{Key: appLabel, Operator: metav1.LabelSelectorOpNotIn, Values: []string{pick(r, apps)}}}}
	default:
		return &metav1.LabelSelector{MatchLabels: map[string]string{appLabel: pick(r, apps)},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: teamLabel, Operator: metav1.LabelSelectorOpDoesNotExist}}}
	}
}

func genPodAffinityTerm(r *rand.Rand) v1.PodAffinityTerm {
	t := v1.PodAffinityTerm{TopologyKey: pick(r, affinityKeys), LabelSelector: genLabelSelector(r)}
	switch r.IntN(10) {
	case 0, 1: // names, one of which may not exist in this state
		t.Namespaces = []string{namespace, pick(r, extraNamespaces)}
	case 2:
		t.Namespaces = []string{pick(r, extraNamespaces)}
	case 3: // every namespace
		t.NamespaceSelector = &metav1.LabelSelector{}
	case 4, 5:
		t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{envLabel: pick(r, envs)}}
	} // otherwise the pod's own namespace
	switch r.IntN(10) {
	case 0, 1:
		t.MatchLabelKeys = []string{versionLabel}
	case 2:
		t.MismatchLabelKeys = []string{versionLabel}
	}
	return t
}

func genWeightedTerms(r *rand.Rand) []v1.WeightedPodAffinityTerm {
	var ts []v1.WeightedPodAffinityTerm
	for i := 0; i < 1+r.IntN(2); i++ {
		ts = append(ts, v1.WeightedPodAffinityTerm{Weight: int32(1 + r.IntN(100)), PodAffinityTerm: genPodAffinityTerm(r)})
	}
	return ts
}

// genSpread is one or two constraints on distinct keys (the apiserver rejects two constraints
// of one key and one whenUnsatisfiable), most selecting the pod's own app.
func genSpread(r *rand.Rand, labels map[string]string) []v1.TopologySpreadConstraint {
	var cs []v1.TopologySpreadConstraint
	first := r.IntN(len(spreadKeys))
	for i := 0; i < 1+r.IntN(2); i++ {
		c := v1.TopologySpreadConstraint{MaxSkew: int32(1 + r.IntN(3)),
			TopologyKey:       spreadKeys[(first+i)%len(spreadKeys)],
			WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: genLabelSelector(r)}
		if app, ok := labels[appLabel]; ok && chance(r, 70) {
			c.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{appLabel: app}}
		}
		if chance(r, 45) {
			c.WhenUnsatisfiable = v1.ScheduleAnyway
		} else if chance(r, 30) {
			c.MinDomains = ptr(int32(1 + r.IntN(5)))
		}
		c.NodeAffinityPolicy, c.NodeTaintsPolicy = pick(r, policies), pick(r, policies)
		if chance(r, 20) {
			c.MatchLabelKeys = []string{versionLabel}
		}
		cs = append(cs, c)
	}
	return cs
}
