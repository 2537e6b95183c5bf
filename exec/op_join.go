package exec

import (
	"context"

	"logq/expr"
	"logq/planner"
	"logq/types"
)

// joinOp is a hash join when the plan has equality keys, else a nested-loop
// join over the materialised right side (a cross join against a small input,
// or a join on a non-equality condition).
type joinOp struct {
	left, right Operator
	plan        *planner.Join
	ev          *evaluator
	built       bool
	store       *rowStore
	table       map[string][]int32
	all         []int32
	outer       outerRight // RIGHT and FULL: unmatched right rows (op_join_outer.go)
	// The left batch being joined: its keys, the next row and match to
	// pair, and which of its rows have a match (pairs).
	lb    *Batch
	lkeys []string
	r, m  int
	hit   []bool
}

func (o *joinOp) Close() { o.left.Close(); o.right.Close() }

func (o *joinOp) build(ctx context.Context) error {
	var ts []types.Type
	for _, c := range o.plan.Right.Columns() {
		ts = append(ts, c.T)
	}
	o.store = newRowStore(ts)
	o.table = map[string][]int32{}
	for {
		b, err := o.right.Next(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		base := int32(o.store.n)
		idx := make([]int32, b.N)
		for i := range idx {
			idx[i] = int32(i)
		}
		o.store.appendRows(b, idx)
		if err := o.ev.mem.charge(o.kind(), b.N, len(b.Cols)+1); err != nil {
			return err
		}
		if len(o.plan.RightKeys) > 0 {
			keys, err := o.keys(o.plan.RightKeys, b)
			if err != nil {
				return err
			}
			for i, k := range keys {
				if k != "" {
					o.table[k] = append(o.table[k], base+int32(i))
				}
			}
		}
		for i := 0; i < b.N; i++ {
			o.all = append(o.all, base+int32(i))
		}
	}
	o.built = true
	o.outer.init(o)
	return nil
}

// keys encodes the join key of each row; "" marks a NULL key, which matches nothing.
func (o *joinOp) keys(exprs []expr.Expr, b *Batch) ([]string, error) {
	vecs := make([]*Vector, len(exprs))
	for i, e := range exprs {
		v, err := o.ev.eval(e, b)
		if err != nil {
			return nil, err
		}
		vecs[i] = v
	}
	out := make([]string, b.N)
	var buf []byte
	for r := 0; r < b.N; r++ {
		buf = buf[:0]
		null := false // a key that matches nothing
		for _, v := range vecs {
			x := v.Value(r)
			if matchesNothing(x) {
				null = true
				break
			}
			if x.T.Kind == types.KindInt64 {
				x = types.FloatValue(float64(x.I)) // INT64 and FLOAT64 keys compare numerically
			}
			buf = appendKey(buf, x)
		}
		if !null {
			out[r] = string(buf) + "\x01"
		}
	}
	return out, nil
}

func (o *joinOp) Next(ctx context.Context) (*Batch, error) {
	if !o.built {
		if err := o.build(ctx); err != nil {
			return nil, err
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if o.outer.started {
			return o.outer.next(o)
		}
		if o.lb == nil || o.r >= o.lb.N {
			lb, err := o.left.Next(ctx)
			if err != nil {
				return nil, err
			}
			if lb == nil {
				return o.outer.next(o)
			}
			o.lb, o.r, o.m = lb, 0, 0
			o.lkeys = nil
			if len(o.plan.LeftKeys) > 0 {
				if o.lkeys, err = o.keys(o.plan.LeftKeys, lb); err != nil {
					return nil, err
				}
			}
			o.hit = grow(o.hit, lb.N)
			clear(o.hit)
		}
		out, err := o.pairs()
		if err != nil {
			return nil, err
		}
		if out.N > 0 {
			return out, nil
		}
	}
}

// pairs joins the current left batch's rows, from row r's match m on, with
// their matches, at most BatchSize pairs at a time (a cross join of two
// inputs of 20,000 rows makes 400 million: they are produced a batch at a
// time, so the query's time limit and its consumers' memory budget hold),
// and NULL-extends the rows it finished without a match where the join
// keeps them.
func (o *joinOp) pairs() (*Batch, error) {
	lb := o.lb
	var li, ri []int32
	from := o.r
	for o.r < lb.N && len(li) < BatchSize {
		matches := o.all
		if o.lkeys != nil {
			matches = nil
			if k := o.lkeys[o.r]; k != "" {
				matches = o.table[k]
			}
		}
		take := matches[o.m:]
		if room := BatchSize - len(li); len(take) > room {
			take = take[:room]
		}
		for _, m := range take {
			li = append(li, int32(o.r))
			ri = append(ri, m)
		}
		o.m += len(take)
		if o.m < len(matches) {
			break // the row goes on in the next batch
		}
		o.r, o.m = o.r+1, 0
	}
	out := o.combine(lb, li, ri)
	if o.plan.Cond != nil && out.N > 0 {
		var err error
		if out, err = o.applyCond(out, li, ri); err != nil {
			return nil, err
		}
	} else {
		for _, l := range li {
			o.hit[l] = true
		}
		o.outer.mark(ri)
	}
	if o.keepsLeft() {
		// Rows finished here (every match seen) that matched nothing.
		var unmatched []int32
		for l := from; l < o.r; l++ {
			if !o.hit[l] {
				unmatched = append(unmatched, int32(l))
			}
		}
		if len(unmatched) > 0 {
			out = appendBatch(out, o.nullExtended(lb, unmatched))
		}
	}
	return out, nil
}

func (o *joinOp) combine(lb *Batch, li, ri []int32) *Batch {
	out := lb.take(li)
	out.Cols = append(out.Cols, o.store.batch(ri).Cols...)
	return out
}

// applyCond filters joined rows by the residual condition, marking the left
// rows (hit) and, for a RIGHT or FULL JOIN, the right rows of the pairs that
// pass as matched.
func (o *joinOp) applyCond(joined *Batch, li, ri []int32) (*Batch, error) {
	c, err := o.ev.eval(o.plan.Cond, joined)
	if err != nil {
		return nil, err
	}
	var keep []int32
	for i := 0; i < joined.N; i++ {
		if c.I[i] != 0 && !c.isNull(i) {
			keep = append(keep, int32(i))
			o.hit[li[i]] = true
			o.outer.mark(ri[i : i+1])
		}
	}
	return joined.take(keep), nil
}

func (o *joinOp) nullExtended(lb *Batch, rows []int32) *Batch {
	out := lb.take(rows)
	for _, c := range o.plan.Right.Columns() {
		out.Cols = append(out.Cols, constVector(types.NullOf(c.T), len(rows)))
	}
	return out
}

// appendBatch concatenates two batches of the same shape.
func appendBatch(a, b *Batch) *Batch {
	if a.N == 0 {
		return b
	}
	ts := make([]types.Type, len(a.Cols))
	for i, v := range a.Cols {
		ts[i] = v.T
	}
	s := newRowStore(ts)
	s.appendRows(a, seq(a.N))
	s.appendRows(b, seq(b.N))
	return s.batch(seq(s.n))
}

func seq(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// kind names the join for a memory-budget error.
func (o *joinOp) kind() string {
	switch {
	case len(o.plan.RightKeys) > 0:
		return "hash join"
	case o.plan.Kind == planner.JoinCross:
		return "cross join"
	}
	return "nested-loop join"
}
