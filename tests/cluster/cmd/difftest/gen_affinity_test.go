package main

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// The affinity profile only adds to a basic state: a seed keeps its nodes' resources and taints
// and its pods' containers and node affinity, so the basic features stay covered as they were.
func TestAffinityProfileKeepsBasicFields(t *testing.T) {
	for seed := uint64(0); seed < 10; seed++ {
		b, a := Generate(seed, 10, 20, ProfileBasic), Generate(seed, 10, 20, ProfileAffinity)
		for i := range b.Nodes {
			delete(a.Nodes[i].Labels, rackLabel)
			if !reflect.DeepEqual(a.Nodes[i], b.Nodes[i]) {
				t.Fatalf("seed %d: node %s differs beyond its rack label", seed, b.Nodes[i].Name)
			}
		}
		for i := range b.Pods {
			if !reflect.DeepEqual(a.Pods[i].Spec.Containers, b.Pods[i].Spec.Containers) ||
				!reflect.DeepEqual(a.Pods[i].Spec.Tolerations, b.Pods[i].Spec.Tolerations) ||
				(b.Pods[i].Spec.Affinity != nil && !reflect.DeepEqual(a.Pods[i].Spec.Affinity.NodeAffinity,
					b.Pods[i].Spec.Affinity.NodeAffinity)) {
				t.Fatalf("seed %d: pod %s lost basic fields", seed, b.Pods[i].Name)
			}
		}
	}
}

// The features the affinity profile claims, and the rules the apiserver enforces on them (a
// state it rejects would stop the run).
func TestAffinityProfileCoversFeatures(t *testing.T) {
	seen := map[string]bool{}
	for seed := uint64(0); seed < 30; seed++ {
		s := Generate(seed, 10, 20, ProfileAffinity)
		racks := 0
		for _, n := range s.Nodes {
			if _, ok := n.Labels[rackLabel]; ok {
				racks++
			}
		}
		seen["rack on some nodes only"] = seen["rack on some nodes only"] || (racks > 0 && racks < len(s.Nodes))
		seen["extra namespace"] = seen["extra namespace"] || len(s.Namespaces) > 1
		for _, ns := range s.Namespaces {
			seen["namespace label"] = seen["namespace label"] || ns.Labels[envLabel] != ""
		}
		seen["service"] = seen["service"] || len(s.Services) > 0
		seen["existing pod"] = seen["existing pod"] || len(s.Existing) > 0
		selectors := map[string]map[string]string{}
		for _, o := range s.ReplicaSets {
			selectors[ownerKey(o.Namespace, "ReplicaSet", o.Name)] = o.Spec.Selector.MatchLabels
		}
		for _, o := range s.StatefulSets {
			selectors[ownerKey(o.Namespace, "StatefulSet", o.Name)] = o.Spec.Selector.MatchLabels
		}
		for _, o := range s.ReplicationControllers {
			selectors[ownerKey(o.Namespace, "ReplicationController", o.Name)] = o.Spec.Selector
		}
		for _, p := range append(slices.Clone(s.Existing), s.Pods...) {
			where := fmt.Sprintf("seed %d, pod %s", seed, p.Name)
			if existing := p.Spec.NodeName != ""; existing != slices.ContainsFunc(s.Existing, func(e v1.Pod) bool { return e.Name == p.Name }) {
				t.Fatalf("%s: only existing pods are bound", where)
			}
			seen["pod in an extra namespace"] = seen["pod in an extra namespace"] || p.Namespace != namespace
			for _, ref := range p.OwnerReferences {
				sel, ok := selectors[ownerKey(p.Namespace, ref.Kind, ref.Name)]
				if !ok || ref.Controller == nil || !*ref.Controller {
					t.Fatalf("%s: controller reference to %s %s, not an owner of its namespace", where, ref.Kind, ref.Name)
				}
				for k, v := range sel {
					if p.Labels[k] != v {
						t.Fatalf("%s: labels %v outside its %s's selector %v", where, p.Labels, ref.Kind, sel)
					}
				}
				seen["owner "+ref.Kind] = true
			}
			coverAffinity(t, where, p, seen)
			keys := map[string]bool{}
			for _, c := range p.Spec.TopologySpreadConstraints {
				if keys[c.TopologyKey] {
					t.Fatalf("%s: two spread constraints on %s", where, c.TopologyKey)
				}
				keys[c.TopologyKey] = true
				if c.MinDomains != nil && c.WhenUnsatisfiable != v1.DoNotSchedule {
					t.Fatalf("%s: minDomains without DoNotSchedule", where)
				}
				checkLabelKeys(t, where, c.MatchLabelKeys, c.LabelSelector.MatchLabels)
				seen["spread "+string(c.WhenUnsatisfiable)] = true
				seen[fmt.Sprint("maxSkew ", c.MaxSkew)] = true
				seen["spread key "+c.TopologyKey] = true
				seen["minDomains"] = seen["minDomains"] || c.MinDomains != nil
				seen["spread matchLabelKeys"] = seen["spread matchLabelKeys"] || len(c.MatchLabelKeys) > 0
				if c.NodeAffinityPolicy != nil {
					seen["nodeAffinityPolicy "+string(*c.NodeAffinityPolicy)] = true
				}
				if c.NodeTaintsPolicy != nil {
					seen["nodeTaintsPolicy "+string(*c.NodeTaintsPolicy)] = true
				}
			}
		}
	}
	want := []string{"rack on some nodes only", "extra namespace", "namespace label", "service", "existing pod",
		"pod in an extra namespace", "owner ReplicaSet", "owner StatefulSet", "owner ReplicationController",
		"required affinity", "required anti-affinity", "preferred affinity", "preferred anti-affinity",
		"existing pod's required anti-affinity", "namespaces", "namespaceSelector {}", "namespaceSelector with labels",
		"matchLabelKeys", "mismatchLabelKeys", "matchExpressions", "affinity key " + v1.LabelHostname,
		"affinity key " + v1.LabelTopologyZone, "affinity key " + rackLabel, "spread DoNotSchedule",
		"spread ScheduleAnyway", "maxSkew 1", "maxSkew 2", "maxSkew 3", "spread key " + rackLabel, "minDomains",
		"spread matchLabelKeys", "nodeAffinityPolicy Honor", "nodeAffinityPolicy Ignore", "nodeTaintsPolicy Honor",
		"nodeTaintsPolicy Ignore"}
	for _, f := range want {
		if !seen[f] {
			t.Errorf("30 seeds generated no %s", f)
		}
	}
}

