package planner

import (
	"testing"

	"github.com/stretchr/testify/require"

	"logq/sqlparse"
)

// Set operations and outer/USING joins: what is refused, where, and how
// the plans look.
func TestSetOpAndUsingErrors(t *testing.T) {
	for sql, want := range map[string]string{
		"select 1 as a, 2 as b from t intersect distinct select 1 from t":                                   "1:30: INTERSECT DISTINCT inputs have 2 and 1 columns",
		"select 1 as a from t except distinct select 'x' from t":                                            "1:22: EXCEPT DISTINCT column 1 has types INT64 and STRING",
		"select 1 as a from t union all select 2 from t\nintersect distinct select 3 from t":                "2:1: UNION ALL and INTERSECT DISTINCT cannot be combined without parentheses",
		"with l as (select 1 as k), r as (select 2 as j) select * from t join l using (k) join r using (k)": "1:82: column k in USING is not on the right side of the join",
		"with l as (select 1 as k, 2 as k2) select * from l as a join l as b using (k, k)":                  "1:57: column k appears twice in USING",
	} {
		q, err := sqlparse.Parse(sql)
		require.NoError(t, err, sql)
		err = Check(q, sql)
		require.Error(t, err, sql)
		require.Contains(t, err.Error(), want, sql)
	}
}

func TestOuterJoinPlans(t *testing.T) {
	plan := planOf(t, `select a.id, b.id from a full join b on a.id = b.id and a.n > b.n where b.project = 'x'`, nil)
	require.Contains(t, plan, "FullJoin hash", "equality keys hash also for FULL")
	require.Contains(t, plan, "on ", "the non-equality part stays the join's residual condition")
	require.Regexp(t, `Filter .*project`, plan, "WHERE stays above a FULL join")
	plan = planOf(t, `select a.id from a right join b on a.id = b.id`, nil)
	require.Contains(t, plan, "RightJoin hash")
	plan = planOf(t, `select id from a intersect distinct select id from b`, nil)
	require.Contains(t, plan, "IntersectDistinct")
	plan = planOf(t, `select id from a union distinct select id from b`, nil)
	require.Regexp(t, `Aggregate keys=\[#0:id\][^\n]*\n\s+UnionAll`, plan)
}
