package planner

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// A subquery's plan is optimised on its own and keeps the columns it reads;
// the enclosing plan keeps the columns of IN's left operand, and predicates
// reading only the enclosing row still reach its scan.
func TestSubqueryPlans(t *testing.T) {
	plan := planOf(t, `select id from a where event_message in (select id from b where project = 'p') and project = 'q'`, nil)
	t.Log("\n" + plan)
	require.Contains(t, plan, `Scan a [event_message, project, id] project="q" filter=in(#0:event_message, subquery{Project [#1:id AS id]; Scan b [project, id] project="p"})`)

	plan = planOf(t, `select (select max(timestamp) from b) as m, exists (select id from c) as e from a`, nil)
	t.Log("\n" + plan)
	require.Contains(t, plan, "scalar(subquery{Project [#0:$agg0 AS $col1]; Aggregate keys=[] aggs=[max(#0:timestamp)]; Scan b [timestamp]})")
	require.Contains(t, plan, "exists(subquery{Project [#0:id AS id]; Scan c [id]})")
	require.Contains(t, plan, "  Scan a []") // one row per event, no field read

	// A constant subquery folds: its value, TRUE for EXISTS, = for IN.
	plan = planOf(t, `select (select 2) as two, exists (select 1) as e, id in (select 'x') as i from a`, nil)
	require.Contains(t, plan, `Project [2 AS two, true AS e, (#0:id = "x") AS i]`)
}

func TestSubqueryRefusals(t *testing.T) {
	cases := []struct{ sql, err string }{
		// A correlated subquery runs: decorrelated when it is EXISTS, IN or
		// a scalar aggregate or value with one equality, else per outer row
		// (bind_apply.go).
		{"select id from a as x where exists (select 1 from b where b.id > x.id)", ""},
		{"select id from a as x where exists (select 1 from b where b.id = x.id and b.project = 'p')", ""},
		{"select id from a as x where exists (select 1 from b where b.id = x.id and b.project = x.project)", ""},
		{"select id from a as x where exists (select count(*) from b where b.id = x.id)", ""},
		{"select id from a as x where exists (select 1 from b where b.id = x.id order by b.id)", ""},
		{"select id from a as x where id in (select id from b where b.project = x.project)", ""},
		{"select id from a as x where id in (select id from b where b.project = x.project and b.id != x.id)", ""},
		{"select id from a as x where id in (select id from b where b.project = x.project limit 3)", ""},
		{"select id from a as x where id in (select x.id from b where b.project = x.project)", ""},
		{"select id, array(select b.id from b where b.id > x.id) from a as x", ""},
		// A reference two queries out is refused, also from a subquery of a
		// correlated subquery, as is a whole outer row.
		{"select id from a as x where exists (select 1 from b where exists (select 1 from c where c.id = x.id))", "1:96: correlated"},
		{"select id from a as x where exists (select 1 from b where b.id = x.id and b.id in (select id from c where c.project = x.project))", "1:119: correlated"},
		{"select id from a where exists (select 1 from b where b.id = project)", ""}, // project is b's own (the catalog knows it everywhere)
		{"select id from a as x where exists (select x.id from b)", ""},
		{"select id from a where id in (select id, project from b)", "1:31: the subquery of IN must have exactly one column, found 2"},
		{"select (select id, project from b) from a", "1:8: a scalar subquery must have exactly one column, found 2"},
		{"select id from a where id in (select timestamp from b)", "1:24: "},
		{"with c as (select id from a) select (select count(*) from c) as n", ""},
		// A CTE's body never sees the query that reads it.
		{"with c as (select x.id from (select 'k' as id) as k) select id from a as x where id in (select id from c)", "unrecognized name x"},
	}
	for _, c := range cases {
		q, err := sqlparse.Parse(c.sql)
		require.NoError(t, err, c.sql)
		_, err = Plan(q, c.sql, Options{Catalog: testCatalog{}})
		if c.err == "" {
			require.NoError(t, err, c.sql)
			continue
		}
		require.Error(t, err, c.sql)
		require.Contains(t, err.Error(), c.err, c.sql)
	}
}

