package main

// The storage profile's processes: the test cluster's storage flow (tests/cluster/up --storage)
// runs the PV controller and the test provisioner stowage.dev/test-provisioner; the driver runs
// a second test provisioner as csi.stowage.dev, the CSI driver whose CSIStorageCapacity objects
// gate provisioning (gen_binding.go), and checks that both provision before any state runs.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// startStorage starts the CSI provisioner (log in out/csi-provisioner.log, volumes under
// out/csi-volumes) and checks that a claim of each provisioner gets bound. It returns what
// stops the provisioner.
func startStorage(ctx context.Context, cs kubernetes.Interface, kubeconfig, bin, out string) (func(), error) {
	log, err := os.Create(filepath.Join(out, "csi-provisioner.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-kubeconfig="+kubeconfig, "-root="+filepath.Join(out, "csi-volumes"),
		"-name="+CSIProvisioner)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		log.Close()
	}
	if err := checkProvisioning(ctx, cs); err != nil {
		stop()
		return nil, err
	}
	return stop, nil
}

// checkProvisioning creates an Immediate class and a claim for each provisioner and waits until
// both claims are bound, then deletes them.
func checkProvisioning(ctx context.Context, cs kubernetes.Interface) error {
	immediate := storagev1.VolumeBindingImmediate
	pvcs := cs.CoreV1().PersistentVolumeClaims(namespace)
	var names []string
	for i, p := range []string{TestProvisioner, CSIProvisioner} {
		name := fmt.Sprintf("difftest-check-%d", i)
		names = append(names, name)
		_ = cs.StorageV1().StorageClasses().Delete(ctx, name, metav1.DeleteOptions{})
		_ = pvcs.Delete(ctx, name, metav1.DeleteOptions{})
		class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: p,
			VolumeBindingMode: &immediate}
		if _, err := cs.StorageV1().StorageClasses().Create(ctx, class, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating storageclass %s: %w", name, err)
		}
		claim := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
			Spec: v1.PersistentVolumeClaimSpec{AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
				StorageClassName: ptr(name), Resources: claimSize()}}
		if _, err := pvcs.Create(ctx, claim, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating persistentvolumeclaim %s: %w", name, err)
		}
	}
	defer func() {
		for _, name := range names {
			_ = pvcs.Delete(ctx, name, metav1.DeleteOptions{})
			_ = cs.StorageV1().StorageClasses().Delete(ctx, name, metav1.DeleteOptions{})
		}
	}()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		bound := 0
		for _, name := range names {
			if c, err := pvcs.Get(ctx, name, metav1.GetOptions{}); err == nil && c.Status.Phase == v1.ClaimBound {
				bound++
			}
		}
		if bound == len(names) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("claims of %s and %s not bound within 60 s: the storage profile needs the "+
				"storage flow (tests/cluster/up --storage)", TestProvisioner, CSIProvisioner)
		}
	}
}
