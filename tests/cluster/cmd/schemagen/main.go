// Command schemagen writes stowage's schema tables: for every compact C++ struct declared in
// pkg/api/schema/*.txt, the upstream JSON names, protobuf numbers and wire types of the fields
// it keeps, read by reflection from the k8s.io/api types this module pins, as the C++ header
// pkg/api/schema_generated.h. A declared name or number that is not upstream's is an error
// naming the declaration's file and line.
//
// With -golden DIR it also writes DIR/<Kind>.json and DIR/<Kind>.pb for every declared kind: the
// object, with every declared field set, as Go's encoding/json and the apiserver's protobuf
// serializer write it (see golden.go).
//
// Run it through scripts/generate/schema; it is not part of tests/cluster/build's binaries.
//
// Usage: go run ./cmd/schemagen -root REPO -release v0.37.2 [-golden DIR] pkg/api/schema/a.txt ...
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"

	"k8s.io/client-go/kubernetes/scheme"
)

func main() {
	root := flag.String("root", ".", "the repository root the declaration paths are relative to")
	release := flag.String("release", "", "the pinned k8s.io/api version, for the header comment")
	golden := flag.String("golden", "", "also write the golden JSON of every kind into this directory")
	flag.Parse()
	if err := run(*root, *release, *golden, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}

func run(root, release, golden string, files []string) error {
	if len(files) == 0 {
		return fmt.Errorf("no declaration files given")
	}
	var decls []*Decl
	for _, name := range files {
		f, err := os.Open(filepath.Join(root, name))
		if err != nil {
			return err
		}
		d, err := ParseDecls(name, f)
		f.Close()
		if err != nil {
			return err
		}
		decls = append(decls, d...)
	}
	registry, gvks := Registry()
	schemas, err := Resolve(decls, registry)
	if err != nil {
		return err
	}
	for _, s := range schemas {
		if s.Decl.Role == RoleKind {
			s.APIVersion = gvks[s.Go][0]
		}
	}
	var out bytes.Buffer
	if err := Emit(&out, schemas, files, release); err != nil {
		return err
	}
	if golden != "" {
		for _, s := range schemas {
			if s.Decl.Role != RoleKind {
				continue
			}
			j, pb, err := Golden(s, gvks[s.Go][0], gvks[s.Go][1])
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(golden, s.Decl.CXX+".json"), j, 0o644); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(golden, s.Decl.CXX+".pb"), pb, 0o644); err != nil {
				return err
			}
		}
		if err := WriteWhole(golden); err != nil {
			return err
		}
	}
	_, err = os.Stdout.Write(out.Bytes())
	return err
}

// Registry indexes by GoName every type client-go's scheme registers and every struct reachable
// from one, and gives each registered kind's apiVersion and kind.
func Registry() (map[string]reflect.Type, map[reflect.Type][2]string) {
	types := map[string]reflect.Type{}
	gvks := map[reflect.Type][2]string{}
	type entry struct {
		apiVersion, kind string
		t                reflect.Type
	}
	var entries []entry
	for gvk, t := range scheme.Scheme.AllKnownTypes() {
		entries = append(entries, entry{gvk.GroupVersion().String(), gvk.Kind, t})
	}
	// A type registered in several groups (metav1's Status, say) takes the first, stably.
	sort.Slice(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		return a.apiVersion < b.apiVersion || (a.apiVersion == b.apiVersion && a.kind < b.kind)
	})
	for _, e := range entries {
		if _, ok := gvks[e.t]; !ok {
			gvks[e.t] = [2]string{e.apiVersion, e.kind}
		}
		walk(e.t, types)
	}
	return types, gvks
}

func walk(t reflect.Type, seen map[string]reflect.Type) {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		walk(t.Elem(), seen)
	case reflect.Map:
		walk(t.Key(), seen)
		walk(t.Elem(), seen)
	case reflect.Struct:
		if t.Name() == "" {
			return
		}
		if _, ok := seen[GoName(t)]; ok {
			return
		}
		seen[GoName(t)] = t
		for i := 0; i < t.NumField(); i++ {
			walk(t.Field(i).Type, seen)
		}
	}
}
