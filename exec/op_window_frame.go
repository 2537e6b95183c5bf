package exec

import (
	"fmt"
	"math"
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
// whose key is NULL or NaN has its peers as the offset bounds, and is in no
// other row's offset frame (NaN is no distance from anything). INT64 keys
// are offset in integers: key ± k past INT64's range reaches every row on
// that side, and no other; NUMERIC and BIGNUMERIC keys exactly.
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
	if cur.Null || (cur.T.Kind == types.KindFloat64 && math.IsNaN(cur.F)) {
		if start {
			return int(w.peerStart[j])
		}
		return int(w.peerEnd[j])
	}
	// The rows with a number, in sort direction: NULLs and NaNs sort
	// together at one end (NaN below every number).
	unordered := func(k int) bool {
		v := keys[w.idx[k]]
		return v.Null || (v.T.Kind == types.KindFloat64 && math.IsNaN(v.F))
	}
	nlo, nhi := p.lo, p.hi
	for nlo < nhi && unordered(nlo) {
		nlo++
	}
	for nhi > nlo && unordered(nhi-1) {
		nhi--
	}
	desc := w.call.Order[0].Desc
	following := b.Kind == sqlparse.OffsetFollowing
	// search finds, among the numbered rows in sort direction, the first
	// one past the bound: for a start, the first whose key is at or beyond
	// the target; for an end, the first strictly beyond it.
	search := func(beyond func(k int) bool) int {
		return nlo + sort.Search(nhi-nlo, func(k int) bool { return beyond(nlo + k) })
	}
	if cur.T.Kind == types.KindInt64 && b.Offset.T.Kind == types.KindInt64 {
		// The target key: cur + k following ascending (or preceding
		// descending), cur − k otherwise; past INT64 it is beyond every
		// row on that side.
		up := following != desc
		target, ok := cur.I+b.Offset.I, true
		if up {
			ok = target >= cur.I
		} else {
			target = cur.I - b.Offset.I
			ok = target <= cur.I
		}
		if !ok {
			// The target is past every key: after the last row in sort
			// direction when it lies up ascending or down descending (a
			// bound there takes every row), else before the first.
			if up != desc {
				return nhi
			}
			return nlo
		}
		return search(func(k int) bool {
			key := keys[w.idx[k]].I
			switch {
			case start && !desc:
				return key >= target
			case start && desc:
				return key <= target
			case !desc:
				return key > target
			}
			return key < target
		})
	}
	if cur.T.IsDecimal() {
		// Exact: key ± k in scaled integers, which may pass the type's
		// range (then no key is beyond it on that side).
		off := b.Offset.Scaled()
		if following == desc {
			off.Neg(off)
		}
		target := off.Add(cur.Scaled(), off)
		return search(func(k int) bool {
			c := keys[w.idx[k]].Scaled().Cmp(target)
			switch {
			case start && !desc:
				return c >= 0
			case start && desc:
				return c <= 0
			case !desc:
				return c > 0
			}
			return c < 0
		})
	}
	dir := 1.0
	if desc {
		dir = -1
	}
	off := b.Offset.Float()
	if !following {
		off = -off
	}
	target := dir*cur.Float() + off // in sort direction
	if math.IsInf(target, 0) && !math.IsInf(cur.Float(), 0) && !math.IsInf(off, 0) {
		// A finite key ± a finite offset past FLOAT64's range stops at its
		// largest value: the infinite keys stay out, as in ZetaSQL. An
		// infinite offset reaches the infinite keys (never NaN's).
		target = math.Copysign(math.MaxFloat64, target)
	}
	d := func(k int) float64 { return dir * keys[w.idx[k]].Float() }
	if start { // first row with d >= target
		return search(func(k int) bool { return d(k) >= target })
	}
	// one past the last row with d <= target
	return search(func(k int) bool { return d(k) > target })
}

// infiniteOffsets refuses, as ZetaSQL does, a RANGE frame whose offset is
// +inf where a key of the partition makes key ± offset inf − inf (no
// bound): +inf PRECEDING beside a +inf key ascending (−inf descending), or
// +inf FOLLOWING beside a −inf key ascending (+inf descending).
func (w *windowCalc) infiniteOffsets(p partitionRun) error {
	f := w.call.Frame
	if f.Rows || len(w.call.Order) != 1 {
		return nil
	}
	desc := w.call.Order[0].Desc
	for _, b := range []planner.FrameBound{f.Start, f.End} {
		if (b.Kind != sqlparse.OffsetPreceding && b.Kind != sqlparse.OffsetFollowing) ||
			b.Offset.T.Kind != types.KindFloat64 || !math.IsInf(b.Offset.F, 1) {
			continue
		}
		following := b.Kind == sqlparse.OffsetFollowing
		bad := math.Inf(1) // the key that meets the offset head on
		if following != desc {
			bad = math.Inf(-1)
		}
		keys := w.rangeKey()
		for k := p.lo; k < p.hi; k++ {
			if v := keys[w.idx[k]]; !v.Null && v.T.Kind == types.KindFloat64 && v.F == bad {
				sign, dir, side := "positive", "an ascending", "PRECEDING"
				if bad < 0 {
					sign = "negative"
				}
				if desc {
					dir = "a descending"
				}
				if following {
					side = "FOLLOWING"
				}
				return &Error{Kind: KindEvaluation, Msg: fmt.Sprintf("Offset value cannot be positive infinity when there exists a %s infinity order key for an offset %s on %s partition", sign, side, dir)}
			}
		}
	}
	return nil
}
