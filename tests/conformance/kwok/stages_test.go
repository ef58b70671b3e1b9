package tools

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kwok/pkg/apis/internalversion"
	"sigs.k8s.io/kwok/pkg/config"
	"sigs.k8s.io/kwok/pkg/utils/lifecycle"
)

// podStages returns the names of the pod stages of ../kwok.yaml that kwok, running that file, would
// consider for pod, through kwok's own loader and matcher.
func podStages(t *testing.T, pod *corev1.Pod) []string {
	t.Helper()
	ctx := context.Background()
	objs, err := config.Load(ctx, "../kwok.yaml")
	if err != nil {
		t.Fatalf("loading kwok.yaml: %v", err)
	}
	var stages []*internalversion.Stage
	for _, s := range config.FilterWithType[*internalversion.Stage](objs) {
		if s.Spec.ResourceRef.Kind == "Pod" {
			stages = append(stages, s)
		}
	}
	lc, err := lifecycle.NewLifecycle(stages)
	if err != nil {
		t.Fatalf("building the pod lifecycle: %v", err)
	}
	matched, err := lc.ListAllPossible(ctx, &lifecycle.Event{Labels: pod.Labels, Annotations: pod.Annotations, Data: pod})
	if err != nil {
		t.Fatalf("matching: %v", err)
	}
	var names []string
	for _, s := range matched {
		names = append(names, s.Name())
	}
	return names
}

func deletedPod(grace int64) *corev1.Pod {
	now := metav1.Now()
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "without-label", Namespace: "ns", DeletionTimestamp: &now,
			DeletionGracePeriodSeconds: &grace},
		Spec:   corev1.PodSpec{NodeName: "node-1"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
}

// A pod deleted with a grace period is kwok's to finish, as a kubelet would.
func TestPodDeleteFinishesGracefulDeletion(t *testing.T) {
	if got := podStages(t, deletedPod(30)); !slices.Equal(got, []string{"pod-delete"}) {
		t.Errorf("stages for a pod deleted with grace 30: %v, want [pod-delete]", got)
	}
}

// The API server removes a pod deleted with grace period 0 itself. kwok deletes by name with no UID
// precondition, so deleting it again would remove a new pod created at once under the same name
// (upstream's Get2NodesThatCanRunPod does exactly that).
func TestPodDeleteSkipsGraceZero(t *testing.T) {
	if got := podStages(t, deletedPod(0)); len(got) != 0 {
		t.Errorf("stages for a pod deleted with grace 0: %v, want none", got)
	}
}
