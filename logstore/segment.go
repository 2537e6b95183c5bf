package logstore

import (
	"math"

	"logq/types"
)

// Segment is a run of events of one source, stored column by column. A
// segment handed out by a Snapshot is read-only.
type Segment struct {
	rows         int
	minTS, maxTS int64
	cols         map[string]*Column
	order        []*Column // creation order, for filling NULLs
	bytes        int64
	sealed       bool
	// blockMin/blockMax are the time range of each run of TimeBlock rows
	// (sealed segments only): a query's window usually cuts one segment,
	// and these let it skip or wholly accept most of that segment's rows.
	blockMin, blockMax []int64
	retiredFrom        *Segment     // for a view standing in while its segment is sealed
	seq                uint64       // number within its source; names its files
	rawBytes           int64        // bytes of the events written (open segments)
	first              uint64       // a merged segment: the first number it covers (merge.go)
	disk               *diskSegment // columns are in a segment file, read on demand
}

func newSegment() *Segment {
	return &Segment{cols: make(map[string]*Column), minTS: math.MaxInt64, maxTS: math.MinInt64}
}

// Rows is the number of events in the segment.
func (s *Segment) Rows() int { return s.rows }

// TimeRange returns the smallest and largest event timestamp (µs).
func (s *Segment) TimeRange() (lo, hi int64) { return s.minTS, s.maxTS }

// Column returns the column of a field path, or nil when no event of this
// segment has the field (every row is then NULL).
func (s *Segment) Column(path string) *Column {
	if s.disk != nil {
		return s.disk.column(path)
	}
	return s.cols[path]
}

// Bytes is the memory the segment holds, estimated.
func (s *Segment) Bytes() int64 { return s.bytes }

// column returns the open segment's column for path, creating it (with a NULL
// for every earlier row) when it is new.
func (s *Segment) column(path string, kind types.Kind) *Column {
	c := s.cols[path]
	if c == nil {
		c = &Column{Path: path, kind: kind}
		c.padNulls(s.rows)
		s.cols[path] = c
		s.order = append(s.order, c)
	}
	return c
}

// finishRow pads every column that the current event did not write.
func (s *Segment) finishRow(ts int64) {
	s.rows++
	for _, c := range s.order {
		if c.n < s.rows {
			c.appendNull()
		}
	}
	s.minTS = min(s.minTS, ts)
	s.maxTS = max(s.maxTS, ts)
}

// truncateRows rolls the open segment back to its first n rows (a chunk
// that could not be logged).
func (s *Segment) truncateRows(n int) {
	if n >= s.rows {
		return
	}
	for _, c := range s.order {
		if c.n > n {
			c.truncate(n)
		}
	}
	s.rows = n
	s.minTS, s.maxTS = math.MaxInt64, math.MinInt64
	if ts := s.cols["timestamp"]; ts != nil {
		for _, v := range ts.ints[:n] {
			s.minTS, s.maxTS = min(s.minTS, v), max(s.maxTS, v)
		}
	}
}

// dropColumnsFrom forgets the columns made after the first k (all NULL: an
// event that stopped before its row was written made them).
func (s *Segment) dropColumnsFrom(k int) {
	for _, c := range s.order[k:] {
		delete(s.cols, c.Path)
	}
	s.order = s.order[:k]
}

// abandonRow rolls back a partly written event.
func (s *Segment) abandonRow() {
	for _, c := range s.order {
		if c.n > s.rows {
			c.truncate(s.rows)
		}
	}
}

// TimeBlock is the number of rows a block time range covers.
const TimeBlock = 1024

// BlockTimeRange returns the smallest and largest timestamp of rows
// [b·TimeBlock, (b+1)·TimeBlock); ok is false when the segment keeps none.
func (s *Segment) BlockTimeRange(b int) (lo, hi int64, ok bool) {
	if b >= len(s.blockMin) {
		return 0, 0, false
	}
	return s.blockMin[b], s.blockMax[b], true
}

func (s *Segment) seal() {
	s.sortByTime()
	if ts := s.cols["timestamp"]; ts != nil {
		for start := 0; start < s.rows; start += TimeBlock {
			lo, hi := ts.ints[start], ts.ints[start]
			for _, v := range ts.ints[start:min(start+TimeBlock, s.rows)] {
				lo, hi = min(lo, v), max(hi, v)
			}
			s.blockMin, s.blockMax = append(s.blockMin, lo), append(s.blockMax, hi)
		}
	}
	var b int64
	for _, c := range s.order {
		c.seal()
		b += c.bytes()
	}
	s.bytes = b + int64(len(s.cols))*64 + 16*int64(len(s.blockMin))
	s.order = nil
	s.sealed = true
}

// view returns a read-only view of an open segment's first s.rows rows.
func (s *Segment) view() *Segment {
	v := &Segment{rows: s.rows, minTS: s.minTS, maxTS: s.maxTS, cols: make(map[string]*Column, len(s.cols)), retiredFrom: s, seq: s.seq}
	for p, c := range s.cols {
		v.cols[p] = c.view(s.rows)
	}
	return v
}

// truncate drops rows from n on. Only the writer calls it, on rows no
// snapshot has seen.
func (c *Column) truncate(n int) {
	for i := n; i < c.n; i++ {
		if c.nullBytes != nil && c.nullBytes[i] {
			c.nulls--
		}
	}
	if c.nullBytes != nil {
		c.nullBytes = c.nullBytes[:n]
	}
	switch {
	case c.kind == types.KindFloat64:
		c.floats = c.floats[:n]
	case c.kind == types.KindArray:
		c.vals = c.vals[:n]
	case c.kind == types.KindString && c.plain:
		c.offs = c.offs[:n+1]
		c.data = c.data[:c.offs[n]]
	case c.kind == types.KindString:
		c.codes = c.codes[:n]
	default:
		c.ints = c.ints[:n]
	}
	c.n = n
}

// Value assembles the value of field f in row as SQL sees it: a nested object
// becomes an ARRAY of one STRUCT (or NULL when absent), a scalar is converted
// to the field's current type.
func (s *Segment) Value(f *Field, row int) types.Value {
	c := s.Column(f.Path)
	if c == nil || c.IsNull(row) {
		return types.NullOf(f.Type)
	}
	if !f.Object {
		return c.Value(row, f.Type)
	}
	st := *f.Type.Elem
	fields := make([]types.Value, len(f.Children))
	for i, child := range f.Children {
		fields[i] = s.Value(child, row)
	}
	return types.ArrayValue(st, []types.Value{types.StructValue(st, fields)})
}

// openBytes estimates the memory of a segment not yet sealed.
func (s *Segment) openBytes() int64 {
	var b int64
	for _, c := range s.cols {
		b += c.bytes()
	}
	return b
}
