package planner

import (
	"strings"

	"logq/expr"
	"logq/sqlparse"
)

// GROUP BY ALL, as BigQuery defines it: the keys are the select items,
// except those that
//
//   - call an aggregate or an analytic function,
//   - read no name of the FROM clause (constants, parameters), or
//   - read only names that are themselves keys (`a` and `a + 1`: the
//     second is excluded; it would add nothing but could be of a type
//     that cannot group).
//
// No key left means one group over every row, as GROUP BY () would. An
// item of SELECT * is a column, so a key.
func (b *binder) groupAllKeys(items []selItem, sc *scope) []expr.Expr {
	idents := make([][]string, len(items))
	plain := map[string]bool{} // keys that are a bare name, lower case
	cand := make([]bool, len(items))
	for i, it := range items {
		if it.ast == nil {
			cand[i] = true
			plain[strings.ToLower(it.name)] = true
			continue
		}
		if hasAggregate(it.ast) || hasAnalytic(it.ast) {
			continue
		}
		idents[i] = identPaths(it.ast)
		if len(idents[i]) == 0 {
			continue
		}
		cand[i] = true
		if id, ok := it.ast.(*sqlparse.Ident); ok {
			plain[strings.ToLower(strings.Join(id.Parts, "."))] = true
		}
	}
	var keys []expr.Expr
	for i, it := range items {
		if !cand[i] {
			continue
		}
		if _, bare := it.ast.(*sqlparse.Ident); it.ast != nil && !bare && allIn(idents[i], plain) {
			continue
		}
		var k expr.Expr
		if it.ast == nil {
			k = it.expr
		} else {
			k = b.expr(it.ast, &exprCtx{sc: sc})
		}
		b.orderable(it.pos, "GROUP BY", k.Type()) // as for written keys: not JSON, not collated
		keys = append(keys, k)
	}
	return keys
}

// identPaths lists the names an expression reads (lower case, dotted),
// outside its subqueries.
func identPaths(e sqlparse.Expr) []string {
	var out []string
	rowNames(e, func(id *sqlparse.Ident) {
		out = append(out, strings.ToLower(strings.Join(id.Parts, ".")))
	})
	return out
}

func allIn(names []string, set map[string]bool) bool {
	for _, n := range names {
		if !set[n] {
			return false
		}
	}
	return true
}

// hasAnalytic reports whether e calls an analytic function (OVER), outside
// its subqueries.
func hasAnalytic(e sqlparse.Expr) bool {
	found := false
	walkASTIf(e, func(n sqlparse.Node) bool {
		if c, ok := n.(*sqlparse.Call); ok && c.Over != nil {
			found = true
		}
		return !isSubqueryBody(n)
	})
	return found
}
