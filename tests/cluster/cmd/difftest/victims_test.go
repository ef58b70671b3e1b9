package main

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// A victim an earlier pod's Preempted event names is not the pod's being decided; its own, an
// unknown preemptor's and one with no event are.
func TestOwnVictimsLeavesOutThoseOfEarlierPods(t *testing.T) {
	vs := []victim{{"difftest/existing-29", "v29"}, {"difftest/existing-02", "v02"},
		{"difftest/existing-05", "v05"}, {"difftest/existing-07", "v07"}}
	by := []types.UID{"pod-10", "pod-15", "", "pod-99"}
	decided := map[types.UID]bool{"pod-04": true, "pod-10": true}
	got := ownVictims(vs, by, decided, "pod-15")
	if want := []string{"difftest/existing-02", "difftest/existing-05", "difftest/existing-07"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pod-15's victims = %v, want %v", got, want)
	}
	// A pod decided again after a re-pin keeps its own victims.
	if got := ownVictims(vs[:1], by[:1], decided, "pod-10"); !reflect.DeepEqual(got, []string{"difftest/existing-29"}) {
		t.Errorf("pod-10's victims = %v", got)
	}
}

func TestPreemptorOfReadsTheNote(t *testing.T) {
	for note, want := range map[string]types.UID{
		"Preempted by pod 5a9bc5ac-4f4b-44cd-87f0-32882e988362 on node node-06":                             "5a9bc5ac-4f4b-44cd-87f0-32882e988362",
		"Preempted by pod 5a9bc5ac-4f4b-44cd-87f0-32882e988362 on node node-06 (in kube-scheduler memory).": "5a9bc5ac-4f4b-44cd-87f0-32882e988362",
		"Preempted by pod 5a9bc5ac":             "",
		"Successfully assigned difftest/p to n": "",
	} {
		if got := preemptorOf(note); got != want {
			t.Errorf("preemptorOf(%q) = %q, want %q", note, got, want)
		}
	}
}
