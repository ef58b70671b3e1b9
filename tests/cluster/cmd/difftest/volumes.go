package main

// Volumes and claims of the storage profile, on a test cluster that runs the storage flow (the
// PV controller and the test provisioners). A run binds claims: the scheduler writes a static
// volume's claimRef or a claim's selected-node, the provisioner makes a volume, the PV
// controller binds. So every run, of either scheduler in either mode, starts from volumes and
// claims made afresh: all are deleted (their finalizers taken off), then the state's are
// created, and the scheduler starts only once the PV controller has settled them. New objects
// have new UIDs, so nothing the controllers or a provisioner still hold of the last run can
// reach them.
//
// After a pod's decision (serial mode) or at the end of the batch, the driver reads each of the
// pod's claims (ClaimOutcome), which compare.go compares.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

const (
	annSelectedNode   = "volume.kubernetes.io/selected-node"
	annProvisionedBy  = "pv.kubernetes.io/provisioned-by"
	annClaimProvision = "volume.kubernetes.io/storage-provisioner"
)

// ClaimOutcome is what became of one claim of a pod: the scheduler's choice as the cluster
// holds it.
type ClaimOutcome struct {
	Claim   string `json:"claim"`
	Missing bool   `json:"missing,omitempty"`
	Phase   string `json:"phase,omitempty"`
	// SelectedNode is the claim's volume.kubernetes.io/selected-node (provisioning).
	SelectedNode string `json:"selectedNode,omitempty"`
	// Volume is the volume the claim is bound to: a static volume's name, or "provisioned by
	// P on N" for a volume a provisioner made (its name holds the claim's UID).
	Volume string `json:"volume,omitempty"`
	// Twin names the group of identical static volumes Volume belongs to, if it has a twin.
	Twin string `json:"twin,omitempty"`
	// ClaimRefs are the other volumes whose claimRef names the claim (a binding written and
	// not completed).
	ClaimRefs []string `json:"claimRefs,omitempty"`
	// Devices: a ResourceClaim's allocation (dra profile, dra.go), "request=driver/pool/device"
	// in the order of its results.
	Devices []string `json:"devices,omitempty"`
	// dynamic: the claim waited unbound for its first consumer when the run began, so which
	// volume it gets depends on the schedulers' choices.
	dynamic bool
}

func (c ClaimOutcome) String() string {
	switch {
	case c.Missing:
		return c.Claim + " missing"
	case len(c.Devices) > 0:
		return c.Claim + " " + c.Phase + " " + strings.Join(c.Devices, " ")
	case c.Volume == "" && c.SelectedNode == "" && len(c.ClaimRefs) == 0:
		return c.Claim + " " + c.Phase
	}
	s := fmt.Sprintf("%s %s", c.Claim, c.Phase)
	if c.Volume != "" {
		s += " to " + c.Volume
	}
	if c.SelectedNode != "" {
		s += ", selected-node " + c.SelectedNode
	}
	if len(c.ClaimRefs) > 0 {
		s += ", claimed by " + strings.Join(c.ClaimRefs, " ")
	}
	return s
}

// volumeInfo is what the runner knows of the state's volumes and claims for reading outcomes.
type volumeInfo struct {
	twins   map[string]string // static volume -> its twin group, for volumes that have a twin
	dynamic map[string]bool   // claims unbound when the run begins, of a WaitForFirstConsumer class
}

// newVolumeInfo derives the twin groups (volumes equal but for their name and path) and the
// dynamic claims of a state.
func newVolumeInfo(st *State) volumeInfo {
	info := volumeInfo{twins: map[string]string{}, dynamic: map[string]bool{}}
	groups := map[string][]string{}
	var keys []string
	for _, pv := range st.PersistentVolumes {
		p := pv.DeepCopy()
		p.Name, p.Spec.PersistentVolumeSource = "", v1.PersistentVolumeSource{}
		b, _ := json.Marshal(p)
		if groups[string(b)] == nil {
			keys = append(keys, string(b))
		}
		groups[string(b)] = append(groups[string(b)], pv.Name)
	}
	for _, k := range keys {
		if g := groups[k]; len(g) > 1 {
			for _, name := range g {
				info.twins[name] = strings.Join(g, "=")
			}
		}
	}
	wait := map[string]bool{}
	for _, c := range st.StorageClasses {
		wait[c.Name] = c.VolumeBindingMode != nil && *c.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer
	}
	for _, c := range st.PersistentVolumeClaims {
		if c.Spec.VolumeName == "" && c.Annotations[terminateAnnotation] == "" && c.Spec.StorageClassName != nil &&
			wait[*c.Spec.StorageClassName] {
			info.dynamic[c.Name] = true
		}
	}
	return info
}

