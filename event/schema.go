package event

import (
	"sort"
	"strings"

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

// typed reports whether a value has given the node a type (a field that
// has seen only NULLs has none, and is not in the schema).
func (n *Node) typed() bool { return n.Object || n.Array || n.Kind != types.KindNull }

func (n *Node) field() *Field {
	f := &Field{Name: n.Name, Path: n.Path}
	switch {
	case n.Object:
		f.Object = true
		var fields []types.Field
		for _, c := range n.Children {
			if !c.typed() {
				continue
			}
			cf := c.field()
			f.Children = append(f.Children, cf)
			fields = append(fields, types.Field{Name: cf.Name, Type: cf.Type})
		}
		f.Type = types.ArrayOf(types.StructOf(fields...))
	case n.Array:
		f.Type = types.ArrayOf(n.Elem)
	default:
		f.Type = types.Type{Kind: n.Kind}
	}
	return f
}

// Schema returns the tree's fields as queries see them. It is rebuilt only
// when a field has appeared or widened since the last call; the Schema
// returned is immutable.
func (t *Tree) Schema() *Schema {
	if t.changed || t.schema == nil {
		t.schema = buildSchema(&t.root)
		t.changed = false
	}
	return t.schema
}

// EmptySchema is the schema of a source that has no fields yet: one value,
// so that two snapshots of an empty source compare equal (a query's kept
// plan stays valid while the sources it reads keep their schemas).
func EmptySchema() *Schema { return emptySchema }

var emptySchema = &Schema{byPath: map[string]*Field{}}

func buildSchema(root *Node) *Schema {
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
	for _, c := range root.Children {
		if !c.typed() {
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
