// Package main is stowage's bridge to the pinned Kubernetes DRA CEL environment
// (k8s.io/dynamic-resource-allocation/cel), built with `go build -buildmode=c-shared` into
// libstowage_cel.so, which stowage loads with dlopen (pkg/cel/engine.h) and calls through the
// narrow C interface in stowage_cel.h.
//
// Programs and devices live on the Go side and are named across the boundary by
// integer handles: C never holds a Go pointer.
package main

/*
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"k8s.io/dynamic-resource-allocation/cel"
)

// The scheduler's compile options, as the DynamicResources plugin uses them through
// cel.Cache.GetOrCompile: the StoredExpressions environment, no cost estimation, the
// runtime cost limit resourceapi.CELSelectorExpressionMaxCost.
var (
	features = cel.Features{EnableConsumableCapacity: true, EnableListTypeAttributes: false}
	compiler = sync.OnceValue(func() compilerAPI { return cel.GetCompiler(features) })

	handles sync.Map // int64 -> *cel.CompilationResult or *cel.Device
	next    atomic.Int64
)

type compilerAPI interface {
	CompileCELExpression(string, cel.Options) cel.CompilationResult
}

func store(v any) C.int64_t {
	h := next.Add(1)
	handles.Store(h, v)
	return C.int64_t(h)
}

func setError(out **C.char, msg string) {
	if out != nil {
		*out = C.CString(msg)
	}
}

func main() {}

// stowage_cel_compile compiles a device selector. It returns a program handle (> 0),
// or 0 with *err set to upstream's message (to be released with free()).
//
//export stowage_cel_compile
func stowage_cel_compile(expr *C.char, n C.size_t, err **C.char) C.int64_t {
	e := C.GoStringN(expr, C.int(n))
	res := compiler().CompileCELExpression(e, cel.Options{DisableCostEstimation: true})
	if res.Error != nil {
		setError(err, res.Error.Error())
		return 0
	}
	return store(&res)
}

// stowage_cel_device decodes a device (format 0: stowage's flat buffer, 1: JSON) and
// returns a device handle (> 0), or 0 with *err set.
//
//export stowage_cel_device
func stowage_cel_device(buf *C.char, n C.size_t, format C.int, err **C.char) C.int64_t {
	d, e := decode(unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(n)), int(format))
	if e != nil {
		setError(err, e.Error())
		return 0
	}
	return store(&d)
}

// stowage_cel_release forgets a program or device handle.
//
//export stowage_cel_release
func stowage_cel_release(h C.int64_t) { handles.Delete(int64(h)) }

func eval(prog C.int64_t, d *cel.Device, timeout C.int64_t, cost *C.uint64_t, err **C.char) C.int {
	v, ok := handles.Load(int64(prog))
	if !ok {
		setError(err, "unknown program handle")
		return -1
	}
	p, ok := v.(*cel.CompilationResult)
	if !ok {
		setError(err, "not a program handle")
		return -1
	}
	// Upstream evaluates under the allocator's context; the timeout is what remains of it.
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(timeout))
		defer cancel()
	}
	matches, details, e := p.DeviceMatches(ctx, *d)
	if cost != nil {
		*cost = 0
		if details != nil && details.ActualCost() != nil {
			*cost = C.uint64_t(*details.ActualCost())
		}
	}
	if e != nil {
		setError(err, cel.EnhanceRuntimeError(e).Error())
		return -1
	}
	if matches {
		return 1
	}
	return 0
}

// stowage_cel_eval evaluates a program against a device passed inline (format as for
// stowage_cel_device). It returns 1 (matches), 0 (does not) or -1 with *err set to the
// runtime error as upstream's allocator reports it after "CEL runtime error: ".
// A timeout > 0 (nanoseconds) bounds the evaluation as upstream's context deadline does.
// *cost receives the actual cost.
//
//export stowage_cel_eval
func stowage_cel_eval(prog C.int64_t, buf *C.char, n C.size_t, format C.int, timeout C.int64_t, cost *C.uint64_t, err **C.char) C.int {
	d, e := decode(unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(n)), int(format))
	if e != nil {
		setError(err, e.Error())
		return -1
	}
	return eval(prog, &d, timeout, cost, err)
}

// stowage_cel_eval_device evaluates a program against a device handle.
//
//export stowage_cel_eval_device
func stowage_cel_eval_device(prog, dev C.int64_t, timeout C.int64_t, cost *C.uint64_t, err **C.char) C.int {
	v, ok := handles.Load(int64(dev))
	if !ok {
		setError(err, "unknown device handle")
		return -1
	}
	d, ok := v.(*cel.Device)
	if !ok {
		setError(err, "not a device handle")
		return -1
	}
	return eval(prog, d, timeout, cost, err)
}