// resetVolumes deletes every volume and claim and creates the state's: claims first, then the
// volumes, those pre-bound to a claim with its UID; then it deletes the claims meant to be
// terminating, and waits until the PV controller has settled them all (pre-bound pairs Bound,
// other volumes Available, claims of Immediate classes handed to their provisioner,
// terminating claims held by their own finalizer only), so that the scheduler lists them as
// they will stay.
func (x *Runner) resetVolumes(ctx context.Context, st *State) error {
	start := time.Now()
	if err := x.clearVolumes(ctx); err != nil {
		return err
	}
	cleared := time.Since(start)
	uids := map[string]types.UID{}
	for i := range st.PersistentVolumeClaims {
		o := &st.PersistentVolumeClaims[i]
		got, err := x.cs.CoreV1().PersistentVolumeClaims(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating persistentvolumeclaim %s: %w", o.Name, err)
		}
		uids[o.Name] = got.UID
	}
	for i := range st.PersistentVolumes {
		pv := st.PersistentVolumes[i].DeepCopy()
		if ref := pv.Spec.ClaimRef; ref != nil {
			ref.UID = uids[ref.Name]
		}
		if _, err := x.cs.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating persistentvolume %s: %w", pv.Name, err)
		}
	}
	for _, c := range st.PersistentVolumeClaims {
		if c.Annotations[terminateAnnotation] != "" {
			if err := x.cs.CoreV1().PersistentVolumeClaims(c.Namespace).Delete(ctx, c.Name, metav1.DeleteOptions{}); err != nil {
				return fmt.Errorf("deleting persistentvolumeclaim %s: %w", c.Name, err)
			}
		}
	}
	immediate := map[string]bool{}
	for _, c := range st.StorageClasses {
		immediate[c.Name] = c.VolumeBindingMode == nil || *c.VolumeBindingMode == storagev1.VolumeBindingImmediate
	}
	// The PV controller syncs a claim when it changes or every 15 s: a claim created before its
	// volume waits for the next sync unless it changes, so pending ones are touched every half second.
	var pending string
	var touch []string
	settled := func() (bool, error) {
		touch = nil
		pvs, err := x.cs.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, pv := range pvs.Items {
			want := v1.VolumeAvailable
			if pv.Spec.ClaimRef != nil {
				want = v1.VolumeBound
			}
			if pv.Status.Phase != want {
				pending = fmt.Sprintf("persistentvolume %s is %s, not %s", pv.Name, pv.Status.Phase, want)
				return false, nil
			}
		}
		claims, err := x.cs.CoreV1().PersistentVolumeClaims(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range claims.Items {
			switch {
			case c.DeletionTimestamp != nil:
				if !slices.Equal(c.Finalizers, []string{holdFinalizer}) {
					pending = fmt.Sprintf("terminating claim %s has finalizers %v", c.Name, c.Finalizers)
					return false, nil
				}
			case c.Spec.VolumeName != "":
				if c.Status.Phase != v1.ClaimBound {
					pending = fmt.Sprintf("claim %s is %s, not Bound", c.Name, c.Status.Phase)
					touch = append(touch, c.Name)
				}
			case c.Spec.StorageClassName != nil && immediate[*c.Spec.StorageClassName]:
				if c.Annotations[annClaimProvision] == "" {
					pending = fmt.Sprintf("claim %s of an Immediate class has no %s", c.Name, annClaimProvision)
					return false, nil
				}
			}
		}
		return len(touch) == 0, nil
	}
	for deadline, next, n := time.Now().Add(30*time.Second), time.Now().Add(200*time.Millisecond), 0; ; {
		ok, err := settled()
		if err != nil {
			return err
		}
		if ok {
			break
		}
		if time.Now().After(next) {
			n++
			next = time.Now().Add(500 * time.Millisecond)
			for _, name := range touch {
				patch := fmt.Sprintf(`{"metadata":{"annotations":{"difftest.example.com/touched":"%d"}}}`, n)
				_, err := x.cs.CoreV1().PersistentVolumeClaims(namespace).Patch(ctx, name, types.MergePatchType,
					[]byte(patch), metav1.PatchOptions{})
				if err != nil {
					return err
				}
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("volumes and claims not settled within 30 s (%s): the storage profile needs "+
				"the storage flow (tests/cluster/up --storage)", pending)
		}
		time.Sleep(100 * time.Millisecond)
	}
	x.volumes = newVolumeInfo(st)
	klog.InfoS("Volumes and claims made afresh", "cleared", cleared, "settled", time.Since(start)-cleared)
	return nil
}

// clearVolumes deletes every claim of the difftest namespace and every volume, taking their
// finalizers off, until none is listed twice in a row 300 ms apart (a provisioner may still
// create a volume for a claim just deleted).
func (x *Runner) clearVolumes(ctx context.Context) error {
	pvcs, pvs := x.cs.CoreV1().PersistentVolumeClaims(namespace), x.cs.CoreV1().PersistentVolumes()
	ignore := func(err error) error {
		if err == nil || apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil
		}
		return err
	}
	empty := 0
	for i := 0; empty < 2; i++ {
		if i == 200 {
			return fmt.Errorf("volumes and claims not deleted within a minute")
		}
		claims, err := pvcs.List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, c := range claims.Items {
			if len(c.Finalizers) > 0 {
				c.Finalizers = nil
				if _, err := pvcs.Update(ctx, &c, metav1.UpdateOptions{}); ignore(err) != nil {
					return err
				}
			}
			if c.DeletionTimestamp == nil {
				if err := pvcs.Delete(ctx, c.Name, metav1.DeleteOptions{}); ignore(err) != nil {
					return err
				}
			}
		}
		vols, err := pvs.List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, v := range vols.Items {
			if len(v.Finalizers) > 0 {
				v.Finalizers = nil
				if _, err := pvs.Update(ctx, &v, metav1.UpdateOptions{}); ignore(err) != nil {
					return err
				}
			}
			if v.DeletionTimestamp == nil {
				if err := pvs.Delete(ctx, v.Name, metav1.DeleteOptions{}); ignore(err) != nil {
					return err
				}
			}
		}
		if len(claims.Items)+len(vols.Items) == 0 {
			empty++
		} else {
			empty = 0
		}
		time.Sleep(300 * time.Millisecond)
	}
	return nil
}

