package event

import "logq/types"

// Tree is the fields of one source as its events have made them: every
// field path, its type, whether it is an object or an array, and its
// children in first-seen order. Events are shredded against it (shred.go),
// which adds and widens fields; its Schema is what queries bind against.
//
// A tree is not safe for concurrent use: its owner (a source) shreds and
// reads it under its own lock.
type Tree struct {
	root Node
	// nodes counts the fields of the whole tree (the root excluded), for
	// the field cap (fieldcap.go).
	nodes int
	// MaxFields bounds the fields a tree makes (0: no bound); see fieldcap.go.
	MaxFields int
	// Overflowed counts the keys kept in an __overflow field for want of a
	// field of their own; OnOverflow, when set, is called with each one.
	Overflowed int64
	OnOverflow func(key []byte)

	changed bool    // a field appeared or widened since Schema last ran
	schema  *Schema // the last Schema built

	sh shredder // one event's shredding state, kept for its buffers
}

// NewTree returns an empty tree that makes at most maxFields fields
// (0: no bound).
func NewTree(maxFields int) *Tree {
	t := &Tree{MaxFields: maxFields, changed: true}
	t.root.tree = t
	return t
}

// Root is the top level of the tree (it has no name, path or type).
func (t *Tree) Root() *Node { return &t.root }

// Fields is the number of fields the tree holds, nested ones included.
func (t *Tree) Fields() int { return t.nodes }

// Node is one field path of a tree.
type Node struct {
	Name, Path string
	// Kind is the field's scalar kind (KindNull until a value is seen),
	// KindArray for an array; Elem is an array's element type.
	Kind   types.Kind
	Object bool // a nested object: an ARRAY<STRUCT> of one element in SQL
	Array  bool
	Elem   types.Type

	Parent   *Node
	Children []*Node
	// ID numbers the node within its tree (the root is 0, then in order of
	// creation), so that a storage engine can keep per-field state in a
	// slice rather than a map.
	ID int

	tree   *Tree
	byName map[string]*Node
	// idx is this node's position among its parent's children; next
	// predicts the child the following key names, since events of one
	// source mostly list their keys in the same order.
	idx, next int
	// stamp is the number of the event that last wrote the node: a second
	// value in the same event is a repeated key, and the first one wins.
	stamp uint64
}

// Child returns the child named name (a SQL-safe key), making it when it
// is new. It ignores the field cap: callers that must respect it go through
// the shredder.
func (n *Node) Child(name string) *Node {
	if c := n.byName[name]; c != nil {
		return c
	}
	path := name
	if n.Path != "" {
		path = n.Path + "." + name
	}
	t := n.tree
	t.nodes++
	t.changed = true
	c := &Node{Name: name, Path: path, Parent: n, ID: t.nodes, tree: t, idx: len(n.Children)}
	if n.byName == nil {
		n.byName = make(map[string]*Node)
	}
	n.byName[name] = c
	n.Children = append(n.Children, c)
	return c
}

// Lookup returns the child named name, or nil.
func (n *Node) Lookup(name string) *Node { return n.byName[name] }

// childBytes finds a child by raw key bytes, making it when it is new,
// without allocating when the key is SQL-safe and known.
func (n *Node) childBytes(raw []byte) *Node {
	if c := n.predicted(raw); c != nil {
		n.next++
		return c
	}
	var c *Node
	if SafeKey(raw) {
		c = n.byName[string(raw)]
	}
	if c == nil {
		c = n.Child(SanitizeKey(raw))
	}
	n.next = c.idx + 1
	return c
}

// lookupBytes finds an existing child by raw key bytes, making nothing.
func (n *Node) lookupBytes(raw []byte) *Node {
	if c := n.predicted(raw); c != nil {
		return c
	}
	if SafeKey(raw) {
		return n.byName[string(raw)]
	}
	return n.byName[SanitizeKey(raw)]
}

// predicted returns the child after the last one named, when raw names it.
func (n *Node) predicted(raw []byte) *Node {
	if n.next < len(n.Children) {
		if c := n.Children[n.next]; c.Name == string(raw) {
			return c
		}
	}
	return nil
}

// Find returns the node of a dotted path, or nil.
func (t *Tree) Find(path string) *Node {
	n := &t.root
	start := 0
	for i := 0; i <= len(path) && n != nil; i++ {
		if i == len(path) || path[i] == '.' {
			n = n.byName[path[start:i]]
			start = i + 1
		}
	}
	return n
}

// widen sets n's kind to one that holds both its values so far and a value
// of kind k: INT64 and FLOAT64 meet in FLOAT64, any other two scalar kinds
// in STRING. Kinds only ever widen.
func (n *Node) widen(k types.Kind) {
	if n.Kind == k {
		return
	}
	n.Kind = WidenKind(n.Kind, k)
	n.tree.changed = true
}

// WidenKind is the kind that holds values of kinds have and got: the one
// rule by which every storage engine widens a field.
func WidenKind(have, got types.Kind) types.Kind {
	switch {
	case have == got || got == types.KindNull:
		return have
	case have == types.KindNull:
		return got
	case have == types.KindInt64 && got == types.KindFloat64, have == types.KindFloat64 && got == types.KindInt64:
		return types.KindFloat64
	}
	return types.KindString
}

// WidenElem is the element type of an array field that held elements of
// type have and meets an array of elements of type got: arrays of
// different element types are kept as arrays of their elements' text.
func WidenElem(have, got types.Type) types.Type {
	switch {
	case got.Kind == types.KindNull || have.Equal(got):
		return have
	case have.Kind == types.KindNull:
		return got
	}
	return types.String
}

// Merge adds what another tree's fields (from its root src) know to t:
// new fields, and types widened to hold both. Types only ever widen, so
// merging trees in any order gives the same tree. Nothing is counted
// against the field cap: the fields merged were made under it.
func (t *Tree) Merge(src *Node) { mergeNode(&t.root, src) }

func mergeNode(dst, src *Node) {
	for _, c := range src.Children {
		d := dst.Child(c.Name)
		d.widen(c.Kind)
		if c.Object && !d.Object || c.Array && !d.Array {
			d.Object, d.Array = d.Object || c.Object, d.Array || c.Array
			d.tree.changed = true
		}
		if e := WidenElem(d.Elem, c.Elem); !e.Equal(d.Elem) {
			d.Elem = e
			d.tree.changed = true
		}
		mergeNode(d, c)
	}
}
