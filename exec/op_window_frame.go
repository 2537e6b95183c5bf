package exec

import (
	"sort"

	"logq/planner"
	"logq/sqlparse"
	"logq/types"
)

// rangeKey returns the one ORDER BY key of every row (a RANGE frame with
// an offset has exactly one), boxed once.
func (w *windowCalc) rangeKey() []types.Value {
	if w.key == nil {
		v := w.op.vals.cols[w.ce.order[0]]
		w.key = make([]types.Value, w.op.rows.n)
		for r := range w.key {
			w.key[r] = v.Value(r)
		}
	}
	return w.key
}

// frame returns the rows [lo, hi) of row j's frame within partition p.
func (w *windowCalc) frame(p partitionRun, j int) (int, int) {
	f := w.call.Frame
	var lo, hi int
	if f.Rows {
		lo = w.rowsBound(f.Start, j, p)
		hi = w.rowsBound(f.End, j, p) + 1
	} else {
		lo = w.rangeBound(f.Start, j, p, true)
		hi = w.rangeBound(f.End, j, p, false)
	}
	lo, hi = max(lo, p.lo), min(hi, p.hi)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

func (w *windowCalc) rowsBound(b planner.FrameBound, j int, p partitionRun) int {
	switch b.Kind {
	case sqlparse.UnboundedPreceding:
		return p.lo
	case sqlparse.UnboundedFollowing:
		return p.hi - 1
	case sqlparse.OffsetPreceding:
		return j - int(min(b.Offset.I, int64(p.hi)))
	case sqlparse.OffsetFollowing:
		return j + int(min(b.Offset.I, int64(p.hi)))
	}
	return j
}

// rangeBound returns the first row of the frame (start) or one past its
// last (end) for a RANGE bound. An offset is taken in the direction of the
// sort: PRECEDING rows have smaller keys ascending, larger descending. A row
// whose key is NULL has its NULL peers as the offset bounds.
func (w *windowCalc) rangeBound(b planner.FrameBound, j int, p partitionRun, start bool) int {
	switch b.Kind {
	case sqlparse.UnboundedPreceding:
		return p.lo
	case sqlparse.UnboundedFollowing:
		return p.hi
	case sqlparse.CurrentRow:
		if start {
			return int(w.peerStart[j])
		}
		return int(w.peerEnd[j])
	}
	keys := w.rangeKey()
	cur := keys[w.idx[j]]
	if cur.Null {
		if start {
			return int(w.peerStart[j])
		}
		return int(w.peerEnd[j])
	}
	sk := w.call.Order[0]
	dir := 1.0
	if sk.Desc {
		dir = -1
	}
	off := b.Offset.Float()
	if b.Kind == sqlparse.OffsetPreceding {
		off = -off
	}
	target := dir*cur.Float() + off // in sort direction
	// The non-NULL rows of the partition, in sort direction.
	nlo, nhi := p.lo, p.hi
	if sk.NullsFirst {
		for nlo < nhi && keys[w.idx[nlo]].Null {
			nlo++
		}
	} else {
		for nhi > nlo && keys[w.idx[nhi-1]].Null {
			nhi--
		}
	}
	d := func(k int) float64 { return dir * keys[w.idx[k]].Float() }
	if start { // first row with d >= target
		return nlo + sort.Search(nhi-nlo, func(k int) bool { return d(nlo+k) >= target })
	}
	// one past the last row with d <= target
	return nlo + sort.Search(nhi-nlo, func(k int) bool { return d(nlo+k) > target })
}
