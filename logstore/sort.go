package logstore

import "slices"

// Rows of a sealed segment are ordered by timestamp (stable: events of one
// time keep their arrival order). Events usually arrive nearly in order and
// the sort costs little; when they do not (shippers retrying, clients with
// skewed clocks), the per-block time ranges that seal computes stay tight,
// so a query's time window still skips most of each segment.

// timeOrder returns the order that sorts an open segment's rows by time
// (perm[k] is the row that goes k-th; nil when they are in order already)
// and the sorted times. Sealing builds new slices in that order: a view
// standing in for the segment meanwhile still reads the old ones.
func (s *Segment) timeOrder() (perm []int32, times []int64) {
	ts := s.cols["timestamp"]
	if ts == nil {
		return nil, nil
	}
	times = make([]int64, s.rows)
	for i := range times {
		times[i] = ts.Int(i)
	}
	if slices.IsSorted(times) {
		return nil, times
	}
	perm = make([]int32, s.rows)
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
	sorted := make([]int64, s.rows)
	for k, r := range perm {
		sorted[k] = times[r]
	}
	return perm, sorted
}
