package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// A declaration file lists compact C++ structs and the upstream fields each keeps; the format is
// described at the top of pkg/api/schema/storage.txt.

// Role says how a declared struct is decoded.
type Role string

const (
	RoleKind   Role = "kind"   // a top-level object
	RoleStruct Role = "struct" // a nested object
)

// Decl is one declared C++ struct.
type Decl struct {
	Role   Role
	CXX    string // the C++ struct (of stowage/api/types.h unless a header line names another)
	GoType string // e.g. k8s.io/api/storage/v1.StorageClass
	// More Go types of the same shape the struct also holds (PodAffinity and PodAntiAffinity):
	// every field must resolve to the same names and numbers on each.
	SameShape []string
	Fields    []FieldDecl
	Pos       string // file:line, for errors
	// The C++ header that declares the struct: the file's "header" line, else DefaultHeader.
	Header string
}

// DefaultHeader declares the structs of files with no "header" line.
const DefaultHeader = "stowage/api/types.h"

// FieldDecl is one kept field of a Decl.
type FieldDecl struct {
	JSONPath  []string // dotted JSON names from the struct's Go type
	ProtoPath string   // the declared field numbers, dotted
	Member    string   // the C++ member it fills
	Struct    string   // the C++ struct of an object value; empty for scalars
	// Present says the member names which field of a one-of object is set (JSON path "*",
	// protobuf path ending ".*"): it holds the JSON name of the first field present.
	Present bool
	Pos     string
}

var (
	identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	jsonRE  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`)
	protoRE = regexp.MustCompile(`^[1-9][0-9]*(\.[1-9][0-9]*)*$`)
	// A presence field: "*" alone, or the numbers of the hops to the one-of object then ".*".
	presentRE = regexp.MustCompile(`^([1-9][0-9]*\.)*\*$`)
	headerRE  = regexp.MustCompile(`^[a-z0-9_/]+\.h$`)
	goTypeRE  = regexp.MustCompile(`^[A-Za-z0-9./_-]+\.[A-Z][A-Za-z0-9]*$`)
)

// ParseDecls reads one declaration file; name is used in errors.
func ParseDecls(name string, r io.Reader) ([]*Decl, error) {
	var decls []*Decl
	header := DefaultHeader
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		cols := strings.Fields(text)
		if len(cols) == 0 {
			continue
		}
		pos := fmt.Sprintf("%s:%d", name, line)
		indented := text[0] == ' ' || text[0] == '\t'
		if !indented && cols[0] == "header" {
			if len(cols) != 2 || !headerRE.MatchString(cols[1]) || len(decls) > 0 {
				return nil, fmt.Errorf("%s: want one \"header <path under the source root>.h\" line before the first kind or struct", pos)
			}
			header = cols[1]
			continue
		}
		if !indented {
			d, err := parseDeclLine(cols, pos)
			if err != nil {
				return nil, err
			}
			d.Header = header
			decls = append(decls, d)
			continue
		}
		if len(decls) == 0 {
			return nil, fmt.Errorf("%s: a field before any kind or struct line", pos)
		}
		d := decls[len(decls)-1]
		f, err := parseFieldLine(cols, pos)
		if err != nil {
			return nil, err
		}
		d.Fields = append(d.Fields, f)
	}
	return decls, sc.Err()
}

func parseDeclLine(cols []string, pos string) (*Decl, error) {
	if len(cols) < 3 {
		return nil, fmt.Errorf("%s: want \"kind|struct <C++ struct> <Go type> [<Go type of the same shape> ...]\", got %q", pos, strings.Join(cols, " "))
	}
	role := Role(cols[0])
	if role != RoleKind && role != RoleStruct {
		return nil, fmt.Errorf("%s: unknown keyword %q (want kind or struct)", pos, cols[0])
	}
	if !identRE.MatchString(cols[1]) {
		return nil, fmt.Errorf("%s: %q is not a C++ identifier", pos, cols[1])
	}
	for _, g := range cols[2:] {
		if !goTypeRE.MatchString(g) {
			return nil, fmt.Errorf("%s: %q is not a Go type such as k8s.io/api/core/v1.Pod", pos, g)
		}
	}
	if len(cols) > 3 && role != RoleStruct {
		return nil, fmt.Errorf("%s: only a struct may hold several Go types", pos)
	}
	return &Decl{Role: role, CXX: cols[1], GoType: cols[2], SameShape: cols[3:], Pos: pos}, nil
}

func parseFieldLine(cols []string, pos string) (FieldDecl, error) {
	if len(cols) != 3 && len(cols) != 4 {
		return FieldDecl{}, fmt.Errorf("%s: want \"<JSON path> <protobuf path> <C++ member> [<C++ struct>]\", got %q", pos, strings.Join(cols, " "))
	}
	f := FieldDecl{JSONPath: strings.Split(cols[0], "."), ProtoPath: cols[1], Member: cols[2], Pos: pos}
	if cols[0] == "*" {
		if !presentRE.MatchString(f.ProtoPath) {
			return f, fmt.Errorf("%s: a presence field's protobuf path is the numbers to its one-of object then \"*\" (2.*), not %q", pos, cols[1])
		}
		if len(cols) == 4 {
			return f, fmt.Errorf("%s: a presence field holds a name, not a struct; drop %s", pos, cols[3])
		}
		f.JSONPath, f.Present = nil, true
		return f, nil
	}
	for _, s := range f.JSONPath {
		if !jsonRE.MatchString(s) {
			return f, fmt.Errorf("%s: %q is not a dotted JSON path", pos, cols[0])
		}
	}
	if !protoRE.MatchString(f.ProtoPath) {
		return f, fmt.Errorf("%s: %q is not a dotted list of protobuf field numbers", pos, cols[1])
	}
	if !identRE.MatchString(f.Member) {
		return f, fmt.Errorf("%s: %q is not a C++ member name", pos, f.Member)
	}
	if len(cols) == 4 {
		if !identRE.MatchString(cols[3]) {
			return f, fmt.Errorf("%s: %q is not a C++ struct name", pos, cols[3])
		}
		f.Struct = cols[3]
	}
	return f, nil
}
