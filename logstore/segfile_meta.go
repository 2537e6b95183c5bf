package logstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"logq/event"
	"logq/types"
	"math"
)

// The meta of a segment file: what it says of itself and of each column
// (encodeMeta, decodeMeta), the field tree it carries, and the types and
// values they name.

// The parts of a column, each stored as one blob.
const (
	partNullBits = iota
	partInts
	partInts8
	partInts16
	partInts32
	partFloats
	partDictData
	partDictOffs
	partCodes
	partCodes8
	partCodes16
	partData
	partOffs
	partZData
	partZStarts
	partVals
	numParts
)

// partSize is the byte width of one element of each part.
var partSize = [numParts]int{8, 8, 1, 2, 4, 8, 1, 4, 4, 1, 2, 1, 4, 1, 4, 1}

type blobRef struct{ off, len int64 }

// colMeta describes one column of a segment file.
type colMeta struct {
	path   string
	kind   types.Kind
	n      int
	lo, hi int // the stored rows (version 2: every row)
	nulls  int // among the stored rows
	width  uint8
	base   int64
	plain  bool
	parts  [numParts]blobRef
	crc    uint32 // CRC-32C of the parts' bytes, in part order
	crcAt  int    // where crc is in the meta (fuzzing rewrites it)
}

// stored is the number of rows the column's parts hold.
func (m *colMeta) stored() int { return m.hi - m.lo }

// bytes is what the column takes in memory once loaded.
func (m *colMeta) bytes() int64 {
	var b int64
	for _, p := range m.parts {
		b += p.len
	}
	return b + 128
}

// segMeta is what a segment file says of itself.
type segMeta struct {
	seq                uint64
	first              uint64 // a merged segment covers first..seq; else 0
	rows               int
	minTS, maxTS       int64
	blockMin, blockMax []int64
	tree               *event.Tree
	cols               []colMeta
}

func encodeMeta(dst []byte, m *segMeta, tree []byte) []byte {
	dst = binary.AppendUvarint(dst, m.seq)
	dst = binary.AppendUvarint(dst, m.first)
	dst = binary.AppendUvarint(dst, uint64(m.rows))
	dst = binary.AppendVarint(dst, m.minTS)
	dst = binary.AppendVarint(dst, m.maxTS)
	dst = binary.AppendUvarint(dst, uint64(len(m.blockMin)))
	for i := range m.blockMin {
		// Deltas from the segment's first time: a few bytes each.
		dst = binary.AppendVarint(dst, m.blockMin[i]-m.minTS)
		dst = binary.AppendVarint(dst, m.blockMax[i]-m.minTS)
	}
	dst = append(dst, tree...) // encodeNode's output
	dst = binary.AppendUvarint(dst, uint64(len(m.cols)))
	for _, c := range m.cols {
		dst = appendString(dst, c.path)
		dst = append(dst, byte(c.kind), c.width, boolByte(c.plain))
		dst = binary.AppendUvarint(dst, uint64(c.n))
		dst = binary.AppendUvarint(dst, uint64(c.nulls))
		dst = binary.AppendVarint(dst, c.base)
		dst = binary.AppendUvarint(dst, uint64(c.lo))
		dst = binary.AppendUvarint(dst, uint64(c.hi))
		for _, p := range c.parts {
			dst = appendRef(dst, p)
		}
		dst = binary.LittleEndian.AppendUint32(dst, c.crc)
	}
	return dst
}

// decodeMeta reads a segment file's meta; blobs is where the meta starts,
// which every blob must end before.
func decodeMeta(p []byte, blobs int, version byte) (*segMeta, error) {
	r := &metaReader{p: p}
	m := &segMeta{seq: r.uvarint(), first: r.uvarint(), rows: r.count(maxSegmentRows), minTS: r.varint(), maxTS: r.varint()}
	if m.first > m.seq {
		r.fail("a merged segment covering numbers after its own")
	}
	blocks := (m.rows + TimeBlock - 1) / TimeBlock
	if nb := r.count(blocks); nb > 0 {
		if nb != blocks {
			r.fail("bad block time ranges")
		}
		m.blockMin, m.blockMax = make([]int64, nb), make([]int64, nb)
		for i := 0; i < nb && r.err == nil; i++ {
			m.blockMin[i], m.blockMax[i] = m.minTS+r.varint(), m.minTS+r.varint()
		}
	}
	m.tree = r.tree()
	ncols := r.count(len(p))
	if r.err != nil {
		return nil, r.err
	}
	for i := 0; i < ncols && r.err == nil; i++ {
		c := colMeta{path: r.string(), kind: types.Kind(r.byte()), width: r.byte(), plain: r.byte() != 0,
			n: r.count(m.rows), nulls: r.count(m.rows), base: r.varint()}
		c.hi = c.n
		if version >= 3 {
			c.lo, c.hi = r.count(m.rows), r.count(m.rows)
			if c.lo > c.hi {
				r.fail(fmt.Sprintf("column %s stores rows %d to %d", c.path, c.lo, c.hi))
			}
		}
		for j := range c.parts {
			c.parts[j] = r.ref(blobs)
			if c.parts[j].len%int64(partSize[j]) != 0 {
				r.fail("part length is not a whole number of elements")
			}
		}
		c.crcAt = r.i
		c.crc = r.uint32()
		if r.err == nil && c.n != m.rows {
			r.fail(fmt.Sprintf("column %s has %d rows in a segment of %d", c.path, c.n, m.rows))
		}
		if r.err == nil {
			r.err = c.check()
		}
		m.cols = append(m.cols, c)
	}
	if r.err == nil && r.i != len(r.p) {
		r.fail("trailing bytes")
	}
	return m, r.err
}