// MapExprs reaches every expression a node holds, whatever its type, and
// never an input's.
func TestMapExprsReachesEveryExpression(t *testing.T) {
	x := func() expr.Expr { return &expr.ColRef{Name: "x", T: types.Int64} }
	in := &Values{Rows: [][]expr.Expr{{x()}}}
	nodes := []struct {
		n    Node
		want int
	}{
		{&Scan{Filter: x()}, 1},
		{&Values{Rows: [][]expr.Expr{{x(), x()}, {x()}}}, 3},
		{&Filter{In: in, Cond: x()}, 1},
		{&Project{In: in, Exprs: []expr.Expr{x(), x()}}, 2},
		{&Unnest{In: in, Expr: x()}, 1},
		{&Aggregate{In: in, Keys: []expr.Expr{x()}, Aggs: []expr.AggCall{{Args: []expr.Expr{x(), x()}}}}, 3},
		{&Sort{In: in, Keys: []SortKey{{Expr: x()}}}, 1},
		{&Limit{In: in}, 0},
		{&Join{Left: in, Right: in, LeftKeys: []expr.Expr{x()}, RightKeys: []expr.Expr{x()}, Cond: x()}, 3},
		{&Union{Inputs: []Node{in, in}}, 0},
	}
	for _, c := range nodes {
		seen := 0
		MapExprs(c.n, func(e expr.Expr) expr.Expr {
			if r, ok := e.(*expr.ColRef); ok && r.Name == "x" {
				seen++
				return &expr.ColRef{Name: "y", T: r.T}
			}
			return e
		})
		require.Equal(t, c.want, seen, "%T", c.n)
		require.Len(t, Subqueries(c.n), 0)
		require.NotContains(t, Explain(c.n), "#0:x", "%T: every x replaced", c.n)
		require.Equal(t, "x", in.Rows[0][0].(*expr.ColRef).Name, "%T: an input is not entered", c.n)
	}
	// Subqueries finds a subquery under a call and IN's operand.
	sub := &Subquery{Kind: SubIn, Plan: in, X: &Subquery{Kind: SubScalar, Plan: in, T: types.Int64}, T: types.Bool}
	f := &Filter{In: in, Cond: &expr.Call{Fn: "not", Args: []expr.Expr{sub}, T: types.Bool}}
	got := Subqueries(f)
	require.Len(t, got, 2)
	require.True(t, strings.HasPrefix(got[0].String(), "in("))
}

// MapSubqueryExprs rewrites the slots that hold a subquery and leaves the
// others unwritten (a kept plan's copies share them between calls), in
// every kind of node that holds expressions.
func TestMapSubqueryExprsWritesOnlySubquerySlots(t *testing.T) {
	x := func() expr.Expr { return &expr.ColRef{Name: "x", T: types.Int64} }
	in := &Values{Rows: [][]expr.Expr{{x()}}}
	sub := func() expr.Expr {
		return &expr.Call{Fn: "$add", Args: []expr.Expr{x(), &Subquery{Kind: SubScalar, Plan: in, T: types.Int64}}, T: types.Int64}
	}
	nodes := []Node{
		&Values{Rows: [][]expr.Expr{{x(), sub()}, {x()}}},
		&Project{In: in, Exprs: []expr.Expr{x(), sub()}},
		&Aggregate{In: in, Keys: []expr.Expr{x()}, Aggs: []expr.AggCall{{Args: []expr.Expr{sub(), x()}}}},
		&Sort{In: in, Keys: []SortKey{{Expr: x()}, {Expr: sub()}}},
		&Join{Left: in, Right: in, LeftKeys: []expr.Expr{x()}, RightKeys: []expr.Expr{x()}, Cond: sub()},
		&Window{In: in, Calls: []WindowCall{{Args: []expr.Expr{x()}, Partition: []expr.Expr{sub()}}}},
	}
	for _, n := range nodes {
		before := n.Expressions()
		MapSubqueryExprs(n, func(e expr.Expr) expr.Expr {
			switch e := e.(type) {
			case *Subquery:
				return &expr.Const{V: types.IntValue(7)}
			case *expr.ColRef:
				return &expr.ColRef{Name: "y", T: e.T} // x inside the slot holding the subquery
			}
			return e
		})
		after := n.Expressions()
		require.Len(t, Subqueries(n), 0, "%T", n)
		changed := 0
		for i := range before {
			if holdsSubquery(before[i]) {
				changed++
				require.NotSame(t, before[i], after[i], "%T slot %d", n, i)
				require.Equal(t, "$add(#0:y, 7)", after[i].String(), "%T slot %d", n, i)
				continue
			}
			require.Same(t, before[i], after[i], "%T slot %d is left as it was", n, i)
		}
		require.Equal(t, 1, changed, "%T", n)
	}
}
