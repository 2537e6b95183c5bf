package planner

import (
	"errors"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// A saved query is called many times with the same parameters; only the
// query's time (CURRENT_TIMESTAMP) differs from call to call. A Template is
// the query bound and optimised once with that time left open, as a nowRef
// wherever the binder would have put the time as a constant; Plan(now)
// copies it with the time given, folding what the time makes constant
// (timestamp_sub(now, …), the bucket arrays of generate_timestamp_trunc_array)
// and deriving again the scans' time bounds from their filters. That is the
// plan binding at now would give: the binder never sees the time's value, so
// nothing it decides can depend on it, and folding is the same function
// either way. The executor still checks the first plan of each template
// against one bound directly (exec/plancache.go).
//
// Subqueries are kept in a template: the executor writes each one's result
// into the node that holds it (exec/op_subquery.go, through
// MapSubqueryExprs, which writes only the slots holding one), so a copy
// rebuilds every subquery, its plan and the expressions and slices around
// it, and shares the rest. A subquery run per outer row (bind_apply.go)
// gets, in each copy, its own parameter slice, which the OuterParams of its
// copied plan read. A recursive CTE's WorkTable is shared by the copies:
// the executor never writes it, and keeps the rows it stands for per call
// (by the node's identity, in the call's Env).

// nowRef is the query's time in a template.
type nowRef struct{}

func (nowRef) Type() types.Type                     { return types.Timestamp }
func (nowRef) Children() []expr.Expr                { return nil }
func (n nowRef) WithChildren([]expr.Expr) expr.Expr { return n }
func (nowRef) String() string                       { return "CURRENT_TIMESTAMP()" }

// nowBound is `timestamp op e` where e reads the query's time and nothing
// else of the row.
type nowBound struct {
	op string
	e  expr.Expr
}

// onlyNow reports whether e reads the query's time and no column: it is
// constant in each call.
func onlyNow(e expr.Expr) bool {
	now := false
	var walk func(e expr.Expr) bool
	walk = func(e expr.Expr) bool {
		switch x := e.(type) {
		case nowRef:
			now = true
			return true
		case *expr.Const:
			return true
		case *expr.Call:
			if d := x.Resolve(); d == nil || d.Volatile || d.NoFold {
				return false
			}
		case *expr.Case:
		default:
			return false
		}
		for _, c := range e.Children() {
			if !walk(c) {
				return false
			}
		}
		return true
	}
	return walk(e) && now
}

// now is the query's time as the binder writes it into an expression.
func (b *binder) now() expr.Expr {
	if b.nowLate {
		return nowRef{}
	}
	return &expr.Const{V: types.TimestampValue(b.opts.Now)}
}

// Template is a query bound for every call with one set of parameters.
// It is never changed after NewTemplate: calls share it.
type Template struct {
	plan Node
	// timed holds the expressions of the plan that read the query's time
	// (nowRef among them) or hold a subquery or an OuterParam: a copy
	// rebuilds those and shares the rest.
	timed map[expr.Expr]bool
	// steady holds the Aggregates whose copies are marked Kept.
	steady map[*Aggregate]bool
}

// ErrNoTemplate: the query's plan cannot be made a template; plan each
// call with Plan.
var ErrNoTemplate = errors.New("planner: this plan is not kept as a template")

// NewTemplate binds and optimises q as Plan does, with opts.Now left open.
// Errors are those of Plan, or ErrNoTemplate.
func NewTemplate(q *sqlparse.Query, src string, opts Options) (*Template, error) {
	if opts.Sandbox != nil || opts.Bound != nil {
		return nil, ErrNoTemplate
	}
	plan, err := bindPlan(&binder{src: src, opts: opts, nowLate: true}, q)
	if err != nil {
		return nil, err
	}
	t := &Template{plan: plan, timed: map[expr.Expr]bool{}, steady: map[*Aggregate]bool{}}
	if !t.note(plan) {
		return nil, ErrNoTemplate
	}
	return t, nil
}

// isSteady reports whether a's result over given rows is the same in every
// call: it reads a scan through filters and projections only, and neither
// they, the scan's filter, a's keys nor its arguments read the query's
// time, hold a subquery or call a volatile function. Only the scan's time
// bounds, derived again each call, differ. (The executor keeps such an
// aggregate's partial result over each sealed segment the bounds cover
// whole: exec/local_partials.go.)
func (t *Template) isSteady(a *Aggregate) bool {
	exprs := append([]expr.Expr(nil), a.Keys...)
	for _, c := range a.Aggs {
		exprs = append(exprs, c.Args...)
	}
	for n := a.In; ; {
		switch x := n.(type) {
		case *Filter:
			exprs, n = append(exprs, x.Cond), x.In
			continue
		case *Project:
			exprs, n = append(exprs, x.Exprs...), x.In
			continue
		case *Scan:
			if x.Filter != nil {
				exprs = append(exprs, x.Filter)
			}
		default:
			return false
		}
		break
	}
	for _, e := range exprs {
		if t.timed[e] || !stable(e) {
			return false
		}
	}
	return true
}

// stable reports whether e calls no function that may answer differently
// for the same arguments (Volatile, or NoFold: what depends on the call).
func stable(e expr.Expr) bool {
	if c, ok := e.(*expr.Call); ok {
		if d := c.Resolve(); d == nil || d.Volatile || d.NoFold {
			return false
		}
	}
	for _, c := range e.Children() {
		if !stable(c) {
			return false
		}
	}
	return true
}

// note records the expressions of n and its inputs (and of its subqueries'
// plans) that read the time or hold a subquery, and reports whether every
// node is one Plan copies.
func (t *Template) note(n Node) bool {
	switch n.(type) {
	case *Scan, *Values, *Filter, *Project, *Unnest, *Aggregate, *Sort, *Limit, *Join, *Union, *SetOp, *Window,
		*RecursiveUnion, *WorkTable:
	default:
		return false
	}
	for _, s := range Subqueries(n) {
		if !t.note(s.Plan) {
			return false
		}
	}
	for _, e := range n.Expressions() {
		t.noteExpr(e)
	}
	if s, ok := n.(*Scan); ok {
		for _, b := range s.nowBounds {
			t.noteExpr(b.e)
		}
	}
	for _, in := range n.Children() {
		if !t.note(in) {
			return false
		}
	}
	// After its inputs: their expressions are noted.
	if a, ok := n.(*Aggregate); ok && t.isSteady(a) {
		t.steady[a] = true
	}
	return true
}

func (t *Template) noteExpr(e expr.Expr) bool {
	if _, ok := e.(nowRef); ok {
		t.timed[e] = true
		return true
	}
	timed := false
	for _, c := range e.Children() {
		timed = t.noteExpr(c) || timed
	}
	switch e.(type) {
	case *Subquery, *OuterParam:
		// Each call gets its own: the executor replaces a subquery by its
		// value, and an OuterParam reads the call's own parameters.
		timed = true
	}
	if timed {
		t.timed[e] = true
	}
	return timed
}

// Plan returns the plan of one call at now (µs): a copy of the template
// that the caller may change. An error means a constant the time made
// failed to fold; plan that call with Plan, which reports it as it does.
func (t *Template) Plan(now int64) (Node, error) {
	in := &instance{t: t, now: &expr.Const{V: types.TimestampValue(now)}}
	n := in.node(t.plan)
	if in.err != nil {
		return nil, in.err
	}
	return n, nil
}

// instance copies a template's nodes, giving nowRef its value.
type instance struct {
	t   *Template
	now *expr.Const
	err error
	// memo holds what each expression reading the time became: a constant
	// of the time inlined where its column is read (a CTE's bucket array)
	// is one expression in many places, folded once.
	memo map[expr.Expr]expr.Expr
	// plans holds the copy of each subquery's plan: the executor runs a
	// plan read by two subqueries once (it knows them by identity).
	plans map[Node]Node
	// params holds the copy of each per-row subquery's parameters.
	params map[*[]types.Value]*[]types.Value
}

// paramsOf returns the copy's parameter slice for the template's p.
func (in *instance) paramsOf(p *[]types.Value) *[]types.Value {
	if p == nil {
		return nil
	}
	if c, ok := in.params[p]; ok {
		return c
	}
	if in.params == nil {
		in.params = map[*[]types.Value]*[]types.Value{}
	}
	c := new([]types.Value)
	*c = make([]types.Value, len(*p))
	in.params[p] = c
	return c
}

// expr returns e with the time in place of nowRef, folded, and its
// subqueries copied; e itself when it is not timed (expressions are never
// changed in place, so the template and its copies share those).
func (in *instance) expr(e expr.Expr) expr.Expr {
	if e == nil || !in.t.timed[e] {
		return e
	}
	if _, ok := e.(nowRef); ok {
		return in.now
	}
	if x, ok := in.memo[e]; ok {
		return x
	}
	if in.memo == nil {
		in.memo = map[expr.Expr]expr.Expr{}
	}
	switch x := e.(type) {
	case *OuterParam:
		c := *x
		c.Vals = in.paramsOf(x.Vals)
		in.memo[e] = &c
		return &c
	case *Subquery:
		c := *x
		c.X, c.Key, c.Outer = in.expr(x.X), in.expr(x.Key), in.exprs(x.Outer)
		c.Params = in.paramsOf(x.Params)
		c.Plan = in.plans[x.Plan]
		if c.Plan == nil {
			c.Plan = in.node(x.Plan)
			if in.plans == nil {
				in.plans = map[Node]Node{}
			}
			in.plans[x.Plan] = c.Plan
		}
		in.memo[e] = &c
		return &c
	}
	x0 := e.WithChildren(shared(e.Children(), in.expr))
	f, err := expr.Fold(x0)
	if err != nil {
		if in.err == nil {
			in.err = err
		}
		f = x0
	}
	// Only what the copy made needs resolving: a subquery's plan holds the
	// template's calls, resolved when it was bound.
	resolveIn(f, false)
	in.memo[e] = f
	return f
}

// shared returns xs with f applied to each element: xs itself when f
// changed none (a copy of the plan shares what the time does not touch).
func shared[T comparable](xs []T, f func(T) T) []T {
	var out []T
	for i, x := range xs {
		y := f(x)
		if y != x && out == nil {
			out = append(make([]T, 0, len(xs)), xs[:i]...)
		}
		if out != nil {
			out = append(out, y)
		}
	}
	if out == nil {
		return xs
	}
	return out
}

func (in *instance) exprs(es []expr.Expr) []expr.Expr {
	return shared(es, in.expr)
}

// node copies n and its inputs. Slices of expressions are copied only
// when one of them changes (a subquery always does); the executor writes
// only the slots that hold a subquery, and the optimiser has already run.
func (in *instance) node(n Node) Node {
	switch x := n.(type) {
	case *Scan:
		c := *x
		c.nowBounds = nil
		for _, b := range x.nowBounds {
			k, ok := in.expr(b.e).(*expr.Const)
			switch {
			case !ok:
				if in.err == nil {
					in.err = ErrNoTemplate
				}
			case k.V.Null:
				c.Empty = true
			default:
				narrowTime(&c, b.op, k.V.I)
			}
		}
		if f := in.expr(x.Filter); f != x.Filter { // it read the time
			// The time made some conjuncts constant: they become the
			// scan's time bounds (or empty it) as when bound at that time.
			c.Filter, c.Eq, c.Present = nil, x.Eq[:len(x.Eq):len(x.Eq)], x.Present[:len(x.Present):len(x.Present)]
			for _, conj := range expr.SplitAnd(f) {
				addScanPredicate(&c, conj)
			}
		}
		return &c
	case *Values:
		c := *x
		rows := make([][]expr.Expr, len(x.Rows))
		for i, r := range x.Rows {
			rows[i] = in.exprs(r)
		}
		c.Rows = rows
		return &c
	case *Filter:
		c := *x
		c.In, c.Cond = in.node(x.In), in.expr(x.Cond)
		return &c
	case *Project:
		c := *x
		c.In, c.Exprs = in.node(x.In), in.exprs(x.Exprs)
		return &c
	case *Unnest:
		c := *x
		c.In, c.Expr, c.Cond = in.node(x.In), in.expr(x.Expr), in.expr(x.Cond)
		return &c
	case *Aggregate:
		c := *x
		c.In, c.Keys = in.node(x.In), in.exprs(x.Keys)
		c.Aggs = in.aggs(x.Aggs)
		c.Kept = nil
		if in.t.steady[x] {
			c.Kept = x
		}
		return &c
	case *Sort:
		c := *x
		c.In, c.Keys = in.node(x.In), in.sortKeys(x.Keys)
		return &c
	case *Limit:
		c := *x
		c.In = in.node(x.In)
		return &c
	case *Join:
		c := *x
		c.Left, c.Right = in.node(x.Left), in.node(x.Right)
		c.LeftKeys, c.RightKeys, c.Cond = in.exprs(x.LeftKeys), in.exprs(x.RightKeys), in.expr(x.Cond)
		return &c
	case *Union:
		c := *x
		c.Inputs = make([]Node, len(x.Inputs))
		for i, u := range x.Inputs {
			c.Inputs[i] = in.node(u)
		}
		return &c
	case *SetOp:
		c := *x
		c.Left, c.Right = in.node(x.Left), in.node(x.Right)
		return &c
	case *RecursiveUnion:
		c := *x
		c.Base, c.Step = in.node(x.Base), in.node(x.Step)
		return &c
	case *WorkTable:
		return x
	case *Window:
		c := *x
		c.In = in.node(x.In)
		c.Calls = make([]WindowCall, len(x.Calls))
		for i, w := range x.Calls {
			w.Args, w.Partition, w.Order = in.exprs(w.Args), in.exprs(w.Partition), in.sortKeys(w.Order)
			w.Agg.Args = in.exprs(w.Agg.Args)
			c.Calls[i] = w
		}
		return &c
	}
	// note admitted only the nodes above.
	in.err = ErrNoTemplate
	return n
}

func (in *instance) aggs(as []expr.AggCall) []expr.AggCall {
	out := make([]expr.AggCall, len(as))
	for i, a := range as {
		a.Args = in.exprs(a.Args)
		out[i] = a
	}
	return out
}

func (in *instance) sortKeys(ks []SortKey) []SortKey {
	return shared(ks, func(k SortKey) SortKey {
		k.Expr = in.expr(k.Expr)
		return k
	})
}