// claimOutcomes reads the pod's claims, in the order of its volumes. A claim bound to a volume
// is read again until its phase is Bound too: the scheduler binds the pod once the claim names
// its volume, and the PV controller sets the phase just after.
func (x *Runner) claimOutcomes(ctx context.Context, pod *v1.Pod) ([]ClaimOutcome, error) {
	var out []ClaimOutcome
	for deadline := time.Now().Add(10 * time.Second); ; {
		var err error
		var settling bool
		out, settling, err = x.readClaims(ctx, pod)
		if err != nil || !settling || time.Now().After(deadline) {
			return out, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (x *Runner) readClaims(ctx context.Context, pod *v1.Pod) ([]ClaimOutcome, bool, error) {
	var out []ClaimOutcome
	settling := false
	var vols *v1.PersistentVolumeList
	for _, vol := range pod.Spec.Volumes {
		if vol.PersistentVolumeClaim == nil {
			continue
		}
		if vols == nil {
			var err error
			if vols, err = x.cs.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{}); err != nil {
				return nil, false, err
			}
		}
		name := vol.PersistentVolumeClaim.ClaimName
		o := ClaimOutcome{Claim: name, dynamic: x.volumes.dynamic[name]}
		c, err := x.cs.CoreV1().PersistentVolumeClaims(pod.Namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			o.Missing = true
			out = append(out, o)
			continue
		} else if err != nil {
			return nil, false, err
		}
		o.Phase, o.SelectedNode = string(c.Status.Phase), c.Annotations[annSelectedNode]
		if c.Spec.VolumeName != "" && c.Status.Phase != v1.ClaimBound {
			settling = true
		}
		if c.Spec.VolumeName != "" {
			o.Volume = c.Spec.VolumeName + " (missing)"
		}
		for i := range vols.Items {
			pv := &vols.Items[i]
			if pv.Name == c.Spec.VolumeName {
				o.Volume, o.Twin = volumeIdentity(pv), x.volumes.twins[pv.Name]
			} else if ref := pv.Spec.ClaimRef; ref != nil && ref.Namespace == c.Namespace && ref.Name == c.Name &&
				(ref.UID == "" || ref.UID == c.UID) {
				o.ClaimRefs = append(o.ClaimRefs, volumeIdentity(pv))
			}
		}
		slices.Sort(o.ClaimRefs)
		out = append(out, o)
	}
	return out, settling, nil
}

// volumeIdentity names a volume the same in both runs: a static volume by its name, a
// provisioned one (named after its claim's UID) by its provisioner and the nodes its node
// affinity allows.
func volumeIdentity(pv *v1.PersistentVolume) string {
	p := pv.Annotations[annProvisionedBy]
	if p == "" {
		return pv.Name
	}
	var where []string
	if a := pv.Spec.NodeAffinity; a != nil && a.Required != nil {
		for _, t := range a.Required.NodeSelectorTerms {
			for _, e := range t.MatchExpressions {
				where = append(where, e.Key+" in "+strings.Join(e.Values, ","))
			}
		}
	}
	if len(where) == 0 {
		where = []string{"any node"}
	}
	return fmt.Sprintf("provisioned by %s on %s", p, strings.Join(where, "; "))
}
