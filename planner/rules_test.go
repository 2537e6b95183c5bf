package planner

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// One plan per rewrite rule (optimize.go, prune.go, plan_window.go, and the
// binder's own folding and CTE rules), each a query the rule changes and
// the plan it must give, worked out from the rule: the plans are written
// by hand, so a rule that stops applying, or applies where it must not,
// shows here by name.
func TestEachRuleShapesThePlan(t *testing.T) {
	cases := []struct {
		rule, sql, want string
	}{
		{
			// Constant folding: the CASE of constants is its one branch.
			rule: "fold", sql: `select case 'a' when 'a' then 1 else 2 end as k, id from logs`,
			want: `
Project [1 AS k, #0:id AS id]
  Scan logs [id]`,
		},
		{
			// A constant one-row CTE is inlined (its subquery is the value 1),
			// and d, never read, is never bound: no second scan.
			rule: "inline constant CTE, dead CTE", sql: `with c as (select 1 as one), d as (select id from logs) select id, (select one from c) as o from logs`,
			want: `
Project [#0:id AS id, 1 AS o]
  Scan logs [id]`,
		},
		{
			// pushFilters + addScanPredicate: the WHERE becomes the scan's
			// time range and equality predicate; no Filter is left.
			rule: "pushFilters into the scan", sql: `select id from logs where project = 'p' and timestamp > timestamp '2024-01-01'`,
			want: `
Project [#1:id AS id]
  Scan logs [project, id] time=[2024-01-01 00:00:00.000001 UTC, +inf] project="p"`,
		},
		{
			// nullRejecting + equiJoin: b.project = 'x' rejects the NULL rows
			// the LEFT JOIN adds, so it is an inner hash join, and the
			// filter moves to b's scan.
			rule: "pushFilters through a join, equiJoin", sql: `select a.id from logs as a left join logs as b on a.id = b.id where b.project = 'x'`,
			want: `
Project [#0:id AS id]
  InnerJoin hash [#0:id] = [#0:id]
    Scan logs [id]
    Scan logs [id, project] project="x"`,
		},
		{
			// topK, projectAboveTopK and lateFields: ORDER BY … LIMIT keeps
			// 5 rows, the projection runs on those 5 only, and the STRING
			// fields the top-k only carries are read for the kept rows.
			rule: "topK, projectAboveTopK, lateFields", sql: `select id, upper(event_message) as u from logs order by timestamp desc limit 5`,
			want: `
Project [#0:id AS id, upper(#1:event_message) AS u]
  TopK 5 offset=0 [#2:timestamp DESC]
    Scan logs [late(id), late(event_message), timestamp]`,
		},
		{
			// windowTopN: ROW_NUMBER() … = 1 keeps one row per partition.
			rule: "windowTopN", sql: `select * from (select id, row_number() over (partition by project order by timestamp desc) as r from logs) where r = 1`,
			want: `
Project [#0:id AS id, #3:$win0 AS r]
  Filter (#3:$win0 = 1)
    Window [row_number([]) over (partition [#1:project] order #2:timestamp desc range unbounded..current)] topN=1
      Scan logs [late(id), late(project), timestamp]`,
		},
		{
			// pruneRoot and mergeProjects: the unused LENGTH is dropped, the
			// two projections are one, and the scan reads id alone.
			rule: "pruneRoot, mergeProjects", sql: `select x.u from (select upper(id) as u, length(event_message) as l from logs) as x`,
			want: `
Project [upper(#0:id) AS u]
  Scan logs [id]`,
		},
		{
			// mergeProjects leaves an inner computation read twice where it
			// is, so it is computed once.
			rule: "mergeProjects (not when read twice)", sql: `select x.u || x.u as uu from (select upper(id) as u from logs) as x`,
			want: `
Project [(#0:u || #0:u) AS uu]
  Project [upper(#0:id) AS u]
    Scan logs [id]`,
		},
		{
			// quantileRanks: only the 95th of the 101 quantiles is read.
			rule: "quantileRanks", sql: `select approx_quantiles(m.execution_time_ms, 100)[offset(95)] as p95 from logs cross join unnest(metadata) as m`,
			want: `
Project [offset(#0:$agg0, 0) AS p95]
  Aggregate keys=[] aggs=[approx_quantiles(#0:execution_time_ms, 100)ranks[95] at [0..0]]
    Scan logs [metadata.execution_time_ms] present(metadata)`,
		},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			require.Equal(t, strings.TrimSpace(c.want), strings.TrimSpace(planOf(t, c.sql, nil)), c.sql)
		})
	}
}