func coverAffinity(t *testing.T, where string, p v1.Pod, seen map[string]bool) {
	a := p.Spec.Affinity
	if a == nil {
		return
	}
	terms := func(name string, req []v1.PodAffinityTerm, pref []v1.WeightedPodAffinityTerm) {
		seen["required "+name] = seen["required "+name] || len(req) > 0
		seen["preferred "+name] = seen["preferred "+name] || len(pref) > 0
		if p.Spec.NodeName != "" && name == "anti-affinity" && len(req) > 0 {
			seen["existing pod's required anti-affinity"] = true
		}
		for _, w := range pref {
			if w.Weight < 1 || w.Weight > 100 {
				t.Fatalf("%s: weight %d", where, w.Weight)
			}
			req = append(req, w.PodAffinityTerm)
		}
		for _, term := range req {
			if term.TopologyKey == "" || term.LabelSelector == nil {
				t.Fatalf("%s: term without a topology key or a selector", where)
			}
			checkLabelKeys(t, where, append(term.MatchLabelKeys, term.MismatchLabelKeys...), term.LabelSelector.MatchLabels)
			seen["affinity key "+term.TopologyKey] = true
			seen["namespaces"] = seen["namespaces"] || len(term.Namespaces) > 0
			if ns := term.NamespaceSelector; ns != nil {
				seen[map[bool]string{true: "namespaceSelector {}", false: "namespaceSelector with labels"}[len(ns.MatchLabels) == 0]] = true
			}
			seen["matchLabelKeys"] = seen["matchLabelKeys"] || len(term.MatchLabelKeys) > 0
			seen["mismatchLabelKeys"] = seen["mismatchLabelKeys"] || len(term.MismatchLabelKeys) > 0
			seen["matchExpressions"] = seen["matchExpressions"] || len(term.LabelSelector.MatchExpressions) > 0
		}
	}
	if pa := a.PodAffinity; pa != nil {
		terms("affinity", pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	if anti := a.PodAntiAffinity; anti != nil {
		terms("anti-affinity", anti.RequiredDuringSchedulingIgnoredDuringExecution, anti.PreferredDuringSchedulingIgnoredDuringExecution)
	}
}

// checkLabelKeys: the apiserver rejects a matchLabelKeys key that the selector also names.
func checkLabelKeys(t *testing.T, where string, keys []string, matchLabels map[string]string) {
	t.Helper()
	for _, k := range keys {
		if slices.Contains(slices.Collect(maps.Keys(matchLabels)), k) {
			t.Fatalf("%s: label key %s in both the selector and matchLabelKeys", where, k)
		}
	}
}
