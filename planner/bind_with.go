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
// evaluate twice, and the result folds; so is a parameter, or the query's
// time, which the check and the kept plans treat as they do anywhere).
// Aggregates and analytic calls may be variables' values (WITH(s AS SUM(x),
// c AS COUNT(x), s / c)), but their arguments cannot read a variable. A
// subquery's own names are its own; a name it would read from the enclosing
// query that is a variable there is refused (ZetaSQL reads the variable,
// which logq cannot pass into a subquery yet), never read as a column of
// the same name.

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
		case *expr.Const, *expr.ColRef, *sym, *paramRef, nowRef, *outerRef:
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

// letRef returns the WITH expression variable called name that ctx may
// read, nil when it has none, and refuses the name in an aggregate's or
// analytic call's arguments inside a WITH expression that has it.
func (b *binder) letRef(name string, ctx *exprCtx, pos int) expr.Expr {
	if b.lets[strings.ToLower(name)] == 0 {
		return nil
	}
	if x := ctx.lets.lookup(name); x != nil {
		return x
	}
	if ctx.noLets.lookup(name) != nil {
		b.fail(pos, "%s is a variable of a WITH expression, which cannot be read in an aggregate's or analytic function's arguments", name)
	}
	return nil
}

// refuseOuterLet refuses a name that the scopes being bound do not have and
// that a WITH expression being bound does: a subquery's (or CTE's) read of
// the variable, which it cannot see.
func (b *binder) refuseOuterLet(name string, pos int) {
	if b.lets[strings.ToLower(name)] > 0 {
		b.fail(pos, "%s is a variable of a WITH expression, which a subquery cannot read", name)
	}
}

// rowNames calls f for each name n reads from the row, outside its
// subqueries: not a WITH expression's variable where the variable is seen
// (PIVOT's implicit grouping and GROUP BY ALL ask which columns a query
// names).
func rowNames(n sqlparse.Node, f func(*sqlparse.Ident)) { rowNamesIn(n, nil, f) }

func rowNamesIn(n sqlparse.Node, lets []string, f func(*sqlparse.Ident)) {
	walkASTIf(n, func(x sqlparse.Node) bool {
		switch x := x.(type) {
		case *sqlparse.Ident:
			for _, l := range lets {
				if strings.EqualFold(l, x.Parts[0]) {
					return true
				}
			}
			f(x)
		case *sqlparse.WithExpr:
			seen := lets
			for i, v := range x.Values {
				rowNamesIn(v, seen, f)
				seen = append(seen[:len(seen):len(seen)], x.Names[i])
			}
			rowNamesIn(x.Result, seen, f)
			return false
		}
		return !isSubqueryBody(x)
	})
}

// once makes x, an operand that syntax reads more than once (x BETWEEN lo
// AND hi, CASE x WHEN …, x IN (a, b), x LIKE ANY (p, q)), a variable when
// it is volatile, so that every
// read sees one draw: it returns what to read x as, and what to wrap the
// bound result in.
func (b *binder) once(x expr.Expr) (expr.Expr, func(expr.Expr) expr.Expr) {
	if !expr.IsVolatile(x) {
		return x, func(r expr.Expr) expr.Expr { return r }
	}
	return b.letVar(x)
}

// letVar makes x a variable computed once per row: what to read it as, and
// what to wrap the expression reading it in.
func (b *binder) letVar(x expr.Expr) (expr.Expr, func(expr.Expr) expr.Expr) {
	b.letSeq++
	ref := &expr.WithVar{ID: b.letSeq, Name: "$operand", T: x.Type()}
	return ref, func(r expr.Expr) expr.Expr {
		return &expr.With{IDs: []int{ref.ID}, Names: []string{ref.Name}, Vars: []expr.Expr{x}, Body: r}
	}
}
