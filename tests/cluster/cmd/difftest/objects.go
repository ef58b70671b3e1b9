package main

// The objects of a state other than nodes and pods: namespaces with labels, Services,
// ReplicaSets, StatefulSets, ReplicationControllers, PriorityClasses, PodDisruptionBudgets, and
// StorageClasses, CSIDrivers, CSIStorageCapacities, CSINodes and VolumeAttachments.
// They are applied while no scheduler runs, so each scheduler lists them at its start; no
// controller changes them, so they stay as created and are replaced only when the next state
// comes. Volumes and claims, which the storage flow's controllers and the schedulers change,
// are made afresh before every run (volumes.go).

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func ownerKey(ns, kind, name string) string { return ns + "/" + kind + "/" + name }

// applyObjects replaces the previous state's objects with st's, unless st's are in place
// already (the runs of one state share them).
func (x *Runner) applyObjects(ctx context.Context, st *State) error {
	key := fmt.Sprint(st.Seed, "/", st.Profile)
	if x.applied == key {
		return nil
	}
	x.applied = ""
	if err := x.deleteObjects(ctx); err != nil {
		return err
	}
	labels := map[string]string{}
	x.uids = map[string]types.UID{}
	for i := range st.Namespaces {
		ns := &st.Namespaces[i]
		if ns.Name == namespace { // holds the sentinel, so it stays; only its labels change
			labels = ns.Labels
			continue
		}
		if _, err := x.cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating namespace %s: %w", ns.Name, err)
		}
	}
	base, err := x.cs.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{})
	if err != nil {
		return err
	}
	base.Labels = labels // the apiserver adds kubernetes.io/metadata.name again
	if _, err := x.cs.CoreV1().Namespaces().Update(ctx, base, metav1.UpdateOptions{}); err != nil {
		return err
	}
	for i := range st.Services {
		if _, err := x.cs.CoreV1().Services(st.Services[i].Namespace).Create(ctx, &st.Services[i], metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating service %s: %w", st.Services[i].Name, err)
		}
	}
	for i := range st.PriorityClasses {
		_, err := x.cs.SchedulingV1().PriorityClasses().Create(ctx, &st.PriorityClasses[i], metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating priorityclass %s: %w", st.PriorityClasses[i].Name, err)
		}
	}
	for i := range st.PDBs {
		o := &st.PDBs[i]
		got, err := x.cs.PolicyV1().PodDisruptionBudgets(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating poddisruptionbudget %s: %w", o.Name, err)
		}
		got.Status = o.Status
		got.Status.ObservedGeneration = got.Generation
		if _, err := x.cs.PolicyV1().PodDisruptionBudgets(o.Namespace).UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("setting the status of poddisruptionbudget %s: %w", o.Name, err)
		}
	}
	if err := x.applyStorage(ctx, st); err != nil {
		return err
	}
	if err := x.applyDRA(ctx, st); err != nil {
		return err
	}
	record := func(ns, kind, name string, uid types.UID) { x.uids[ownerKey(ns, kind, name)] = uid }
	for i := range st.ReplicaSets {
		o := &st.ReplicaSets[i]
		got, err := x.cs.AppsV1().ReplicaSets(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating replicaset %s: %w", o.Name, err)
		}
		record(o.Namespace, "ReplicaSet", o.Name, got.UID)
	}
	for i := range st.StatefulSets {
		o := &st.StatefulSets[i]
		got, err := x.cs.AppsV1().StatefulSets(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating statefulset %s: %w", o.Name, err)
		}
		record(o.Namespace, "StatefulSet", o.Name, got.UID)
	}
	for i := range st.ReplicationControllers {
		o := &st.ReplicationControllers[i]
		got, err := x.cs.CoreV1().ReplicationControllers(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating replicationcontroller %s: %w", o.Name, err)
		}
		record(o.Namespace, "ReplicationController", o.Name, got.UID)
	}
	x.applied = key
	return nil
}

