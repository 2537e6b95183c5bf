package planner

import (
	"slices"
	"strings"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// Recursive CTEs (WITH RECURSIVE), as BigQuery has them: a CTE of a
// recursive WITH may read itself, and one that does is `base UNION ALL
// step` (or UNION DISTINCT), where base does not read it and step reads it once, as a FROM
// item, not inside an aggregate, a window, ORDER BY/LIMIT, INTERSECT/EXCEPT,
// the padded side of an outer join, or a subquery. Its rows are base's,
// then step's over the rows the step before it made, until a step makes no
// row (RecursiveUnion, plan_recursive.go). The base's columns name and type
// the CTE; the step's are coerced to them.

// recursiveCTE binds a CTE of a recursive WITH where it is read.
func (b *binder) recursiveCTE(def *cteDef) Node {
	q := def.cte.Query
	name := def.cte.Name
	def.binding = true
	b.recursing = append(b.recursing, def)
	defer func() { def.binding, b.recursing = false, b.recursing[:len(b.recursing)-1] }()
	set, isSet := q.Body.(*sqlparse.SetOp)
	if !isSet || set.Op != "UNION" || set.Mode != "" || set.Match != "" || len(q.With) > 0 || len(q.OrderBy) > 0 || q.Limit != nil || q.Offset != nil {
		// Not of the recursive form: it must not read itself.
		def.inBase = true
		defer func() { def.inBase = false }()
		return b.query(q, def.env)
	}
	def.inBase = true
	base := b.setExpr(set.Left, def.env)
	def.inBase = false
	// A column the base makes only NULLs of is INT64, as BigQuery types
	// an untyped NULL; the step's rows must fit it.
	cols := slices.Clone(base.Columns())
	var nullCols []expr.Expr
	typed := false
	for i, c := range cols {
		ref := expr.Expr(&expr.ColRef{Idx: i, T: c.T, Name: c.Name})
		if c.T.Kind == types.KindNull {
			cols[i].T = types.Int64
			ref, typed = &expr.Call{Fn: "cast", Args: []expr.Expr{ref}, T: types.Int64}, true
		}
		nullCols = append(nullCols, ref)
	}
	if typed {
		base = &Project{In: base, Exprs: nullCols, Cols: cols}
	}
	work := &WorkTable{Name: name, Cols: cols}
	def.work, def.refs = work, 0
	step := b.setExpr(set.Right, def.env)
	def.work = nil
	if def.refs == 0 { // a plain UNION ALL after all
		return b.setOp(set, def.env)
	}
	if def.refs > 1 {
		b.fail(set.Right.Pos(), "the recursive term of %s reads it more than once", name)
	}
	if why := misplacedWork(step, work, ""); why != "" {
		b.fail(set.Right.Pos(), "the recursive term of %s reads it %s", name, why)
	}
	sc := step.Columns()
	if len(sc) != len(cols) {
		b.fail(set.Right.Pos(), "the recursive term of %s has %d columns, its base term %d", name, len(sc), len(cols))
	}
	var exprs []expr.Expr
	cast := false
	for i, c := range sc {
		ref := expr.Expr(&expr.ColRef{Idx: i, T: c.T, Name: c.Name})
		if !c.T.Equal(cols[i].T) {
			x, err := expr.CoerceTo(ref, cols[i].T)
			if err != nil {
				b.fail(set.Right.Pos(), "column %d of the recursive term of %s is %s, its base term's %s", i+1, name, c.T, cols[i].T)
			}
			ref, cast = x, true
		}
		exprs = append(exprs, ref)
	}
	if cast {
		step = &Project{In: step, Exprs: exprs, Cols: cols}
	}
	return &RecursiveUnion{Base: base, Step: step, Work: work, Cols: cols, Distinct: !set.All}
}

// misplacedWork says where in step the work table is read from a place a
// recursive term may not read it, or "".
func misplacedWork(n Node, work *WorkTable, under string) string {
	if n == Node(work) {
		return under
	}
	for _, s := range Subqueries(n) {
		if readsNode(s.Plan, work) {
			return "in a subquery"
		}
	}
	for i, in := range n.Children() {
		here := under
		switch x := n.(type) {
		case *Aggregate:
			here = "in an aggregation or DISTINCT"
		case *Window:
			here = "under a window function"
		case *Sort, *Limit:
			here = "under ORDER BY or LIMIT"
		case *SetOp:
			here = "in " + strings.ToLower(x.Name())
		case *RecursiveUnion:
			here = "in another recursive CTE"
		case *Join:
			if padded := x.Kind == JoinFull || x.Kind == JoinLeft && i == 1 || x.Kind == JoinRight && i == 0; padded {
				here = "on the NULL-padded side of an outer join"
			}
		}
		if why := misplacedWork(in, work, here); why != "" {
			return why
		}
	}
	return ""
}

// readsNode reports whether the plan n holds the node target.
func readsNode(n, target Node) bool {
	if n == target {
		return true
	}
	for _, in := range n.Children() {
		if readsNode(in, target) {
			return true
		}
	}
	return false
}
