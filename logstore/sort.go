package logstore

import "slices"

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
	times := ts.enc.(*int64s).v[:s.rows] // dense: seal densified it
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
