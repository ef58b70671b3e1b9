package main

// Preemption victims, and which pod each one was evicted for. A pod's victims are first the pods
// evicted while it was decided (serial mode), but a pod nominated earlier may preempt again in
// that window when a later pod takes its node, and whether its eviction lands before or after the
// later pod's outcome is read is timing. So each victim goes to the preemptor its Preempted event
// names (both schedulers record it on the victim, with the preemptor's UID in its note).

import (
	"context"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// eventWait bounds how long a victim's Preempted event is waited for once its eviction is seen;
// the schedulers write events asynchronously, usually within milliseconds of the eviction.
const eventWait = 2 * time.Second

type victim struct {
	key string // namespace/name
	uid types.UID
}

// watchPreemptedEvents records, from each Preempted event, the preemptor of its victim.
func (x *Runner) watchPreemptedEvents(f informers.SharedInformerFactory) (cache.SharedIndexInformer, error) {
	inf := f.Events().V1().Events().Informer()
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		e, ok := obj.(*eventsv1.Event)
		if !ok || e.Reason != "Preempted" {
			return
		}
		uid := preemptorOf(e.Note)
		if uid == "" {
			return
		}
		x.mu.Lock()
		x.preemptors[e.Regarding.UID] = uid
		x.mu.Unlock()
		select {
		case x.changed <- struct{}{}:
		default:
		}
	}})
	return inf, err
}

// preemptorOf reads the preemptor's UID from a Preempted event's note, "Preempted by pod <uid>
// on node <node>" from both schedulers (the driver's events.k8s.io informer saw no related object
// on either's events).
func preemptorOf(note string) types.UID {
	rest, ok := strings.CutPrefix(note, "Preempted by pod ")
	if !ok {
		return ""
	}
	uid, _, ok := strings.Cut(rest, " on node ")
	if !ok {
		return ""
	}
	return types.UID(uid)
}

// observe records a pod's first nominated node, and the pod as a victim once it is deleted or
// terminating with the DisruptionTarget condition a preempting scheduler sets before deleting it.
func (x *Runner) observe(obj any, deleted bool) {
	p, ok := obj.(*v1.Pod)
	if !ok {
		return
	}
	k := podKey(p)
	x.mu.Lock()
	defer x.mu.Unlock()
	if rv, err := strconv.ParseUint(p.ResourceVersion, 10, 64); err == nil && rv > x.handled {
		x.handled = rv
	}
	if n := p.Status.NominatedNodeName; n != "" && x.nominated[k] == "" {
		x.nominated[k] = n
	}
	// By UID: a victim that re-pinning (repin.go) brought back can be evicted again.
	if (deleted || p.DeletionTimestamp != nil) && disruptionTarget(p) && !x.evicted[p.UID] {
		x.evicted[p.UID] = true
		x.victims = append(x.victims, victim{key: k, uid: p.UID})
	}
}

// handledUpTo tells whether the handlers have seen the pod writes up to rv. The lister holds an
// object before the handlers are told of it, so an outcome read from the lister can come before
// the eviction that preceded it in the watch reached observe; waiting for this keeps the victims
// of a pod in its own window.
func (x *Runner) handledUpTo(rv string) bool {
	want, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return true
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.handled >= want
}

func (x *Runner) resetEvictions() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.victims, x.evicted, x.nominated = nil, map[types.UID]bool{}, map[string]string{}
	x.preemptors = map[types.UID]types.UID{}
}

// victimMark is the number of victims seen so far: those after it are a later pod's.
func (x *Runner) victimMark() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.victims)
}

// attribute waits until the victims seen since mark have their Preempted events (or eventWait
// has passed), and returns self's among them, sorted, with the new mark. A victim an earlier pod
// of this run preempted (index holds their UIDs) is left out: that pod preempted again after its
// own outcome was read, which upstream's dry runs for it show (Retried, preemption.go).
func (x *Runner) attribute(ctx context.Context, index map[types.UID]bool, self types.UID, mark int) ([]string, int) {
	x.waitUntil(ctx, eventWait, func() bool {
		x.mu.Lock()
		defer x.mu.Unlock()
		for _, v := range x.victims[mark:] {
			if _, ok := x.preemptors[v.uid]; !ok {
				return false
			}
		}
		return true
	})
	x.mu.Lock()
	defer x.mu.Unlock()
	vs := x.victims[mark:]
	by := make([]types.UID, len(vs))
	for i, v := range vs {
		by[i] = x.preemptors[v.uid]
	}
	return ownVictims(vs, by, index, self), mark + len(vs)
}

// ownVictims is self's share of vs (by[i] the preemptor of vs[i], "" when unknown), sorted: all
// but those of the earlier pods in index. A victim of an unknown preemptor stays self's: the
// window it was seen in is all that is known of it.
func ownVictims(vs []victim, by []types.UID, index map[types.UID]bool, self types.UID) []string {
	var mine []string
	for i, v := range vs {
		if by[i] == self || !index[by[i]] {
			mine = append(mine, v.key)
		}
	}
	return victimKeys(mine)
}
