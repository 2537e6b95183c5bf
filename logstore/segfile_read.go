package logstore

import (
	"encoding/binary"
	"errors"
	"logq/event"
	"logq/types"
	"math"
)

// metaReader reads the varint-framed meta of segment files (and the field
// trees WAL files and merges carry), bounded so a damaged file cannot make
// it allocate or recurse without limit.

// maxFileDepth bounds nesting when decoding, so a crafted file cannot exhaust
// the stack.
const maxFileDepth = 64

// metaReader decodes varint-framed data, remembering the first error so
// callers check once.
type metaReader struct {
	p   []byte
	i   int
	err error
}

func (r *metaReader) fail(what string) {
	if r.err == nil {
		r.err = errors.New(what)
	}
}

func (r *metaReader) byte() byte {
	if r.err != nil || r.i >= len(r.p) {
		r.fail("truncated")
		return 0
	}
	r.i++
	return r.p[r.i-1]
}

func (r *metaReader) uint32() uint32 {
	if r.err != nil || r.i+4 > len(r.p) {
		r.fail("truncated")
		return 0
	}
	r.i += 4
	return binary.LittleEndian.Uint32(r.p[r.i-4:])
}

func (r *metaReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, k := binary.Uvarint(r.p[r.i:])
	if k <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.i += k
	return v
}

func (r *metaReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, k := binary.Varint(r.p[r.i:])
	if k <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.i += k
	return v
}

// count reads a non-negative integer no larger than limit.
func (r *metaReader) count(limit int) int {
	v := r.uvarint()
	if v > uint64(limit) {
		r.fail("count out of range")
		return 0
	}
	return int(v)
}

func (r *metaReader) string() string {
	v := r.uvarint() // before the bound: reading it moves r.i
	if r.err == nil && v > uint64(len(r.p)-r.i) {
		r.fail("string past the end")
	}
	if r.err != nil {
		return ""
	}
	n := int(v)
	s := string(r.p[r.i : r.i+n])
	r.i += n
	return s
}

func (r *metaReader) ref(limit int) blobRef {
	off, n := r.uvarint(), r.uvarint()
	if off > uint64(limit) || n > uint64(limit)-off {
		r.fail("blob outside the file")
		return blobRef{}
	}
	return blobRef{off: int64(off), len: int64(n)}
}

func (r *metaReader) typ(depth int) types.Type {
	if depth > maxFileDepth {
		r.fail("types nested too deeply")
		return types.Null
	}
	k := types.Kind(r.byte())
	switch k {
	case types.KindArray:
		e := r.typ(depth + 1)
		return types.ArrayOf(e)
	case types.KindStruct:
		n := r.count(len(r.p) - r.i)
		fields := make([]types.Field, 0, min(n, 64))
		for i := 0; i < n && r.err == nil; i++ {
			name := r.string()
			fields = append(fields, types.Field{Name: name, Type: r.typ(depth + 1)})
		}
		return types.StructOf(fields...)
	}
	if k > types.KindStruct {
		r.fail("bad type kind")
	}
	return types.Type{Kind: k}
}

func (r *metaReader) value(depth int) types.Value {
	t := r.typ(depth)
	if r.byte() != 0 {
		return types.NullOf(t)
	}
	v := types.Value{T: t}
	switch t.Kind {
	case types.KindFloat64:
		if r.err == nil && r.i+8 <= len(r.p) {
			v.F = math.Float64frombits(binary.LittleEndian.Uint64(r.p[r.i:]))
			r.i += 8
		} else {
			r.fail("truncated")
		}
	case types.KindString, types.KindBytes:
		v.S = r.string()
	case types.KindArray, types.KindStruct:
		n := r.count(len(r.p) - r.i)
		for i := 0; i < n && r.err == nil; i++ {
			v.L = append(v.L, r.value(depth+1))
		}
	default:
		v.I = r.varint()
	}
	return v
}

// tree reads a field tree (encodeTree) into a new tree.
func (r *metaReader) tree() *event.Tree {
	t := event.NewTree(0)
	r.string() // the root's name, always empty
	r.nodeInto(t.Root(), 0)
	return t
}

// nodeInto reads the rest of a node (after its name) into n, then its
// children.
func (r *metaReader) nodeInto(n *event.Node, depth int) {
	if depth > maxFileDepth {
		r.fail("fields nested too deeply")
		return
	}
	n.Kind, n.Object, n.Array = types.Kind(r.byte()), r.byte() != 0, r.byte() != 0
	n.Elem = r.typ(0)
	count := r.count(len(r.p) - r.i)
	for i := 0; i < count && r.err == nil; i++ {
		r.nodeInto(n.Child(r.string()), depth+1)
	}
}
