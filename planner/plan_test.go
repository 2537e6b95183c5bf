package planner

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/sqlparse"
	"logq/types"
)

// testCatalog knows the fields the saved queries read, with their types.
type testCatalog struct{}

type testSchema map[string]types.Type

var objects = map[string]bool{"metadata": true, "metadata.request": true, "metadata.response": true}

func (testCatalog) Table(string) TableSchema {
	return testSchema{
		"timestamp": types.Timestamp, "id": types.String, "event_message": types.String, "project": types.String,
		"metadata.project_ref": types.String, "metadata.function_id": types.String, "metadata.execution_time_ms": types.Int64,
		"metadata.response.status_code": types.Int64, "metadata.request.url": types.String, "metadata.request.path": types.String,
		"metadata": types.ArrayOf(types.StructOf()), "metadata.request": types.ArrayOf(types.StructOf()), "metadata.response": types.ArrayOf(types.StructOf()),
		"metadata.project": types.String,
	}
}

func (s testSchema) Field(path string) (types.Type, bool, bool) {
	t, ok := s[path]
	return t, objects[path], ok
}

func (s testSchema) Children(string) []string { return nil }

var planNow = time.Date(2024, 5, 1, 12, 30, 0, 0, time.UTC)

func savedQuery(t *testing.T, name string) string {
	b, err := os.ReadFile("../fixtures/endpoints/" + name + ".yaml")
	require.NoError(t, err)
	_, q, _ := strings.Cut(string(b), "query: |\n")
	return q
}

func planOf(t *testing.T, sql string, params map[string]string) string {
	q, err := sqlparse.Parse(sql)
	require.NoError(t, err)
	p, err := Plan(q, sql, Options{Catalog: testCatalog{}, Params: params, Now: planNow.UnixMicro()})
	require.NoError(t, err)
	return Explain(p)
}

func TestInvocationStatsPlan(t *testing.T) {
	sql := savedQuery(t, "functions.invocation-stats")
	plan := planOf(t, sql, map[string]string{"project": "p1", "interval": "7day"})
	t.Log("\n" + plan)
	// The CASE on @interval folded to one branch.
	require.Contains(t, plan, "timestamp_trunc(#")
	require.Contains(t, plan, ", DAY)")
	require.NotContains(t, plan, "HOUR")
	// The constant CTE became a time range on the scan: the first bucket of
	// generate_timestamp_trunc_array(7, 'day_day') at 2024-05-01 12:30.
	require.Contains(t, plan, "time=[2024-04-24 00:00:00 UTC, +inf]")
	// Equality on the project is a dictionary predicate; an absent
	// function_id folded away entirely.
	require.Contains(t, plan, `metadata.project_ref="p1"`)
	require.NotContains(t, plan, "function_id")
	// CROSS JOIN UNNEST of stored objects: presence checks in the scan.
	require.Contains(t, plan, "present(metadata) present(metadata.response)")
	// The per-status-class counts are never computed.
	require.Equal(t, 1, strings.Count(plan, "countif("))
	// One quantile state serves both percentiles, computing ranks 95 and 99 only.
	require.Equal(t, 1, strings.Count(plan, "approx_quantiles("))
	require.Contains(t, plan, "ranks[95 99]")

	plan = planOf(t, sql, map[string]string{"project": "p1", "interval": "5min", "function_id": "f9"})
	require.Contains(t, plan, `metadata.function_id="f9"`)
	require.Contains(t, plan, "time=[2024-05-01 12:25:00 UTC, +inf]")
	require.Contains(t, plan, ", SECOND)")
}

func TestLogsAllPlan(t *testing.T) {
	sql := savedQuery(t, "logs.all")
	plan := planOf(t, sql, map[string]string{"project": "p1", "project_tier": "PRO", "iso_timestamp_end": "2024-05-01T00:00:00Z"})
	t.Log("\n" + plan)
	// Dead CTEs are never planned: one scan, of the edge source.
	require.Equal(t, 1, strings.Count(plan, "Scan "))
	require.Contains(t, plan, "Scan cloudflare.logs.prod")
	require.Contains(t, plan, "time=[2024-04-24 12:30:00 UTC, 2024-05-01 00:00:00 UTC]")
	require.Contains(t, plan, `project="p1"`)
	require.Regexp(t, regexp.MustCompile(`(?s)Project .*\n\s+TopK 100 offset=0 \[#\d+:timestamp DESC\]\n\s+Scan`), plan,
		"ORDER BY + LIMIT is a top-k, with the projection above it")
	// An empty start bound imposes nothing.
	plan = planOf(t, sql, map[string]string{"project": "p1", "project_tier": "FREE", "iso_timestamp_start": ""})
	require.Contains(t, plan, "time=[2024-04-30 12:30:00 UTC, +inf]")
	require.NotContains(t, plan, "filter=")
}