// check rejects a column whose parts do not fit its row count, so that a
// damaged file that passed its checksum cannot make a reader index past a
// slice.
// The column's own checks are here (rows, NULL bitmap); each encoding
// checks its parts (its fileForm's fits).
func (c *colMeta) check() error {
	if c.n < 0 || formOf(c) == nil {
		return errors.New("bad column kind")
	}
	n := c.stored()
	if c.hi > c.n || c.nulls > n || (n == 0 && c.n > 0) {
		// (The writer drops a column that stores no row.)
		return fmt.Errorf("column %s: stored rows out of range", c.path)
	}
	if c.nulls > 0 && c.count(partNullBits) != (n+63)/64 {
		return fmt.Errorf("column %s: null bitmap of the wrong size", c.path)
	}
	if !formOf(c).fits(c, n) {
		return fmt.Errorf("column %s: parts do not match %d rows", c.path, n)
	}
	return nil
}

// count is the number of elements part p holds.
func (c *colMeta) count(p int) int { return int(c.parts[p].len) / partSize[p] }

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func appendRef(dst []byte, r blobRef) []byte {
	dst = binary.AppendUvarint(dst, uint64(r.off))
	return binary.AppendUvarint(dst, uint64(r.len))
}

// encodeTree writes a field tree: what each path is (scalar kind, object,
// array and its element type) and its children in first-seen order.
func encodeTree(dst []byte, t *event.Tree) []byte { return encodeNode(dst, t.Root()) }

func encodeNode(dst []byte, n *event.Node) []byte {
	dst = appendString(dst, n.Name)
	dst = append(dst, byte(n.Kind), boolByte(n.Object), boolByte(n.Array))
	dst = encodeType(dst, n.Elem)
	dst = binary.AppendUvarint(dst, uint64(len(n.Children)))
	for _, c := range n.Children {
		dst = encodeNode(dst, c)
	}
	return dst
}

// decodeTree reads encodeTree's output into a new tree (with no field cap:
// its fields were made under one).
func decodeTree(b []byte) (*event.Tree, error) {
	r := metaReader{p: b}
	t := r.tree()
	if r.err == nil && r.i != len(b) {
		r.fail("trailing bytes after the field tree")
	}
	return t, r.err
}

func encodeType(dst []byte, t types.Type) []byte {
	dst = append(dst, byte(t.Kind))
	switch t.Kind {
	case types.KindArray:
		if t.Elem == nil {
			return encodeType(dst, types.Null)
		}
		return encodeType(dst, *t.Elem)
	case types.KindStruct:
		dst = binary.AppendUvarint(dst, uint64(len(t.Fields)))
		for _, f := range t.Fields {
			dst = appendString(dst, f.Name)
			dst = encodeType(dst, f.Type)
		}
	}
	return dst
}

func encodeValue(dst []byte, v types.Value) []byte {
	dst = encodeType(dst, v.T)
	dst = append(dst, boolByte(v.Null))
	if v.Null {
		return dst
	}
	switch v.T.Kind {
	case types.KindFloat64:
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v.F))
	case types.KindString, types.KindBytes:
		dst = appendString(dst, v.S)
	case types.KindArray, types.KindStruct:
		dst = binary.AppendUvarint(dst, uint64(len(v.L)))
		for _, e := range v.L {
			dst = encodeValue(dst, e)
		}
	default:
		dst = binary.AppendVarint(dst, v.I)
	}
	return dst
}
