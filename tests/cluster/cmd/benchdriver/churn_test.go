package main

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// The churn keeps creating numbered pods of its template until told to stop, and reports how many.
func TestChurnCreatesUntilStopped(t *testing.T) {
	cs := fake.NewSimpleClientset()
	template := &v1.Pod{Spec: v1.PodSpec{PriorityClassName: "high"}}
	stop := make(chan struct{})
	done := make(chan int)
	go func() {
		n, err := Churn(context.Background(), cs, churnNS, template, time.Millisecond, stop)
		if err != nil {
			t.Error(err)
		}
		done <- n
	}()
	for {
		l, err := cs.CoreV1().Pods(churnNS).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Items) >= 3 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(stop)
	n := <-done
	l, _ := cs.CoreV1().Pods(churnNS).List(context.Background(), metav1.ListOptions{})
	if n != len(l.Items) || n < 3 {
		t.Fatalf("churn reported %d pods, created %d", n, len(l.Items))
	}
	for _, p := range l.Items {
		if p.Spec.PriorityClassName != "high" {
			t.Fatalf("pod %s lost the template: %+v", p.Name, p.Spec)
		}
	}
}
