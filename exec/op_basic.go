package exec

import (
	"context"

	"logq/expr"
	"logq/planner"
	"logq/types"
)

// valuesOp emits constant rows once.
type valuesOp struct {
	plan *planner.Values
	ev   *evaluator
	done bool
}

func (o *valuesOp) Close() {}

func (o *valuesOp) Next(context.Context) (*Batch, error) {
	if o.done {
		return nil, nil
	}
	o.done = true
	n := len(o.plan.Rows)
	b := &Batch{N: n, Cols: make([]*Vector, len(o.plan.Cols))}
	for c, col := range o.plan.Cols {
		v := newVector(col.T, n)
		for r, row := range o.plan.Rows {
			x, err := o.ev.eval(row[c], &Batch{N: 1})
			if err != nil {
				return nil, err
			}
			v.set(r, x.Value(0), n)
		}
		b.Cols[c] = v
	}
	return b, nil
}

// filterOp keeps rows where the condition is TRUE.
type filterOp struct {
	in      Operator
	cond    expr.Expr
	ev      *evaluator
	scratch []int32
}

func (o *filterOp) Close() { o.in.Close() }

func (o *filterOp) Next(ctx context.Context) (*Batch, error) {
	for {
		b, err := o.in.Next(ctx)
		if b == nil || err != nil {
			return nil, err
		}
		out, err := filterBatch(o.ev, o.cond, b, &o.scratch)
		if err != nil {
			return nil, err
		}
		if out.N > 0 {
			return out, nil
		}
	}
}

// projectOp computes expressions per row.
type projectOp struct {
	in    Operator
	exprs []expr.Expr
	ev    *evaluator
}

func (o *projectOp) Close() { o.in.Close() }

func (o *projectOp) Next(ctx context.Context) (*Batch, error) {
	b, err := o.in.Next(ctx)
	if b == nil || err != nil {
		return nil, err
	}
	out := &Batch{N: b.N, Cols: make([]*Vector, len(o.exprs))}
	for i, e := range o.exprs {
		v, err := o.ev.eval(e, b)
		if err != nil {
			return nil, err
		}
		out.Cols[i] = v
	}
	return out, nil
}

// limitOp passes at most n rows after skipping offset.
type limitOp struct {
	in        Operator
	n, offset int64
	seen      int64
}

func (o *limitOp) Close() { o.in.Close() }

func (o *limitOp) Next(ctx context.Context) (*Batch, error) {
	for o.seen < o.offset+o.n {
		b, err := o.in.Next(ctx)
		if b == nil || err != nil {
			return nil, err
		}
		lo := max(o.offset-o.seen, 0)
		hi := min(int64(b.N), o.offset+o.n-o.seen)
		o.seen += int64(b.N)
		if lo >= hi {
			continue
		}
		return slice(b, int(lo), int(hi)), nil
	}
	return nil, nil
}

// slice returns rows [lo, hi) of b.
func slice(b *Batch, lo, hi int) *Batch {
	if lo == 0 && hi == b.N {
		return b
	}
	idx := make([]int32, 0, hi-lo)
	for i := lo; i < hi; i++ {
		idx = append(idx, int32(i))
	}
	return b.take(idx)
}

// unionOp concatenates its inputs.
type unionOp struct {
	ins []Operator
	cur int
}

func (o *unionOp) Close() {
	for _, in := range o.ins {
		in.Close()
	}
}

func (o *unionOp) Next(ctx context.Context) (*Batch, error) {
	for o.cur < len(o.ins) {
		b, err := o.ins[o.cur].Next(ctx)
		if err != nil {
			return nil, err
		}
		if b != nil {
			return b, nil
		}
		o.cur++
	}
	return nil, nil
}

// unnestOp emits one row per array element.
type unnestOp struct {
	in   Operator
	plan *planner.Unnest
	ev   *evaluator
}

func (o *unnestOp) Close() { o.in.Close() }

func (o *unnestOp) Next(ctx context.Context) (*Batch, error) {
	for {
		b, err := o.in.Next(ctx)
		if b == nil || err != nil {
			return nil, err
		}
		arr, err := o.ev.eval(o.plan.Expr, b)
		if err != nil {
			return nil, err
		}
		var rows unnestRows
		for r := 0; r < b.N; r++ {
			v := arr.Value(r)
			if len(v.L) == 0 {
				if o.plan.Left {
					rows.addNull(int32(r))
				}
				continue
			}
			for k, e := range v.L {
				rows.add(int32(r), e, int64(k))
			}
		}
		if len(rows.idx) == 0 {
			continue
		}
		out := o.rows(b, &rows)
		if o.plan.Cond != nil {
			if out, err = o.on(b, out, &rows); err != nil {
				return nil, err
			}
			if out == nil {
				continue
			}
		}
		return out, nil
	}
}

// unnestRows are the output rows of one input batch: input row idx[k]
// with element elems[k] (NULL where nulls[k]) at offset offs[k].
type unnestRows struct {
	idx   []int32
	elems []types.Value
	offs  []int64
	nulls []bool
}

func (u *unnestRows) add(r int32, e types.Value, off int64) {
	u.idx, u.elems, u.offs, u.nulls = append(u.idx, r), append(u.elems, e), append(u.offs, off), append(u.nulls, false)
}

// addNull adds row r's NULL row (an empty array, or no element passing ON).
func (u *unnestRows) addNull(r int32) {
	u.idx, u.elems, u.offs, u.nulls = append(u.idx, r), append(u.elems, types.Value{}), append(u.offs, 0), append(u.nulls, true)
}

// rows builds the output batch of u over input b.
func (o *unnestOp) rows(b *Batch, u *unnestRows) *Batch {
	n := len(u.idx)
	out := b.take(u.idx)
	ev := newVector(o.plan.Cols[len(b.Cols)].T, n)
	for k, e := range u.elems {
		if u.nulls[k] {
			ev.setNull(k, n)
		} else {
			ev.set(k, e, n)
		}
	}
	out.Cols = append(out.Cols, ev)
	if o.plan.WithOffset {
		ov := newVector(types.Int64, n)
		copy(ov.I, u.offs)
		for k := range u.nulls {
			if u.nulls[k] {
				ov.setNull(k, n)
			}
		}
		out.Cols = append(out.Cols, ov)
	}
	return out
}

// on applies LEFT JOIN UNNEST's ON condition to the element rows of out:
// those where it is not TRUE go, and an input row left without any gets the
// NULL row (as an empty array does). nil when no row is left.
func (o *unnestOp) on(b, out *Batch, u *unnestRows) (*Batch, error) {
	cond, err := o.ev.eval(o.plan.Cond, out)
	if err != nil {
		return nil, err
	}
	var kept unnestRows
	for k := 0; k < len(u.idx); {
		r, any := u.idx[k], false
		for ; k < len(u.idx) && u.idx[k] == r; k++ {
			c := cond.Value(k)
			switch {
			case u.nulls[k]: // already the NULL row of an empty array
				kept.addNull(r)
				any = true
			case c.Bool(): // TRUE; NULL and FALSE drop the element
				kept.add(r, u.elems[k], u.offs[k])
				any = true
			}
		}
		if !any {
			kept.addNull(r)
		}
	}
	if len(kept.idx) == 0 {
		return nil, nil
	}
	return o.rows(b, &kept), nil
}
