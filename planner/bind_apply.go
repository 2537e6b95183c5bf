package planner

import (
	"errors"
	"fmt"
	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// General correlated subqueries. A subquery that reads columns of the
// enclosing row and fits none of the decorrelated shapes of
// bind_correlated.go (one equality) is run per outer row instead: its plan
// reads an OuterParam where it read the enclosing row, the Subquery lists
// the enclosing row's expressions for them (Outer), and the executor runs
// the plan once for each distinct tuple of their values, with the
// parameters set (exec/op_apply.go).
//
// Only references to the query directly around the subquery (a column, an
// UNNEST element, a whole row) are parameters; a subquery nested inside it
// that reads that query is refused, as a reference two levels out is.

// correlatedRefusal starts the refusal of a correlated reference; the
// decorrelation rewrites raise it (refuseCorrelated) when a subquery is not
// their shape, and tryDecorrelate tells it from other errors by
// errCorrelated, not by its text.
const correlatedRefusal = "correlated subqueries are not supported"

// errCorrelated is the Err of every refusal of a correlated reference.
var errCorrelated = errors.New(correlatedRefusal)

// refuseCorrelated raises a refusal of a correlated reference at pos.
func (b *binder) refuseCorrelated(pos int, format string, args ...any) {
	line, col := sqlparse.Position(b.src, pos)
	panic(&Error{Line: line, Col: col, Msg: fmt.Sprintf(format, args...), Err: errCorrelated})
}

// tryDecorrelate runs a decorrelation rewrite; ok is false when it refused
// the subquery's shape (then the subquery runs per outer row).
func (b *binder) tryDecorrelate(f func() expr.Expr) (e expr.Expr, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if err, is := r.(*Error); is && errors.Is(err, errCorrelated) {
				e, ok = nil, false
				return
			}
			panic(r)
		}
	}()
	return f(), true
}

// applyPlan binds q afresh (a refused rewrite may have changed the first
// plan) with the enclosing row's columns collected as outerRefs, and turns
// each distinct one into an OuterParam.
func (b *binder) applyPlan(q *sqlparse.Query, ctx *exprCtx) (Node, []expr.Expr, *[]types.Value) {
	plan, _ := b.subqueryPlan(q, ctx)
	params := new([]types.Value)
	var outer []expr.Expr
	index := map[string]int{}
	var rewrite func(n Node)
	rewrite = func(n Node) {
		for _, in := range n.Children() {
			rewrite(in)
		}
		MapExprs(n, func(e expr.Expr) expr.Expr {
			switch x := e.(type) {
			case *Subquery:
				if r := findOuterRef(x.Plan); r != nil {
					b.refuseCorrelated(r.pos, "%s (from a subquery inside a correlated subquery)", r.msg)
				}
			case *outerRef:
				key := x.x.String()
				i, seen := index[key]
				if !seen {
					i = len(outer)
					index[key] = i
					outer = append(outer, x.x)
				}
				return &OuterParam{Idx: i, T: x.x.Type(), Vals: params}
			}
			return e
		})
	}
	rewrite(plan)
	*params = make([]types.Value, len(outer))
	return plan, outer, params
}
