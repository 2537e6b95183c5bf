package logstore

import (
	"sort"
	"strings"

	"logq/ingest"
	"logq/types"
)

// Field describes one field path of a source as SQL sees it.
type Field struct {
	Name     string // last key
	Path     string // keys joined by '.'
	Type     types.Type
	Object   bool     // a nested object: Type is ARRAY<STRUCT<Children…>>
	Children []*Field // fields of an object, in first-seen order
}

// Schema is an immutable description of a source's fields at one moment.
type Schema struct {
	Top    []*Field
	byPath map[string]*Field
}

// Lookup finds a field by path, case-insensitively as BigQuery does.
func (s *Schema) Lookup(path string) (*Field, bool) {
	if s == nil {
		return nil, false
	}
	if f, ok := s.byPath[path]; ok {
		return f, true
	}
	f, ok := s.byPath[strings.ToLower(path)]
	return f, ok
}

// node is the writer's mutable view of one field.
type node struct {
	name, path string
	kind       types.Kind // scalar kind; KindNull until a value is seen
	object     bool
	array      bool
	elem       types.Type
	children   []*node
	byName     map[string]*node
	// col caches this field's column in the open segment colSeg, sparing a
	// lookup by path for every value written.
	col    *Column
	colSeg *Segment
	// total counts the nodes of the whole tree (shared by all of them), for
	// the field cap (fieldcap.go).
	total *int
	// idx is this node's position among its parent's children; next predicts
	// the child the following key names, since events of one source mostly
	// list their keys in the same order.
	idx, next int
}

// childBytes finds a child by raw key bytes without allocating when the key
// is already SQL-safe and known.
func (n *node) childBytes(raw []byte) *node {
	if n.next < len(n.children) {
		if c := n.children[n.next]; c.name == string(raw) {
			n.next++
			return c
		}
	}
	var c *node
	if ingest.SafeKey(raw) {
		c = n.byName[string(raw)]
	}
	if c == nil {
		c = n.child(ingest.SanitizeKey(raw))
	}
	n.next = c.idx + 1
	return c
}

func (n *node) child(name string) *node {
	if c := n.byName[name]; c != nil {
		return c
	}
	path := name
	if n.path != "" {
		path = n.path + "." + name
	}
	c := &node{name: name, path: path, idx: len(n.children), total: n.total}
	if n.total != nil {
		*n.total++
	}
	if n.byName == nil {
		n.byName = make(map[string]*node)
	}
	n.byName[name] = c
	n.children = append(n.children, c)
	return c
}

func (n *node) field() *Field {
	f := &Field{Name: n.name, Path: n.path}
	switch {
	case n.object:
		f.Object = true
		var fields []types.Field
		for _, c := range n.children {
			if !c.object && !c.array && c.kind == types.KindNull {
				continue // only NULLs seen: no type yet
			}
			cf := c.field()
			f.Children = append(f.Children, cf)
			fields = append(fields, types.Field{Name: cf.Name, Type: cf.Type})
		}
		f.Type = types.ArrayOf(types.StructOf(fields...))
	case n.array:
		f.Type = types.ArrayOf(n.elem)
	default:
		f.Type = types.Type{Kind: n.kind}
	}
	return f
}

func buildSchema(root *node) *Schema {
	s := &Schema{byPath: make(map[string]*Field)}
	var index func(f *Field)
	index = func(f *Field) {
		s.byPath[f.Path] = f
		if low := strings.ToLower(f.Path); low != f.Path {
			if _, taken := s.byPath[low]; !taken {
				s.byPath[low] = f
			}
		}
		for _, c := range f.Children {
			index(c)
		}
	}
	for _, c := range root.children {
		if !c.object && !c.array && c.kind == types.KindNull {
			continue
		}
		f := c.field()
		s.Top = append(s.Top, f)
		index(f)
	}
	return s
}

// Paths lists every field path, sorted, for diagnostics.
func (s *Schema) Paths() []string {
	var out []string
	for p, f := range s.byPath {
		if p == f.Path {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
