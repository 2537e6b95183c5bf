package exec

import (
	"context"
	"strings"

	"logq/sqlparse"
)

// wholePartitions computes an aggregate over whole partitions: one state,
// one group per partition, every row fed once.
func (w *windowCalc) wholePartitions(out *Vector) error {
	n := w.op.rows.n
	st := newBudgetedAggState(w.call.Agg, w.op.ev.mem)
	st.grow(len(w.parts))
	groups := make([]int32, n)
	for g, p := range w.parts {
		for j := p.lo; j < p.hi; j++ {
			groups[j] = int32(g)
		}
		if err := w.chargeList(p.lo, p.hi); err != nil {
			return err
		}
	}
	args := make([]*Vector, len(w.ce.agg))
	for lo := 0; lo < n; lo += BatchSize {
		hi := min(lo+BatchSize, n)
		if err := w.feed(st, args, w.idx[lo:hi], groups[lo:hi]); err != nil {
			return err
		}
	}
	for g, p := range w.parts {
		v, err := resultOf(st, g)
		if err != nil {
			return err
		}
		for j := p.lo; j < p.hi; j++ {
			out.set(int(w.idx[j]), v, n)
		}
	}
	return nil
}

// feed adds rows (store rows) to groups of st, gathering the arguments
// into args.
func (w *windowCalc) feed(st aggState, args []*Vector, rows, groups []int32) error {
	for k, at := range w.ce.agg {
		args[k] = gather(w.op.vals.cols[at], rows, args[k])
	}
	st.update(groups, args, len(rows))
	if f, ok := st.(failing); ok {
		return f.failed()
	}
	return nil
}

// chargeList charges a result of a list aggregate (ARRAY_AGG,
// STRING_AGG: a listState) over positions [lo, hi): those build a value as
// large as their frame.
func (w *windowCalc) chargeList(lo, hi int) error {
	if w.lists == nil {
		_, ok := newAggState(w.call.Agg).(*listState)
		w.lists = &ok
	}
	if *w.lists {
		return w.op.ev.mem.charge("window "+strings.ToUpper(w.call.Agg.Fn), hi-lo, 1)
	}
	return nil
}

// aggregate computes an aggregate over each row's frame in partition p. A
// frame starting at UNBOUNDED PRECEDING only grows, so one state is fed as
// its end passes rows and read at each row (the binder refuses the
// aggregates whose reading consumes their state); any other frame is
// recomputed from its rows.
func (w *windowCalc) aggregate(ctx context.Context, p partitionRun, out *Vector) error {
	n, idx := w.op.rows.n, w.idx
	args := make([]*Vector, len(w.ce.agg))
	if w.call.Frame.Start.Kind == sqlparse.UnboundedPreceding {
		st := newBudgetedAggState(w.call.Agg, w.op.ev.mem)
		st.grow(1)
		fed := p.lo
		zero := make([]int32, BatchSize)
		for j := p.lo; j < p.hi; j++ {
			_, hi := w.frame(p, j)
			for fed < hi {
				end := min(hi, fed+BatchSize)
				if err := w.feed(st, args, idx[fed:end], zero[:end-fed]); err != nil {
					return err
				}
				fed = end
			}
			if err := w.chargeList(p.lo, hi); err != nil {
				return err
			}
			v, err := resultOf(st, 0)
			if err != nil {
				return err
			}
			out.set(int(idx[j]), v, n)
		}
		return nil
	}
	// Rows are fed in blocks, one state group per row of the block.
	var rows, groups []int32
	first := p.lo
	flush := func(last int) error {
		st := newBudgetedAggState(w.call.Agg, w.op.ev.mem)
		st.grow(last - first)
		if len(rows) > 0 {
			if err := w.feed(st, args, rows, groups); err != nil {
				return err
			}
		}
		for j := first; j < last; j++ {
			v, err := resultOf(st, j-first)
			if err != nil {
				return err
			}
			out.set(int(idx[j]), v, n)
		}
		rows, groups, first = rows[:0], groups[:0], last
		return ctx.Err()
	}
	for j := p.lo; j < p.hi; j++ {
		lo, hi := w.frame(p, j)
		if err := w.chargeList(lo, hi); err != nil {
			return err
		}
		for k := lo; k < hi; k++ {
			rows = append(rows, idx[k])
			groups = append(groups, int32(j-first))
		}
		if len(rows) >= 1<<16 {
			if err := flush(j + 1); err != nil {
				return err
			}
		}
	}
	return flush(p.hi)
}
