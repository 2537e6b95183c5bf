package exec

import (
	"logq/planner"
	"logq/types"
)

// RIGHT and FULL joins are the hash (or nested-loop) join of op_join.go plus
// one pass at the end: every right row that no left row matched — the ON
// condition, residual part included, decides what a match is — comes out
// once, with NULLs for the left columns. FULL also keeps unmatched left rows,
// as LEFT does. The right side is already materialised (and charged to the
// memory budget); the matched flags add one bool per right row.

// keepsLeft reports whether unmatched left rows are NULL-extended.
func (o *joinOp) keepsLeft() bool {
	return o.plan.Kind == planner.JoinLeft || o.plan.Kind == planner.JoinFull
}

// outerRight tracks the right rows that found a match.
type outerRight struct {
	on      bool
	matched []bool
	pending []int32 // unmatched rows still to emit, once the left is done
	started bool
}

func (r *outerRight) init(o *joinOp) {
	if o.plan.Kind == planner.JoinRight || o.plan.Kind == planner.JoinFull {
		r.on = true
		r.matched = make([]bool, o.store.n)
	}
}

// mark records that right rows ri matched.
func (r *outerRight) mark(ri []int32) {
	if !r.on {
		return
	}
	for _, i := range ri {
		r.matched[i] = true
	}
}

// next returns the next batch of unmatched right rows after the left input
// has ended, or nil when there are no more (always nil for INNER and LEFT).
func (r *outerRight) next(o *joinOp) (*Batch, error) {
	if !r.on {
		return nil, nil
	}
	if !r.started {
		r.started = true // the left input is not read again
		for i, m := range r.matched {
			if !m {
				r.pending = append(r.pending, int32(i))
			}
		}
	}
	if len(r.pending) == 0 {
		return nil, nil
	}
	n := min(len(r.pending), BatchSize)
	rows := r.pending[:n]
	r.pending = r.pending[n:]
	out := &Batch{N: n}
	for _, c := range o.plan.Left.Columns() {
		out.Cols = append(out.Cols, constVector(types.NullOf(c.T), n))
	}
	out.Cols = append(out.Cols, o.store.batch(rows).Cols...)
	return out, nil
}
