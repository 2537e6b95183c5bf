package logstore

import (
	"math"
	"slices"

	"logq/event"
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
	// blockMin/blockMax are the time range of each run of TimeBlock rows:
	// a query's window usually cuts one segment, and these let it skip or
	// wholly accept most of that segment's rows. An open segment keeps
	// them for its rows in arrival order (finishRow), which is nearly time
	// order, so that the last hour's scan skips its older blocks too;
	// sealing orders the rows by time and computes them again.
	blockMin, blockMax []int64
	retiredFrom        *Segment     // for a view standing in while its segment is sealed
	seq                uint64       // number within its source; names its files
	rawBytes           int64        // bytes of the events written (open segments)
	first              uint64       // a merged segment: the first number it covers (merge.go)
	disk               *diskSegment // columns are in a segment file, read on demand
	// tree is the source's field tree (encodeNode) as of this segment's
	// retire, which its segment file carries (durable sources).
	tree []byte
	// gen counts the rows an open segment has written or rolled back (a
	// view keeps its segment's): a view taken at the same gen holds what a
	// new one would (Source.snapshot).
	gen uint64
}

func newSegment() *Segment {
	return &Segment{cols: make(map[string]*Column), minTS: math.MaxInt64, maxTS: math.MinInt64}
}

// Rows is the number of events in the segment.
func (s *Segment) Rows() int { return s.rows }

// TimeRange returns the smallest and largest event timestamp (µs).
func (s *Segment) TimeRange() (lo, hi int64) { return s.minTS, s.maxTS }

// Column returns the column of a field path, or nil when no event of this
// segment has the field (every row is then NULL). A sealed segment reads
// its columns from its file on demand: a column that cannot be read is a
// *StorageError.
func (s *Segment) Column(path string) (*Column, error) {
	if s.disk != nil {
		return s.disk.column(path)
	}
	return s.cols[path], nil
}

// Bytes is the memory the segment holds, estimated.
func (s *Segment) Bytes() int64 { return s.bytes }

// column returns the open segment's column for path, creating it when it is
// new: its rows start at this one (the earlier ones are NULL, unstored).
func (s *Segment) column(path string, kind types.Kind) *Column {
	c := s.cols[path]
	if c == nil {
		c = newColumn(path, kind, s.rows)
		s.cols[path] = c
		s.order = append(s.order, c)
	}
	return c
}

// finishRow pads every column that the current event did not write.
func (s *Segment) finishRow(ts int64) {
	s.rows++
	s.gen++
	for _, c := range s.order {
		if c.n < s.rows {
			c.appendNull()
		}
	}
	s.minTS = min(s.minTS, ts)
	s.maxTS = max(s.maxTS, ts)
	if b := (s.rows - 1) / TimeBlock; b == len(s.blockMin) {
		s.blockMin, s.blockMax = append(s.blockMin, ts), append(s.blockMax, ts)
	} else {
		s.blockMin[b], s.blockMax[b] = min(s.blockMin[b], ts), max(s.blockMax[b], ts)
	}
}

// abandonRow rolls back a partly written event.
func (s *Segment) abandonRow() {
	s.gen++ // the row may have added or widened columns before it failed
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

// seal freezes a retired segment: rows ordered by time, each column in its
// sealed encoding, per-block time ranges computed. A column with no value
// left (every row NULL) is dropped.
func (s *Segment) seal() {
	perm, times := s.timeOrder()
	s.blockMin, s.blockMax = s.blockMin[:0], s.blockMax[:0] // the rows' order changes
	for start := 0; start < len(times); start += TimeBlock {
		lo, hi := times[start], times[start]
		for _, v := range times[start:min(start+TimeBlock, len(times))] {
			lo, hi = min(lo, v), max(hi, v)
		}
		s.blockMin, s.blockMax = append(s.blockMin, lo), append(s.blockMax, hi)
	}
	var b int64
	for _, c := range s.order {
		if !c.seal(perm) {
			delete(s.cols, c.Path)
			continue
		}
		b += c.bytes()
	}
	s.bytes = b + int64(len(s.cols))*64 + 16*int64(len(s.blockMin))
	s.order = nil
	s.sealed = true
}

// view returns a read-only view of an open segment's first s.rows rows.
// Its block time ranges are a copy: the open segment's last one changes as
// rows arrive.
func (s *Segment) view() *Segment {
	v := &Segment{rows: s.rows, minTS: s.minTS, maxTS: s.maxTS, cols: make(map[string]*Column, len(s.cols)), retiredFrom: s, seq: s.seq, gen: s.gen,
		blockMin: slices.Clone(s.blockMin), blockMax: slices.Clone(s.blockMax)}
	for p, c := range s.cols {
		if cv := c.view(s.rows); cv != nil {
			v.cols[p] = cv
		}
	}
	return v
}

// Value assembles the value of field f in row as SQL sees it: a nested object
// becomes an ARRAY of one STRUCT (or NULL when absent), a scalar is converted
// to the field's current type.
func (s *Segment) Value(f *event.Field, row int) (types.Value, error) {
	var v [1]types.Value
	err := s.fill(f, []int32{int32(row)}, v[:], 1)
	return v[0], err
}

// Values assembles field f, as Value does, for each of rows into dst
// (len(dst) >= len(rows)). It reads each column of the field once for all
// the rows, and a nested record's values share a few allocations, rather
// than a column lookup and a few allocations per row and leaf.
func (s *Segment) Values(f *event.Field, rows []int32, dst []types.Value) error {
	return s.fill(f, rows, dst, 1)
}

// fill writes field f of rows[k] into dst[k*stride].
func (s *Segment) fill(f *event.Field, rows []int32, dst []types.Value, stride int) error {
	c, err := s.Column(f.Path)
	if err != nil {
		return err
	}
	if c == nil {
		for k := range rows {
			dst[k*stride] = types.NullOf(f.Type)
		}
		return nil
	}
	if !f.Object {
		for k, r := range rows {
			dst[k*stride] = c.Value(int(r), f.Type)
		}
		return nil
	}
	// Row k's STRUCT fields are fields[k*n : (k+1)*n], each child written
	// in place; its one-element ARRAY is elems[k].
	n := len(f.Children)
	fields := make([]types.Value, len(rows)*n)
	for i, child := range f.Children {
		if err := s.fill(child, rows, fields[i:], n); err != nil {
			return err
		}
	}
	st := *f.Type.Elem
	elems := make([]types.Value, len(rows))
	for k, r := range rows {
		if c.IsNull(int(r)) {
			dst[k*stride] = types.NullOf(f.Type)
			continue
		}
		elems[k] = types.StructValue(st, fields[k*n:(k+1)*n:(k+1)*n])
		dst[k*stride] = types.Value{T: f.Type, L: elems[k : k+1 : k+1]}
	}
	return nil
}

// openBytes estimates the memory of a segment not yet sealed.
func (s *Segment) openBytes() int64 {
	var b int64
	for _, c := range s.cols {
		b += c.bytes()
	}
	return b
}

// Sealed reports whether the segment is sealed: its rows and columns,
// dictionaries included, never change again.
func (s *Segment) Sealed() bool { return s.sealed }

// Live is the segment this one is a snapshot's view of (an open segment,
// or one being sealed), else the segment itself. While a segment is open
// its dictionaries only grow, so a code names the same entry in every view
// of it. Sealing (in memory, the same segment, Sealed afterwards) chooses
// each column's encoding anew.
func (s *Segment) Live() *Segment {
	if s.retiredFrom != nil {
		return s.retiredFrom
	}
	return s
}
