package tools

import (
	"context"
	"slices"
	"testing"
	"time"

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
	var names []string
	for _, s := range matchedPodStages(t, pod) {
		names = append(names, s.Name())
	}
	return names
}

// matchedPodStages returns the pod stages of ../kwok.yaml that kwok would consider for pod.
func matchedPodStages(t *testing.T, pod *corev1.Pod) []*lifecycle.Stage {
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
	return matched
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

// A victim whose container sleeps in a preStop hook stays terminating for its whole grace period, as with a
// kubelet: the async-preemption spec counts on the preemptor waiting for it.
func TestPodDeleteWaitsOutTheGracePeriodOfAPreStopHook(t *testing.T) {
	pod := deletedPod(80)
	deletion := metav1.NewTime(time.Now().Add(80 * time.Second))
	pod.DeletionTimestamp = &deletion
	pod.Spec.Containers = []corev1.Container{{Name: "pause", Lifecycle: &corev1.Lifecycle{
		PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 79}}}}}
	matched := matchedPodStages(t, pod)
	if len(matched) != 1 || matched[0].Name() != "pod-delete-after-grace" {
		t.Fatalf("stages for a pod with a preStop hook deleted with grace 80: %v, want [pod-delete-after-grace]",
			podStages(t, pod))
	}
	now := time.Now()
	delay, ok, err := matched[0].Delay(context.Background(),
		&lifecycle.Event{Labels: pod.Labels, Annotations: pod.Annotations, Data: pod}, now)
	if err != nil || !ok {
		t.Fatalf("delay of pod-delete-after-grace: ok %v, error %v", ok, err)
	}
	// deletionTimestamp is serialised to the second, so the delay is the time left to it, give or take that.
	if want := deletion.Sub(now); delay < want-time.Second || delay > want+time.Second {
		t.Errorf("pod deleted after %v, want the %v left until its deletionTimestamp", delay, want)
	}
}
