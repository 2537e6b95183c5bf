package exec

import (
	"sync"

	"logq/expr"
	"logq/planner"
	"logq/types"
)

// A correlated subquery that the planner could not decorrelate
// (planner/bind_apply.go) is run per outer row: for each distinct tuple of
// the enclosing row's values it reads (Subquery.Outer), its plan runs once
// with the OuterParams set to them, and the answer is kept for the next row
// with the same tuple. Runs are one at a time (they share the parameters'
// storage), also when the enclosing query evaluates rows on several
// workers. Each kept answer is charged to the query's memory budget.
//
// This costs one run of the subquery per distinct tuple: fine for the
// small inputs such subqueries meet in practice, bounded by the query's
// time limit otherwise.

// applyState is what the copies of one correlated subquery share.
type applyState struct {
	mu   sync.Mutex
	r    *subqueries
	s    *planner.Subquery
	memo map[string]*subResult
}

// applied stands for a correlated subquery in the enclosing plan once its
// own subqueries are resolved.
type applied struct {
	x     expr.Expr // IN's operand, over the enclosing row; nil otherwise
	outer []expr.Expr
	st    *applyState
}

func (a *applied) Type() types.Type { return a.st.s.T }
func (a *applied) Children() []expr.Expr {
	if a.x != nil {
		return append([]expr.Expr{a.x}, a.outer...)
	}
	return a.outer
}
func (a *applied) WithChildren(ch []expr.Expr) expr.Expr {
	c := *a
	if a.x != nil {
		c.x, ch = ch[0], ch[1:]
	}
	c.outer = append([]expr.Expr(nil), ch...)
	return &c
}
func (a *applied) String() string { return a.st.s.String() }

// apply prepares correlated subquery s: its plan's own subqueries are
// resolved once (none of them reads the enclosing row).
func (r *subqueries) apply(s *planner.Subquery) (*applied, error) {
	st := r.applies[s.Plan]
	if st == nil {
		if err := r.resolve(s.Plan); err != nil {
			return nil, err
		}
		st = &applyState{r: r, s: s, memo: map[string]*subResult{}}
		if r.applies == nil {
			r.applies = map[planner.Node]*applyState{}
		}
		r.applies[s.Plan] = st
	}
	return &applied{x: s.X, outer: s.Outer, st: st}, nil
}

// answer is the subquery's result for the outer values vals (key is their
// appendKey encoding).
func (st *applyState) answer(key string, vals []types.Value) (*subResult, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if res, ok := st.memo[key]; ok {
		return res, nil
	}
	copy(*st.s.Params, vals)
	res, err := st.r.execute(st.s)
	if err != nil {
		return nil, err
	}
	if err := st.r.mem.charge("correlated subquery", 1, len(vals)+1); err != nil {
		return nil, err
	}
	st.memo[key] = res
	return res, nil
}

func (ev *evaluator) evalApplied(e *applied, b *Batch) (*Vector, error) {
	var x *Vector
	if e.x != nil {
		v, err := ev.eval(e.x, b)
		if err != nil {
			return nil, err
		}
		x = v
	}
	outer, err := ev.evalEach(e.outer, b)
	if err != nil {
		return nil, err
	}
	s := e.st.s
	out := ev.out(e, s.T, b.N)
	vals := make([]types.Value, len(outer))
	var key, scratch []byte
	for r := 0; r < b.N; r++ {
		key = key[:0]
		for i, o := range outer {
			vals[i] = o.Value(r)
			key = appendExactKey(key, vals[i])
		}
		res, err := e.st.answer(string(key), vals)
		if err != nil {
			return nil, err
		}
		v := res.value
		if s.Kind == planner.SubIn {
			in, null := res.set.test(x.Value(r), &scratch)
			v = types.BoolValue(in)
			if null {
				v = types.NullOf(types.Bool)
			}
		}
		out.set(r, v, b.N)
	}
	return out, nil
}
