package planner

import (
	"strings"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// Subqueries inside expressions: (SELECT x …), EXISTS (SELECT …),
// ARRAY(SELECT x …) and x [NOT] IN (SELECT y …).
//
// A subquery is bound like a derived table, with the CTEs visible where it
// is written (so a sandboxed caller's subquery can read CTEs only, exactly as
// its FROM can), and optimised on its own. A name that the subquery does
// not define but the query around it does is a correlated reference: the
// subquery is decorrelated (bind_correlated.go) or run per outer row
// (bind_apply.go); a reference two queries out is refused ("correlated
// subqueries are not supported"). It is never read as a field of the
// subquery's own source that no event has yet (which would read NULL and
// answer wrongly). A column of an enclosing constant row (a CTE or derived
// table of constants, inlined) is a constant and may be read.
//
// A subquery whose plan is one row of constants folds now: its value, TRUE
// for EXISTS, x = value for IN. Any other becomes a Subquery expression that
// the executor evaluates once per query.

// exprSubquery binds (SELECT …), EXISTS (SELECT …) and ARRAY(SELECT …).
func (b *binder) exprSubquery(e *sqlparse.ExprSubquery, ctx *exprCtx) expr.Expr {
	kind := SubScalar
	switch e.Kind {
	case "EXISTS":
		kind = SubExists
	case "ARRAY":
		kind = SubArray
	}
	if kind == SubExists {
		return b.existsSubquery(e, ctx) // bind_correlated.go
	}
	plan, row := b.subqueryPlan(e.Query, ctx)
	var outer []expr.Expr
	var params *[]types.Value
	if ref := findOuterRef(plan); ref != nil {
		if kind == SubScalar {
			if s, ok := b.tryDecorrelate(func() expr.Expr { return b.scalarCorrelated(e, plan, ref) }); ok {
				return s // bind_correlated.go
			}
		}
		plan, outer, params = b.applyPlan(e.Query, ctx) // bind_apply.go
		row = nil
	}
	cols := plan.Columns()
	s := b.newSubquery(kind, plan, e.At)
	s.Outer, s.Params = outer, params
	switch kind {
	case SubExists:
		s.T = types.Bool
		if row != nil {
			return &expr.Const{V: types.BoolValue(true)}
		}
	case SubScalar:
		if len(cols) != 1 {
			b.fail(e.At, "a scalar subquery must have exactly one column, found %d (SELECT AS STRUCT makes one)", len(cols))
		}
		s.T = cols[0].T
		if row != nil {
			return constColumn(row[0]) // a column's value, no literal
		}
	case SubArray:
		if len(cols) != 1 {
			b.fail(e.At, "an ARRAY subquery must have exactly one column, found %d (SELECT AS STRUCT makes one)", len(cols))
		}
		elem := cols[0].T
		switch elem.Kind {
		case types.KindArray:
			b.fail(e.At, "an ARRAY subquery cannot select an ARRAY (%s): an array cannot contain an array", elem)
		case types.KindNull:
			elem = types.Int64
		}
		s.T = types.ArrayOf(elem)
		if row != nil && !row[0].(*expr.Const).V.Null {
			return b.call(e.At, "make_array", []expr.Expr{constColumn(row[0])})
		}
	}
	s.Plan = b.optimizeSubplan(plan)
	return s
}

// inSubquery binds x [NOT] IN (SELECT y …).
func (b *binder) inSubquery(e *sqlparse.In, ctx *exprCtx) expr.Expr {
	x := b.expr(e.X, ctx)
	plan, row := b.subqueryPlan(e.Query, ctx)
	var key expr.Expr // the enclosing row's key, for a correlated IN
	var outer []expr.Expr
	var params *[]types.Value
	if ref := findOuterRef(plan); ref != nil {
		var p Node
		if _, ok := b.tryDecorrelate(func() expr.Expr { p, key = b.correlatedIn(plan, ref, e.At); return nil }); ok {
			plan = p // bind_correlated.go
		} else {
			plan, outer, params = b.applyPlan(e.Query, ctx) // bind_apply.go
			key, row = nil, nil
		}
	}
	cols := plan.Columns()
	if want := map[bool]int{false: 1, true: 2}[key != nil]; len(cols) != want {
		b.fail(e.Query.At, "the subquery of IN must have exactly one column, found %d", len(cols)-want+1)
	}
	ct := cols[len(cols)-1].T
	if x.Type().Collated() || ct.Collated() {
		x, plan, row = b.inCollated(e.At, x, plan, row) // compare collation keys
		cols, ct = plan.Columns(), plan.Columns()[len(cols)-1].T
	}
	if x.Type().Has(types.KindArray) || ct.Has(types.KindArray) {
		// BigQuery has no equality of arrays (ZetaSQL's is an extension
		// logq's = has, its IN set does not).
		b.fail(e.At, "IN (subquery) of values holding an ARRAY (%s, %s) is not supported: compare their other fields, or use EXISTS", x.Type(), ct)
	}
	// Type the comparison as `x = y` does (numbers mix, a constant string
	// becomes a timestamp, …), keeping x as coerced.
	vcol := cols[len(cols)-1] // a correlated IN's plan has the key first
	probe := &expr.Call{Fn: "=", Args: []expr.Expr{x, &expr.ColRef{T: vcol.T, Name: vcol.Name}}}
	if b.symbolic {
		probe.Args = constStrings(probe.Args)
	}
	if _, err := expr.Registered("=").Check(probe); err != nil {
		b.failErr(e.At, err)
	}
	if !b.symbolic {
		x = probe.Args[0]
	}
	var r expr.Expr
	if row != nil {
		r = b.call(e.At, "=", []expr.Expr{x, row[0]})
	} else {
		s := b.newSubquery(SubIn, b.optimizeSubplan(plan), e.At)
		s.X, s.Key, s.T = x, key, types.Bool
		s.Outer, s.Params = outer, params
		r = s
	}
	if e.Not {
		r = b.call(e.At, "not", []expr.Expr{r})
	}
	return r
}

func (b *binder) newSubquery(kind SubqueryKind, plan Node, pos int) *Subquery {
	s := &Subquery{Kind: kind, Plan: plan}
	s.Line, s.Col = sqlparse.Position(b.src, pos)
	return s
}

// subqueryPlan binds a subquery in the scope of the expression holding it:
// its CTEs are visible, its columns are outer names (outerName), and what
// it reads of them is collected as outerRefs (findOuterRef finds them).
// row is the subquery's one row when it is constants.
func (b *binder) subqueryPlan(q *sqlparse.Query, ctx *exprCtx) (plan Node, row []expr.Expr) {
	var env *cteEnv
	saved := b.collect
	b.collect = nil
	if ctx.sc != nil {
		env = ctx.sc.env
		b.collect = &collector{level: len(b.outer)}
		b.outer = append(b.outer, ctx.sc)
		defer func() { b.outer = b.outer[:len(b.outer)-1] }()
	}
	defer func() { b.collect = saved }()
	plan = b.query(q, env)
	if isStructTable(q.Body) {
		plan = structRow(plan)
	}
	// Only true constants: what the binder does with a subquery's constant
	// row depends on its value (a NULL array element), so in a template a
	// subquery of the query's time stays a subquery (and the plan is
	// planned per call).
	return plan, constRow(plan, false)
}

// isStructTable reports whether q's rows are SELECT AS STRUCT's: one such
// SELECT, or a set operation by position of such (ARRAY(SELECT AS STRUCT
// 1, 2 UNION ALL SELECT AS STRUCT 3, 4), the reference's example), whose
// rows are wrapped after it as each branch's would be before.
func isStructTable(q sqlparse.SetExpr) bool { return selectsAs(q, "STRUCT") }

// structRow makes SELECT AS STRUCT's one column: a STRUCT of the select
// list's columns, named as they are (an unnamed expression's field is
// anonymous).
func structRow(plan Node) Node {
	cols := plan.Columns()
	fields := make([]types.Field, len(cols))
	args := make([]expr.Expr, len(cols))
	for i, c := range cols {
		name := c.Name
		if strings.HasPrefix(name, "$") {
			name = ""
		}
		fields[i] = types.Field{Name: name, Type: c.T}
		args[i] = &expr.ColRef{Idx: i, T: c.T, Name: c.Name}
	}
	t := types.StructOf(fields...)
	return &Project{In: plan, Exprs: []expr.Expr{&expr.Call{Fn: "make_struct", Args: args, T: t}}, Cols: []Column{{Name: "$struct", T: t}}}
}

// optimizeSubplan applies the rewrite rules to a subquery's plan at a call
// (Check binds only).
func (b *binder) optimizeSubplan(plan Node) Node {
	if b.symbolic {
		return plan
	}
	return optimize(plan)
}

// outerName resolves a name that the innermost query does not define in the
// queries around the subqueries being bound: a constant of an inlined
// constant row is returned; anything else is a correlated reference, refused.
// It returns nil when no enclosing query has the name.
func (b *binder) outerName(e *sqlparse.Ident) expr.Expr {
	parts := e.Parts
	name := strings.Join(parts, ".")
	for i := len(b.outer) - 1; i >= 0; i-- {
		sc := b.outer[i]
		var what string
		if rv := sc.find(parts[0]); rv != nil {
			if rv.kind == rvConst && len(parts) > 1 {
				if x := b.columnOf(rv, parts[1]); x != nil {
					return b.fields(x, parts[2:], e.At)
				}
			}
			what = "table " + parts[0]
			if len(parts) > 1 {
				what = "column " + parts[0] + "." + parts[1]
			}
		} else {
			for _, rv := range sc.vars {
				if !hasColumn(rv, parts[0]) {
					continue
				}
				if rv.kind == rvConst {
					return b.fields(b.columnOf(rv, parts[0]), parts[1:], e.At)
				}
				what = "column " + parts[0]
				if rv.alias != "" {
					what = "column " + rv.alias + "." + parts[0]
				}
				break
			}
		}
		if what == "" {
			continue
		}
		msg := correlatedRefusal + ": " + name + " refers to outer " + what
		if x := b.collectOuter(e, i, msg); x != nil { // a column, an element or a whole row
			return x
		}
		b.refuseCorrelated(e.At, "%s", msg)
	}
	return nil
}

// hasColumn reports, without side effects, whether name is a column of rv.
func hasColumn(rv *rangeVar, name string) bool {
	switch rv.kind {
	case rvScan:
		_, _, ok := fieldOf(rv, name)
		return ok
	case rvPath:
		_, _, ok := fieldOf(rv.scanRV, rv.prefix+"."+name)
		return ok
	case rvView:
		return rv.viewColumn(name) != ""
	case rvPlan, rvConst:
		for _, c := range rv.cols {
			if strings.EqualFold(c.Name, name) {
				return true
			}
		}
	case rvElem:
		t := rv.cols[0].T
		return rv.alias == "" && t.Kind == types.KindStruct && t.FieldIndex(name) >= 0
	}
	return false
}

// isSubqueryBody reports whether an AST node met inside an expression is
// the query of a subquery (whose aggregates are its own).
func isSubqueryBody(n sqlparse.Node) bool {
	_, ok := n.(*sqlparse.Query)
	return ok
}

// inCollated makes x IN (subquery) compare under the collation x or the
// subquery's column has (both, if both have one, the same): x and the
// column (or the constant row's value) become their collation keys.
func (b *binder) inCollated(pos int, x expr.Expr, plan Node, row []expr.Expr) (expr.Expr, Node, []expr.Expr) {
	cols := plan.Columns()
	last := len(cols) - 1
	col := &expr.ColRef{Idx: last, T: cols[last].T, Name: cols[last].Name}
	for _, t := range []types.Type{x.Type(), col.T} {
		if t.Collated() && t.Kind != types.KindString {
			b.fail(pos, "IN (subquery) of %s is not supported: a collated STRING inside it", t)
		}
	}
	spec, err := expr.ArgCollation("in", []expr.Expr{x, col})
	if err != nil {
		b.failErr(pos, err)
	}
	exprs := make([]expr.Expr, len(cols))
	out := make([]Column, len(cols))
	for i, c := range cols {
		exprs[i], out[i] = &expr.ColRef{Idx: i, T: c.T, Name: c.Name}, c
	}
	exprs[last] = b.keyOf(pos, col, spec)
	out[last].T = exprs[last].Type()
	if row != nil {
		row = []expr.Expr{b.keyOf(pos, row[0], spec)}
	}
	return b.keyOf(pos, x, spec), &Project{In: plan, Exprs: exprs, Cols: out}, row
}
