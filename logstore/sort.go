package logstore

import (
	"slices"

	"logq/types"
)

// Rows of a sealed segment are ordered by timestamp (stable: events of one
// time keep their arrival order). Events usually arrive nearly in order and
// the sort costs little; when they do not (shippers retrying, clients with
// skewed clocks), the per-block time ranges that seal computes stay tight,
// so a query's time window still skips most of each segment.

// sortByTime reorders an open segment's rows by timestamp before sealing. It
// builds new slices: a view standing in for the segment while it is sealed
// still reads the old ones.
func (s *Segment) sortByTime() {
	ts := s.cols["timestamp"]
	if ts == nil || s.rows < 2 {
		return
	}
	times := ts.ints[:s.rows]
	if slices.IsSorted(times) {
		return
	}
	perm := make([]int32, s.rows)
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(a, b int32) int {
		switch x, y := times[a], times[b]; {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	for _, c := range s.cols {
		c.permute(perm)
	}
}

// permute replaces an open column's rows by rows perm[0], perm[1], … into
// fresh slices.
func (c *Column) permute(perm []int32) {
	if c.nullBytes != nil {
		c.nullBytes = gather(c.nullBytes, perm)
	}
	switch {
	case c.kind == types.KindFloat64:
		c.floats = gather(c.floats, perm)
	case c.kind == types.KindArray:
		c.vals = gather(c.vals, perm)
	case c.kind == types.KindString && c.plain:
		data := make([]byte, 0, len(c.data))
		offs := make([]uint32, 1, len(perm)+1)
		for _, r := range perm {
			data = append(data, c.data[c.offs[r]:c.offs[r+1]]...)
			offs = append(offs, uint32(len(data)))
		}
		c.data, c.offs = data, offs
	case c.kind == types.KindString:
		c.codes = gather(c.codes, perm)
	default:
		c.ints = gather(c.ints, perm)
	}
}

func gather[T any](src []T, perm []int32) []T {
	out := make([]T, len(perm))
	for i, r := range perm {
		out[i] = src[r]
	}
	return out
}
