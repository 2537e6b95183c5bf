package planner

import (
	"testing"

	"github.com/stretchr/testify/require"

	"logq/expr"
	"logq/sqlparse"
)

// Every call of a planned query knows its function (Call.Def), so that the
// executor looks nothing up per row: the calls the binder typed, those the
// rewrites made (the AND of pushed filters, IS NOT NULL of a presence
// test), and those inside subqueries' plans.
func TestPlannedCallsAreResolved(t *testing.T) {
	queries := []string{
		savedQuery(t, "functions.invocation-stats"),
		savedQuery(t, "usage.api-counts"),
		savedQuery(t, "logs.all"),
		`select id, upper(event_message) as m from logs where regexp_contains(event_message, 'x') and timestamp > timestamp '2024-01-01' order by m limit 5`,
		`select l.project, count(*), countif(m.execution_time_ms > 10) from logs as l cross join unnest(l.metadata) as m group by l.project having count(*) > 1`,
		`select id, (select max(x) from unnest([1, 2, 3]) as x where x > length(id)) as m from logs where id in (select id from logs where project = 'p')`,
		`select a.id from logs as a join logs as b on a.id = b.id and length(a.project) > length(b.project) where length(a.id) > 3 and upper(b.project) = 'X' and a.event_message is not null`,
		`select x from (select id as x, project as y from logs) where length(x) > 1 and y = 'a' or x = 'b'`,
		`select id, row_number() over (partition by project order by timestamp desc) as r, case when id like 'a%' then 1 else 2 end as k from logs qualify r <= 2`,
	}
	calls := 0
	for _, sql := range queries {
		q, err := sqlparse.Parse(sql)
		require.NoError(t, err)
		p, err := Plan(q, sql, Options{Catalog: testCatalog{}, Params: map[string]string{"project": "p1", "interval": "1hr", "project_tier": "PRO"}, Now: planNow.UnixMicro()})
		require.NoError(t, err, sql)
		var visitNode func(n Node)
		var visitExpr func(e expr.Expr)
		visitExpr = func(e expr.Expr) {
			switch x := e.(type) {
			case *expr.Call:
				calls++
				require.NotNil(t, x.Def, "%s in %s", x, sql)
				require.Equal(t, x.Fn, x.Def.Name, "%s", x)
			case *Subquery:
				visitNode(x.Plan)
			}
			for _, c := range e.Children() {
				visitExpr(c)
			}
		}
		visitNode = func(n Node) {
			for _, e := range n.Expressions() {
				visitExpr(e)
			}
			for _, in := range Inputs(n) {
				visitNode(in)
			}
		}
		visitNode(p)
	}
	require.Greater(t, calls, 20) // the queries hold calls after planning (logs.all's all fold into its scans)
}