func TestAPICountsPlan(t *testing.T) {
	sql := savedQuery(t, "usage.api-counts")
	plan := planOf(t, sql, map[string]string{"project": "p1", "interval": "hourly"})
	t.Log("\n" + plan)
	require.Contains(t, plan, "time=[2024-05-01 11:30:00 UTC, +inf]")
	require.Contains(t, plan, `regexp_contains(#`)
	require.NotContains(t, plan, "present(", "LEFT JOIN UNNEST … ON TRUE needs no presence check")
	plan = planOf(t, sql, map[string]string{"project": "p1", "interval": "yearly"})
	require.Contains(t, plan, "EMPTY", "no window start: nothing to read")
}

func TestLeftJoinFilteredOnTheRightBecomesInner(t *testing.T) {
	plan := planOf(t, `select a.id from a left join b on a.id = b.id where b.project = 'x'`, nil)
	require.Contains(t, plan, "InnerJoin hash")
	require.NotContains(t, plan, "LeftJoin")
	require.Regexp(t, `Scan b \[.*project="x"`, plan, "the right side's predicate went down into its scan")
	plan = planOf(t, `select a.id from a left join b on a.id = b.id where b.project is null`, nil)
	require.Contains(t, plan, "LeftJoin hash", "IS NULL keeps the NULL-extended rows: still a left join")
}

func TestCheckReportsPositions(t *testing.T) {
	for sql, want := range map[string]string{
		"select nosuch(1) from t":                                             "1:8: unknown function nosuch",
		"with a as (select 1 as x) select y from a":                           "unrecognized name y",
		"select count(*) from t where count(*) > 1":                           "aggregate functions are not allowed in WHERE",
		"select x from t\ngroup by 7":                                         "2:10: GROUP BY ordinal 7 is out of range",
		"select timestamp_trunc(timestamp, fortnight) from t":                 "unknown date part FORTNIGHT",
		"select json '1' from t intersect all select json '2' from t":         "1:24: INTERSECT ALL",
		"select x from t group by rollup(x where x > 1)":                      "1:41: WHERE inside a call of ROLLUP is not supported",
		"select 1 from unnest([1, 2], mode => 'PAD')":                         "1:38: mode is allowed only when UNNEST has more than one array",
		"select * replace (1 as k) from (select 1 as k) a, (select 2 as k) b": "1:19: column k in SELECT * REPLACE is ambiguous",
		"select array_find([1], 1, 'FIRST', [1]) from t":                      "1:8: ARRAY_FIND takes 2 to 3 arguments, got 4",
		// A * of known columns (no source below it) is checked as any item.
		"with a as (select 1 as x), b as (select * from a) select y from b": "1:58: unrecognized name y",
		"select d.zz from (select * from (select 1 as q)) d":                "1:8: d has no column zz",
	} {
		q, err := sqlparse.Parse(sql)
		require.NoError(t, err, sql)
		err = Check(q, sql)
		require.Error(t, err, sql)
		require.Contains(t, err.Error(), want, sql)
	}
}

// TestCheckLeavesSourceColumnsToTheRun: without schemas, the check cannot
// know a source's fields, nor those of a * over one: names they may have
// pass it (the run, with the schemas, decides).
func TestCheckLeavesSourceColumnsToTheRun(t *testing.T) {
	for _, sql := range []string{
		"select u.a from (select * from src) as u",
		"with c as (select * from (select * from src)) select c.a, b from c",
		"select distinct * except (id) from src order by a",
		"select a, b from src join other using (a)",
		"select (select sum(x) from unnest(arr) as x) from src",
		"select * except (a) from (select * from src) tablesample bernoulli (10 percent)",
		"select count(*) from src join (select * from other) as o using (k)",
		// From a review: a * over an UNNEST of a source's array, a
		// subquery's own WITH, a CTE read through another CTE's own
		// environment, a * EXCEPT that leaves none of the fixed fields, a
		// name in a subquery over a source beside an outer column of it.
		"with c as (select n from src) select k, v from (select * from c, unnest(c.n))",
		"with c as (select 1 as x) select a from (with c as (select * from src) select * from c)",
		"with a as (select * from src), b as (select * from a) select * from (with a as (select 1 as x) select b.a from b)",
		"select * except (id, timestamp, event_message) from src",
		"select (select count(*) from other where c = 'cx') from (select 1 as c)",
		"select * except (id, timestamp, n, arr) from src union all select 1, 'x', 'y'",
	} {
		q, err := sqlparse.Parse(sql)
		require.NoError(t, err, sql)
		require.NoError(t, Check(q, sql), sql)
	}
}

// TestLimitAllOffsetIsNoTopK: LIMIT ALL OFFSET k over ORDER BY keeps every
// row, so the sort sorts them all and the Limit skips k; folding it into a
// top-k would keep a heap as large as the input.
func TestLimitAllOffsetIsNoTopK(t *testing.T) {
	plan := planOf(t, "select x from unnest([3, 1, 2]) x order by x limit all offset 1", nil)
	require.Contains(t, plan, "Limit ALL offset=1")
	require.Contains(t, plan, "Sort [")
	require.NotContains(t, plan, "TopK")
	// A real limit still folds.
	require.Contains(t, planOf(t, "select x from unnest([3, 1, 2]) x order by x limit 2 offset 1", nil), "TopK 2")
}
