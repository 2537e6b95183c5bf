package planner

import (
	"strings"

	"logq/expr"
	"logq/sqlparse"
)

// The WITH expression, WITH(a AS x, b AS y, result) (BigQuery's operators
// reference). Its variables are bound in order, each seeing those before it,
// and are read by name with precedence over columns and range variables (as
// ZetaSQL resolves them). Each is evaluated once per row: a variable is an
// expr.WithVar the executor reads from the value it computed, unless it is
// a constant or a column, which is simply put in its place (nothing to
// evaluate twice, and the result folds). Aggregates and analytic calls may
// be variables' values (WITH(s AS SUM(x), c AS COUNT(x), s / c)), but their
// arguments cannot read a variable; nor can a subquery, which ZetaSQL
// allows and logq refuses rather than read a column of the same name.

// letScope is the variables of one WITH expression, innermost first.
type letScope struct {
	names  []string
	values []expr.Expr // a WithVar, or the constant or column put in its place
	parent *letScope
}

func (s *letScope) lookup(name string) expr.Expr {
	for ; s != nil; s = s.parent {
		for i := len(s.names) - 1; i >= 0; i-- {
			if strings.EqualFold(s.names[i], name) {
				return s.values[i]
			}
		}
	}
	return nil
}

func (b *binder) withExpr(e *sqlparse.WithExpr, ctx *exprCtx) expr.Expr {
	inner := *ctx
	sc := &letScope{parent: ctx.lets}
	inner.lets = sc
	if b.lets == nil {
		b.lets = map[string]int{}
	}
	w := &expr.With{}
	for i, name := range e.Names {
		v := b.expr(e.Values[i], &inner)
		sc.names = append(sc.names, name)
		b.lets[strings.ToLower(name)]++
		switch v.(type) {
		case *expr.Const, *expr.ColRef, *sym:
			sc.values = append(sc.values, v)
			continue
		}
		b.letSeq++
		ref := &expr.WithVar{ID: b.letSeq, Name: name, T: v.Type()}
		sc.values = append(sc.values, ref)
		w.IDs = append(w.IDs, ref.ID)
		w.Names = append(w.Names, name)
		w.Vars = append(w.Vars, v)
	}
	body := b.expr(e.Result, &inner)
	for _, name := range e.Names {
		b.lets[strings.ToLower(name)]--
	}
	if len(w.Vars) == 0 {
		return body
	}
	w.Body = body
	return w
}

// letRef returns the variable name names where ctx may read it, nil when no
// WITH expression being bound has one of that name, and refuses it where a
// WITH expression has it but ctx may not read it.
func (b *binder) letRef(name string, ctx *exprCtx, pos int) expr.Expr {
	if b.lets[strings.ToLower(name)] == 0 {
		return nil
	}
	if x := ctx.lets.lookup(name); x != nil {
		return x
	}
	b.fail(pos, "%s is a variable of a WITH expression, which cannot be read in an aggregate's or analytic function's arguments, nor in a subquery", name)
	return nil
}
