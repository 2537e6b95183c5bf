package planner

import (
	"testing"

	"github.com/stretchr/testify/require"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// outerParams lists, for each subquery run per outer row in n (and in its
// inputs and subqueries' plans), its Params and the Vals of every
// OuterParam its plan reads.
func outerParams(n Node, out map[*Subquery][]*[]types.Value) {
	var visit func(e expr.Expr)
	visit = func(e expr.Expr) {
		if s, ok := e.(*Subquery); ok {
			if s.Params != nil {
				var reads []*[]types.Value
				var inPlan func(n Node)
				inPlan = func(n Node) {
					for _, e := range n.Expressions() {
						expr.MapExpr(e, func(x expr.Expr) expr.Expr {
							if o, ok := x.(*OuterParam); ok {
								reads = append(reads, o.Vals)
							}
							return x
						})
					}
					for _, c := range n.Children() {
						inPlan(c)
					}
				}
				inPlan(s.Plan)
				out[s] = append([]*[]types.Value{s.Params}, reads...)
			}
			outerParams(s.Plan, out)
		}
		for _, c := range e.Children() {
			visit(c)
		}
	}
	for _, e := range n.Expressions() {
		visit(e)
	}
	for _, c := range n.Children() {
		outerParams(c, out)
	}
}

// Each copy of a template gives a subquery run per outer row its own
// parameters, and every OuterParam of the copied plan reads them: two calls
// at once never share the slice the executor writes each outer row into.
func TestTemplateCopiesPerRowParameters(t *testing.T) {
	sql := "select count(*) as n from s as a where" +
		" (select count(*) from s as b where b.timestamp <= a.timestamp and b.timestamp >= timestamp_sub(current_timestamp(), interval 1 hour)) > 0"
	q, err := sqlparse.Parse(sql)
	require.NoError(t, err)
	tmpl, err := NewTemplate(q, sql, Options{Catalog: testCatalog{}})
	require.NoError(t, err)
	held := map[*Subquery][]*[]types.Value{}
	outerParams(tmpl.plan, held)
	require.Len(t, held, 1, "the query has one per-row subquery")
	var templateParams *[]types.Value
	for _, ps := range held {
		templateParams = ps[0]
		require.Greater(t, len(ps), 1, "its plan reads an outer parameter")
	}
	seen := map[*[]types.Value]bool{templateParams: true}
	for _, now := range []int64{planNow.UnixMicro(), planNow.UnixMicro() + 3600e6} {
		p, err := tmpl.Plan(now)
		require.NoError(t, err)
		got := map[*Subquery][]*[]types.Value{}
		outerParams(p, got)
		require.Len(t, got, 1)
		for s, ps := range got {
			require.NotNil(t, s.Params)
			require.False(t, seen[s.Params], "a copy's parameters are its own")
			seen[s.Params] = true
			require.Len(t, *s.Params, len(*templateParams))
			for _, r := range ps[1:] {
				require.Same(t, s.Params, r, "an OuterParam of the copy reads the copy's parameters")
			}
		}
	}
}