// deleteObjects deletes the Services and controllers of every test namespace and the extra
// namespaces. With no namespace controller, a deleted namespace waits in Terminating for its
// "kubernetes" finalizer: the driver, having emptied it, removes the finalizer itself.
func (x *Runner) deleteObjects(ctx context.Context) error {
	// Background: a ReplicationController would otherwise wait for the garbage collector,
	// which does not run, to remove its orphan finalizer.
	opts := metav1.DeleteOptions{PropagationPolicy: ptr(metav1.DeletePropagationBackground)}
	for _, ns := range append([]string{namespace}, extraNamespaces...) {
		svcs, err := x.cs.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, s := range svcs.Items { // Services have no deletecollection
			if err := x.cs.CoreV1().Services(ns).Delete(ctx, s.Name, opts); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
		for _, del := range []func() error{
			func() error { return x.cs.AppsV1().ReplicaSets(ns).DeleteCollection(ctx, opts, metav1.ListOptions{}) },
			func() error { return x.cs.AppsV1().StatefulSets(ns).DeleteCollection(ctx, opts, metav1.ListOptions{}) },
			func() error {
				return x.cs.PolicyV1().PodDisruptionBudgets(ns).DeleteCollection(ctx, opts, metav1.ListOptions{})
			},
			func() error {
				return x.cs.CoreV1().ReplicationControllers(ns).DeleteCollection(ctx, opts, metav1.ListOptions{})
			},
		} {
			if err := del(); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
	}
	for _, name := range extraNamespaces {
		if err := x.deleteNamespace(ctx, name); err != nil {
			return err
		}
	}
	if err := x.deleteStorage(ctx); err != nil {
		return err
	}
	return x.deleteDRA(ctx)
}

// applyStorage creates the state's classes, CSI drivers, capacities, CSINodes and
// VolumeAttachments; its volumes and claims
// come before each run (resetVolumes).
func (x *Runner) applyStorage(ctx context.Context, st *State) error {
	for i := range st.StorageClasses {
		if _, err := x.cs.StorageV1().StorageClasses().Create(ctx, &st.StorageClasses[i], metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating storageclass %s: %w", st.StorageClasses[i].Name, err)
		}
	}
	for i := range st.CSIDrivers {
		if _, err := x.cs.StorageV1().CSIDrivers().Create(ctx, &st.CSIDrivers[i], metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating csidriver %s: %w", st.CSIDrivers[i].Name, err)
		}
	}
	for i := range st.CSIStorageCapacities {
		o := &st.CSIStorageCapacities[i]
		if _, err := x.cs.StorageV1().CSIStorageCapacities(o.Namespace).Create(ctx, o, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating csistoragecapacity %s: %w", o.Name, err)
		}
	}
	for i := range st.CSINodes {
		if _, err := x.cs.StorageV1().CSINodes().Create(ctx, &st.CSINodes[i], metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating csinode %s: %w", st.CSINodes[i].Name, err)
		}
	}
	for i := range st.VolumeAttachments {
		if _, err := x.cs.StorageV1().VolumeAttachments().Create(ctx, &st.VolumeAttachments[i], metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating volumeattachment %s: %w", st.VolumeAttachments[i].Name, err)
		}
	}
	return nil
}

// deleteStorage deletes every claim of the difftest namespace, volume, class, CSI driver,
// capacity, CSINode and VolumeAttachment.
func (x *Runner) deleteStorage(ctx context.Context) error {
	if err := x.clearVolumes(ctx); err != nil {
		return err
	}
	opts, list := metav1.DeleteOptions{}, metav1.ListOptions{}
	if err := x.cs.StorageV1().CSIStorageCapacities(namespace).DeleteCollection(ctx, opts, list); err != nil {
		return err
	}
	if err := x.cs.StorageV1().CSIDrivers().DeleteCollection(ctx, opts, list); err != nil {
		return err
	}
	if err := x.cs.StorageV1().CSINodes().DeleteCollection(ctx, opts, list); err != nil {
		return err
	}
	if err := x.cs.StorageV1().VolumeAttachments().DeleteCollection(ctx, opts, list); err != nil {
		return err
	}
	return x.cs.StorageV1().StorageClasses().DeleteCollection(ctx, opts, list)
}

func (x *Runner) deleteNamespace(ctx context.Context, name string) error {
	nss := x.cs.CoreV1().Namespaces()
	for i := 0; ; i++ {
		ns, err := nss.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if i == 100 {
			return fmt.Errorf("namespace %s not deleted within 10 s", name)
		}
		switch {
		case ns.DeletionTimestamp == nil:
			err = nss.Delete(ctx, name, metav1.DeleteOptions{})
		case len(ns.Spec.Finalizers) > 0:
			ns.Spec.Finalizers = nil
			_, err = nss.Finalize(ctx, ns, metav1.UpdateOptions{})
		default: // finalized: this deletion removes it
			err = nss.Delete(ctx, name, metav1.DeleteOptions{})
		}
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return fmt.Errorf("deleting namespace %s: %w", name, err)
		}
		if ns.DeletionTimestamp != nil && len(ns.Spec.Finalizers) == 0 {
			time.Sleep(100 * time.Millisecond)
		}
	}
}
