package planner

import (
	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// Correlated EXISTS with one equality, decorrelated into an uncorrelated IN
// (and a scalar aggregate with one equality, into a keyed lookup: below).
//
//	EXISTS (SELECT … FROM f WHERE inner = outer AND p)
//	  = COALESCE(outer IN (SELECT inner FROM f WHERE inner IS NOT NULL AND p), FALSE)
//
// where inner reads only f's row, outer only the enclosing row, and p reads
// only f's row. Both sides are TRUE exactly when some row of f satisfies p
// with inner = outer (both non-NULL and equal); otherwise EXISTS is FALSE,
// and so is the right side: IN over non-NULL values is FALSE or, for a
// NULL outer, NULL, which COALESCE makes FALSE (an empty set gives FALSE).
//
// The names are resolved by the binder itself: while the subquery is bound,
// a name of the enclosing query becomes an outerRef instead of an error.
// The bound plan must then be Project(Filter(…)) (no grouping, DISTINCT or
// ORDER BY; a LIMIT n > 0 is dropped) and the outerRefs must all be on one side of one `=`
// conjunct of the Filter; for anything else the rewrite raises the usual
// "correlated subqueries are not supported" error at the first reference,
// and the subquery runs per outer row instead (bind_apply.go).

// collector marks the EXISTS subquery being bound: level is the index in
// binder.outer of the scope around it.
type collector struct{ level int }

// outerRef is a name of the enclosing query read inside an EXISTS
// subquery: x is bound over the enclosing row.
type outerRef struct {
	x   expr.Expr
	pos int
	msg string // the refusal, should the shape not be decorrelated
}

func (o *outerRef) Type() types.Type                   { return o.x.Type() }
func (o *outerRef) Children() []expr.Expr              { return nil }
func (o *outerRef) WithChildren([]expr.Expr) expr.Expr { return o }
func (o *outerRef) String() string                     { return "outer(" + o.x.String() + ")" }

// collectOuter binds e in the enclosing scope at index level of b.outer as
// an outerRef, when an EXISTS subquery directly inside that scope is being
// bound; else nil.
func (b *binder) collectOuter(e *sqlparse.Ident, level int, msg string) expr.Expr {
	if b.collect == nil || b.collect.level != level {
		return nil
	}
	outer, collect := b.outer, b.collect
	b.outer, b.collect = outer[:level], nil
	defer func() { b.outer, b.collect = outer, collect }()
	return &outerRef{x: b.ident(e, &exprCtx{sc: outer[level]}), pos: e.At, msg: msg}
}

// existsSubquery binds EXISTS (SELECT …), decorrelating the one shape above.
func (b *binder) existsSubquery(e *sqlparse.ExprSubquery, ctx *exprCtx) expr.Expr {
	plan, row := b.subqueryPlan(e.Query, ctx)
	if row != nil {
		return &expr.Const{V: types.BoolValue(true)}
	}
	ref := findOuterRef(plan)
	if ref == nil {
		s := b.newSubquery(SubExists, b.optimizeSubplan(plan), e.At)
		s.T = types.Bool
		return s
	}
	if x, ok := b.tryDecorrelate(func() expr.Expr { return b.existsCorrelated(e, plan, ref) }); ok {
		return x
	}
	plan, outer, params := b.applyPlan(e.Query, ctx) // bind_apply.go
	s := b.newSubquery(SubExists, b.optimizeSubplan(plan), e.At)
	s.T, s.Outer, s.Params = types.Bool, outer, params
	return s
}

// existsCorrelated decorrelates EXISTS with one equality (above), or
// refuses the shape.
func (b *binder) existsCorrelated(e *sqlparse.ExprSubquery, plan Node, ref *outerRef) expr.Expr {
	if l, ok := plan.(*Limit); ok && l.N > 0 && l.Offset == 0 {
		plan = l.In // LIMIT n > 0 does not change whether a row exists
	}
	p, ok := plan.(*Project)
	var f *Filter
	if ok {
		f, ok = p.In.(*Filter)
	}
	if !ok {
		b.refuseCorrelated(ref.pos, "%s", ref.msg)
	}
	inner, outer := b.correlatedEquality(f, ref, e.At)
	keys := &Project{In: f, Exprs: []expr.Expr{inner}, Cols: []Column{{Name: "$key", T: inner.Type()}}}
	if r := findOuterRef(keys); r != nil {
		b.refuseCorrelated(r.pos, "%s", r.msg) // a reference elsewhere (FROM, a nested subquery)
	}
	s := b.newSubquery(SubIn, b.optimizeSubplan(keys), e.At)
	s.X, s.T = outer, types.Bool
	return b.call(e.At, "coalesce", []expr.Expr{s, &expr.Const{V: types.BoolValue(false)}})
}

// correlatedEquality takes the one correlated conjunct of f, `inner = outer`
// (inner reading only the subquery's row, outer only the enclosing row),
// out of f's condition, keeps only rows whose inner is not NULL, and returns
// inner and outer (its outerRefs replaced by their expressions over the
// enclosing row). Any other use of the enclosing row is refused at ref.
func (b *binder) correlatedEquality(f *Filter, ref *outerRef, pos int) (inner, outer expr.Expr) {
	conjs := expr.SplitAnd(f.Cond)
	eqAt := -1
	for i, c := range conjs {
		if r := findOuterRefExpr(c); r != nil {
			if eqAt >= 0 {
				b.refuseCorrelated(r.pos, "%s", r.msg) // a second correlated condition
			}
			eqAt = i
		}
	}
	if eqAt < 0 {
		b.refuseCorrelated(ref.pos, "%s", ref.msg)
	}
	eq, ok := conjs[eqAt].(*expr.Call)
	if !ok || eq.Fn != "=" {
		b.refuseCorrelated(ref.pos, "%s", ref.msg)
	}
	switch l, r := eq.Args[0], eq.Args[1]; {
	case onlyOuter(l) && findOuterRefExpr(r) == nil:
		outer, inner = l, r
	case onlyOuter(r) && findOuterRefExpr(l) == nil:
		outer, inner = r, l
	default:
		b.refuseCorrelated(ref.pos, "%s", ref.msg)
	}
	rest := append(append([]expr.Expr(nil), conjs[:eqAt]...), conjs[eqAt+1:]...)
	rest = append(rest, b.call(pos, "not", []expr.Expr{b.call(pos, "is_null", []expr.Expr{inner})}))
	f.Cond = expr.JoinAnd(rest)
	outer = expr.MapExpr(outer, func(e expr.Expr) expr.Expr {
		if o, ok := e.(*outerRef); ok {
			return o.x
		}
		return e
	})
	return inner, outer
}

// Correlated scalar aggregate with one equality, decorrelated into a keyed
// lookup (SubKeyed):
//
//	(SELECT agg(…) FROM f WHERE inner = outer AND p)
//	  = the value for key outer of
//	    (SELECT inner, agg(…) FROM f WHERE p AND inner IS NOT NULL GROUP BY inner),
//	    else agg over no rows (0 for COUNT and COUNTIF, NULL otherwise)
//
// An aggregate without GROUP BY has exactly one row for each value of outer:
// the rows of f whose inner equals it, or none (a NULL or unmatched outer).
// The select list must be that one aggregate; anything else is refused with
// the usual message.
func (b *binder) scalarCorrelated(e *sqlparse.ExprSubquery, plan Node, ref *outerRef) expr.Expr {
	if s := b.scalarCorrelatedRow(e, plan, ref); s != nil {
		return s
	}
	p, ok := plan.(*Project)
	var a *Aggregate
	var f *Filter
	if ok && len(p.Exprs) == 1 {
		a, ok = p.In.(*Aggregate)
	}
	if ok && len(a.Keys) == 0 && len(a.Aggs) == 1 {
		c, isCol := p.Exprs[0].(*expr.ColRef)
		ok = isCol && c.Idx == 0
	} else {
		ok = false
	}
	if ok {
		f, ok = a.In.(*Filter)
	}
	if !ok {
		b.refuseCorrelated(ref.pos, "%s", ref.msg)
	}
	inner, outer := b.correlatedEquality(f, ref, e.At)
	call := a.Aggs[0]
	keyed := &Aggregate{In: f, Keys: []expr.Expr{inner}, Aggs: []expr.AggCall{call},
		Cols: []Column{{Name: "$key", T: inner.Type()}, {Name: "$value", T: call.T}}}
	if r := findOuterRef(keyed); r != nil {
		b.refuseCorrelated(r.pos, "%s", r.msg) // a reference elsewhere (FROM, the aggregate's arguments)
	}
	s := b.newSubquery(SubKeyed, b.optimizeSubplan(keyed), e.At)
	s.X, s.T, s.Default = outer, call.T, expr.LookupAgg(call.Fn).Empty(call.T)
	return s
}

// A correlated scalar subquery of one plain value with one equality is a
// keyed lookup too, of the rows themselves:
//
//	(SELECT v FROM f WHERE inner = outer AND p [LIMIT 1])
//	  = the v of the row of (SELECT inner, v FROM f WHERE p AND inner IS NOT NULL)
//	    whose inner is outer's value, else NULL
//
// Without LIMIT 1, a key with two rows makes the subquery of an outer row
// that reads it more than one row: an error then, as in BigQuery, and only
// then. With LIMIT 1 any one of them is the value (no ORDER BY: which one is
// unspecified, as in BigQuery). scalarCorrelatedRow returns nil when plan
// is not this shape (then the aggregate shape is tried).
func (b *binder) scalarCorrelatedRow(e *sqlparse.ExprSubquery, plan Node, ref *outerRef) expr.Expr {
	first := false
	if l, ok := plan.(*Limit); ok && l.N == 1 && l.Offset == 0 {
		plan, first = l.In, true
	}
	p, ok := plan.(*Project)
	if !ok || len(p.Exprs) != 1 {
		return nil
	}
	f, ok := p.In.(*Filter)
	if !ok {
		return nil
	}
	inner, outer := b.correlatedEquality(f, ref, e.At)
	v := p.Exprs[0]
	keyed := &Project{In: f, Exprs: []expr.Expr{inner, v},
		Cols: []Column{{Name: "$key", T: inner.Type()}, {Name: "$value", T: v.Type()}}}
	if r := findOuterRef(keyed); r != nil {
		b.refuseCorrelated(r.pos, "%s", r.msg) // a reference elsewhere (FROM, the value)
	}
	s := b.newSubquery(SubKeyed, b.optimizeSubplan(keyed), e.At)
	s.X, s.T, s.Default, s.FirstRow = outer, v.Type(), types.NullOf(v.Type()), first
	return s
}

// A correlated IN with one equality is decorrelated into a set per key:
//
//	x IN (SELECT y FROM f WHERE inner = outer AND p)
//	  = x IN (the y of the rows of (SELECT inner, y FROM f WHERE p AND inner IS NOT NULL)
//	          whose inner is outer's value)
//
// each outer row's subquery being exactly the rows of f whose inner equals
// its outer value (none for a NULL outer: the IN is then FALSE). correlatedIn
// returns the (key, value) plan and outer; any other shape is refused.
func (b *binder) correlatedIn(plan Node, ref *outerRef, pos int) (Node, expr.Expr) {
	if l, ok := plan.(*Limit); ok && l.N > 0 && l.Offset == 0 {
		b.refuseCorrelated(ref.pos, "%s", ref.msg) // which rows a LIMIT keeps per key is not defined here
	}
	p, ok := plan.(*Project)
	var f *Filter
	if ok && len(p.Exprs) == 1 {
		f, ok = p.In.(*Filter)
	}
	if !ok {
		b.refuseCorrelated(ref.pos, "%s", ref.msg)
	}
	inner, outer := b.correlatedEquality(f, ref, pos)
	v := p.Exprs[0]
	keyed := &Project{In: f, Exprs: []expr.Expr{inner, v},
		Cols: []Column{{Name: "$key", T: inner.Type()}, {Name: p.Cols[0].Name, T: v.Type()}}}
	if r := findOuterRef(keyed); r != nil {
		b.refuseCorrelated(r.pos, "%s", r.msg) // a reference elsewhere (FROM, the value)
	}
	return keyed, outer
}

// onlyOuter reports whether e reads the enclosing row and nothing of the
// subquery's own.
func onlyOuter(e expr.Expr) bool {
	used := map[int]bool{}
	expr.ColsUsed(e, used)
	return len(used) == 0 && findOuterRefExpr(e) != nil
}

// findOuterRef returns an outerRef anywhere in a plan (its inputs and the
// plans of its subqueries included), or nil.
func findOuterRef(n Node) *outerRef {
	var found *outerRef
	for _, e := range n.Expressions() {
		if found == nil {
			found = findOuterRefExpr(e)
		}
	}
	for _, in := range n.Children() {
		if found == nil {
			found = findOuterRef(in)
		}
	}
	return found
}

func findOuterRefExpr(e expr.Expr) *outerRef {
	switch x := e.(type) {
	case *outerRef:
		return x
	case *Subquery:
		if r := findOuterRef(x.Plan); r != nil {
			return r
		}
	}
	for _, c := range e.Children() {
		if r := findOuterRefExpr(c); r != nil {
			return r
		}
	}
	return nil
}
