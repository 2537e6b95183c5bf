package planner

import (
	"testing"

	"github.com/stretchr/testify/require"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// walkExprs calls fn on every expression of n, of its inputs and of its
// subqueries' plans.
func walkExprs(n Node, fn func(expr.Expr)) {
	var visit func(e expr.Expr)
	visit = func(e expr.Expr) {
		fn(e)
		if s, ok := e.(*Subquery); ok {
			walkExprs(s.Plan, fn)
		}
		for _, c := range e.Children() {
			visit(c)
		}
	}
	for _, e := range n.Expressions() {
		visit(e)
	}
	for _, c := range n.Children() {
		walkExprs(c, fn)
	}
}

// perRow returns the parameters of the one subquery of n run per outer
// row, and the slices its OuterParams read.
func perRow(t *testing.T, n Node) (params *[]types.Value, reads []*[]types.Value) {
	walkExprs(n, func(e expr.Expr) {
		switch x := e.(type) {
		case *Subquery:
			if x.Params != nil {
				require.Nil(t, params, "one per-row subquery")
				params = x.Params
			}
		case *OuterParam:
			reads = append(reads, x.Vals)
		}
	})
	require.NotNil(t, params, "a per-row subquery")
	require.NotEmpty(t, reads, "its plan reads an outer parameter")
	return params, reads
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
	templateParams, _ := perRow(t, tmpl.plan)
	seen := map[*[]types.Value]bool{templateParams: true}
	for _, now := range []int64{planNow.UnixMicro(), planNow.UnixMicro() + 3600e6} {
		p, err := tmpl.Plan(now)
		require.NoError(t, err)
		params, reads := perRow(t, p)
		require.False(t, seen[params], "a copy's parameters are its own")
		seen[params] = true
		require.Len(t, *params, len(*templateParams))
		for _, r := range reads {
			require.Same(t, params, r, "an OuterParam of the copy reads the copy's parameters")
		}
	}
}

// A copy marks an aggregate Kept only when nothing under it but its scan's
// time bounds changes from call to call; a plan bound directly marks none.
func TestTemplateMarksSteadyAggregates(t *testing.T) {
	for _, c := range []struct {
		sql    string
		steady bool
	}{
		{"select project, count(*) as n from s where timestamp >= timestamp_sub(current_timestamp(), interval 1 hour) group by project", true},
		{"select timestamp_trunc(timestamp, hour) as h, max(event_message) as m from s where project = 'p' group by h", true},
		{"select countif(timestamp >= timestamp_sub(current_timestamp(), interval 1 hour)) as n from s", false},
		{"select count(*) as n from s where rand() < 0.5", false},
		{"select timestamp_diff(current_timestamp(), timestamp, minute) as age, count(*) as n from s group by age", false},
		{"select age, count(*) as n from (select timestamp_diff(current_timestamp(), timestamp, hour) as age from s) group by age", false},
		{"select count(*) as n from s where project in (select event_message from s where timestamp > timestamp_sub(current_timestamp(), interval 1 hour))", false},
	} {
		q, err := sqlparse.Parse(c.sql)
		require.NoError(t, err)
		tmpl, err := NewTemplate(q, c.sql, Options{Catalog: testCatalog{}})
		require.NoError(t, err, c.sql)
		var aggs []*Aggregate
		for _, now := range []int64{planNow.UnixMicro(), planNow.UnixMicro() + 3600e6} {
			p, err := tmpl.Plan(now)
			require.NoError(t, err)
			a := outerAggregate(t, p)
			if !c.steady {
				require.Nil(t, a.Kept, c.sql)
				continue
			}
			require.NotNil(t, a.Kept, c.sql)
			require.NotSame(t, a, a.Kept, "the copy is not the template's node")
			aggs = append(aggs, a.Kept)
		}
		if c.steady {
			require.Same(t, aggs[0], aggs[1], "every copy names the same node: %s", c.sql)
		}
		bound, err := Plan(q, c.sql, Options{Catalog: testCatalog{}, Now: planNow.UnixMicro()})
		require.NoError(t, err)
		require.Nil(t, outerAggregate(t, bound).Kept, "a plan bound directly: %s", c.sql)
	}
}

// outerAggregate returns the first Aggregate of n, top down.
func outerAggregate(t *testing.T, n Node) *Aggregate {
	if a, ok := n.(*Aggregate); ok {
		return a
	}
	for _, c := range n.Children() {
		if a := outerAggregate(t, c); a != nil {
			return a
		}
	}
	return nil
}
