package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/dynamic-resource-allocation/cel"
)

// Value tags of the flat device encoding (see stowage_cel.h).
const (
	tagNone     = 0 // no value set: upstream reports "unsupported attribute value"
	tagInt      = 1
	tagBool     = 2
	tagString   = 3
	tagVersion  = 4
	tagInts     = 5
	tagBools    = 6
	tagStrings  = 7
	tagVersions = 8
)

// jsonDevice is a resource.k8s.io/v1 Device as the apiserver serves it, plus the driver
// of its slice.
type jsonDevice struct {
	Driver                   string                                                    `json:"driver"`
	AllowMultipleAllocations *bool                                                     `json:"allowMultipleAllocations,omitempty"`
	Attributes               map[resourceapi.QualifiedName]resourceapi.DeviceAttribute `json:"attributes,omitempty"`
	Capacity                 map[resourceapi.QualifiedName]resourceapi.DeviceCapacity  `json:"capacity,omitempty"`
}

func decode(b []byte, format int) (cel.Device, error) {
	switch format {
	case 0:
		r := reader{b: b}
		d := r.device()
		if r.err != nil {
			return cel.Device{}, r.err
		}
		if len(r.b) != 0 {
			return cel.Device{}, errors.New("device: trailing bytes")
		}
		return d, nil
	case 1:
		var j jsonDevice
		if err := json.Unmarshal(b, &j); err != nil {
			return cel.Device{}, fmt.Errorf("device: %w", err)
		}
		return cel.Device{Driver: j.Driver, AllowMultipleAllocations: j.AllowMultipleAllocations,
			Attributes: j.Attributes, Capacity: j.Capacity}, nil
	}
	return cel.Device{}, fmt.Errorf("device: unknown format %d", format)
}

// reader decodes the flat little-endian encoding; the first error sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(msg string) {
	if r.err == nil {
		r.err = errors.New("device: " + msg)
	}
	r.b = nil
}

func (r *reader) u8() byte {
	if len(r.b) < 1 {
		r.fail("truncated")
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) u32() uint32 {
	if len(r.b) < 4 {
		r.fail("truncated")
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

func (r *reader) i64() int64 {
	if len(r.b) < 8 {
		r.fail("truncated")
		return 0
	}
	v := int64(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return v
}

func (r *reader) str() string {
	n := r.u32()
	if uint64(n) > uint64(len(r.b)) {
		r.fail("truncated string")
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// count reads a list length and bounds it by the bytes left (each element takes at least one).
func (r *reader) count() int {
	n := r.u32()
	if uint64(n) > uint64(len(r.b)) {
		r.fail("count exceeds buffer")
		return 0
	}
	return int(n)
}

func (r *reader) device() cel.Device {
	var d cel.Device
	d.Driver = r.str()
	switch r.u8() {
	case 1:
		f := false
		d.AllowMultipleAllocations = &f
	case 2:
		t := true
		d.AllowMultipleAllocations = &t
	}
	if n := r.count(); n > 0 {
		d.Attributes = make(map[resourceapi.QualifiedName]resourceapi.DeviceAttribute, n)
		for i := 0; i < n && r.err == nil; i++ {
			name := resourceapi.QualifiedName(r.str())
			d.Attributes[name] = r.attribute()
		}
	}
	if n := r.count(); n > 0 {
		d.Capacity = make(map[resourceapi.QualifiedName]resourceapi.DeviceCapacity, n)
		for i := 0; i < n && r.err == nil; i++ {
			name := resourceapi.QualifiedName(r.str())
			q, err := resource.ParseQuantity(r.str())
			if err != nil && r.err == nil {
				r.fail(fmt.Sprintf("capacity %s: %v", name, err))
			}
			d.Capacity[name] = resourceapi.DeviceCapacity{Value: q}
		}
	}
	return d
}

func (r *reader) attribute() resourceapi.DeviceAttribute {
	var a resourceapi.DeviceAttribute
	switch tag := r.u8(); tag {
	case tagNone:
	case tagInt:
		v := r.i64()
		a.IntValue = &v
	case tagBool:
		v := r.u8() != 0
		a.BoolValue = &v
	case tagString:
		v := r.str()
		a.StringValue = &v
	case tagVersion:
		v := r.str()
		a.VersionValue = &v
	case tagInts:
		n := r.count()
		a.IntValues = make([]int64, 0, n)
		for i := 0; i < n; i++ {
			a.IntValues = append(a.IntValues, r.i64())
		}
	case tagBools:
		n := r.count()
		a.BoolValues = make([]bool, 0, n)
		for i := 0; i < n; i++ {
			a.BoolValues = append(a.BoolValues, r.u8() != 0)
		}
	case tagStrings:
		n := r.count()
		a.StringValues = make([]string, 0, n)
		for i := 0; i < n; i++ {
			a.StringValues = append(a.StringValues, r.str())
		}
	case tagVersions:
		n := r.count()
		a.VersionValues = make([]string, 0, n)
		for i := 0; i < n; i++ {
			a.VersionValues = append(a.VersionValues, r.str())
		}
	default:
		r.fail(fmt.Sprintf("unknown attribute tag %d", tag))
	}
	return a
}
