package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/endpoint"
)

// sandboxSources lists the nine sources of logs.all with the CTE that reads
// each and where that CTE looks for the project.
var sandboxSources = []struct{ source, cte, projectAt string }{
	{"cloudflare.logs.prod", "edge_logs", "top"},
	{"postgres.logs", "postgres_logs", "top"},
	{"deno-relay-logs", "function_edge_logs", "metadata.project_ref"},
	{"deno-subhosting-events", "function_logs", "metadata.project_ref"},
	{"gotrue.logs.prod", "auth_logs", "top"},
	{"realtime.logs.prod", "realtime_logs", "metadata.project"},
	{"storage.logs.prod.2", "storage_logs", "metadata.project"},
	{"postgREST.logs.prod", "postgrest_logs", "top"},
	{"pgbouncer.logs.prod", "pgbouncer_logs", "top"},
}

// sandboxEvent is one record of project proj in the shape its source keeps
// the project.
func sandboxEvent(projectAt, proj, id, msg string, at time.Time, meta map[string]any) map[string]any {
	m := map[string]any{"level": "info"}
	for k, v := range meta {
		m[k] = v
	}
	ev := map[string]any{"id": id, "event_message": msg, "timestamp": at.Format(time.RFC3339Nano), "metadata": m}
	switch projectAt {
	case "top":
		ev["project"] = proj
	case "metadata.project_ref":
		m["project_ref"] = proj
	case "metadata.project":
		m["project"] = proj
	}
	return ev
}

// newSandboxHarness serves the built-ins with logs.all sandboxed, over three
// records of project "p" per source at now−1h, −2h, −3h (ids "<cte>-1" …),
// one of project "other" and one of "p" older than a day.
func newSandboxHarness(t *testing.T) *harness {
	h := sandboxedLogsAll(t)
	for _, s := range sandboxSources {
		var evs []map[string]any
		for i := 1; i <= 3; i++ {
			evs = append(evs, sandboxEvent(s.projectAt, "p", fmt.Sprintf("%s-%d", s.cte, i), fmt.Sprintf("%s message %d", s.cte, i),
				testNow.Add(-time.Duration(i)*time.Hour), map[string]any{"n": i}))
		}
		evs = append(evs, sandboxEvent(s.projectAt, "other", s.cte+"-other", "not mine", testNow.Add(-time.Hour), nil))
		evs = append(evs, sandboxEvent(s.projectAt, "p", s.cte+"-old", "too old for FREE", testNow.Add(-30*time.Hour), nil))
		body, err := json.Marshal(evs)
		require.NoError(t, err)
		require.Equal(t, 200, h.ingest(s.source, body, nil).code)
	}
	return h
}

// sandboxedLogsAll serves the built-ins, logs.all sandboxed, with no data.
func sandboxedLogsAll(t *testing.T) *harness {
	return newHarness(t, func(c *Config) {
		for _, e := range c.Endpoints {
			if e.Name == "logs.all" {
				e.Sandboxed = true
			}
		}
	})
}

func sqlPath(sql string, extra ...string) string {
	q := url.Values{"project": {"p"}, "sql": {sql}}
	for i := 0; i+1 < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	return "/api/endpoints/query/logs.all?" + q.Encode()
}

// column returns one column of every row, as strings (JSON numbers keep their text).
func column(t *testing.T, r reply, name string) []string {
	var out []string
	for _, row := range rows(t, r) {
		found := false
		for _, c := range row {
			if c.k == name {
				out = append(out, fmt.Sprint(c.v))
				found = true
			}
		}
		require.True(t, found, "no column %s in %v", name, row)
	}
	return out
}

func TestSandboxRunsCallerSQL(t *testing.T) {
	h := newSandboxHarness(t)
	// Every CTE: the project's rows within FREE retention (the default tier).
	for _, s := range sandboxSources {
		r := h.get(sqlPath("select id, event_message from " + s.cte + " order by timestamp desc"))
		require.Equal(t, "bypass", r.header.Get("Logq-Cache"))
		require.Equal(t, []string{s.cte + "-1", s.cte + "-2", s.cte + "-3"}, column(t, r, "id"), s.cte)
		require.Equal(t, []string{s.cte + " message 1", s.cte + " message 2", s.cte + " message 3"}, column(t, r, "event_message"), s.cte)
	}
	cases := []struct {
		name, sql string
		extra     []string
		col       string
		want      []string
	}{
		{"PRO tier reaches the old record", "select id from auth_logs order by timestamp", []string{"project_tier", "PRO"}, "id",
			[]string{"auth_logs-old", "auth_logs-3", "auth_logs-2", "auth_logs-1"}},
		{"iso bounds: start exclusive, end inclusive", "select id from postgres_logs order by timestamp",
			[]string{"iso_timestamp_start", testNow.Add(-3 * time.Hour).Format(time.RFC3339), "iso_timestamp_end", testNow.Add(-2 * time.Hour).Format(time.RFC3339)},
			"id", []string{"postgres_logs-2"}},
		{"iso bounds on an UNNEST-filtered CTE", "select id from storage_logs order by timestamp",
			[]string{"iso_timestamp_start", testNow.Add(-150 * time.Minute).Format(time.RFC3339), "iso_timestamp_end", ""},
			"id", []string{"storage_logs-2", "storage_logs-1"}},
		{"a caller CTE", "with mine as (select id, timestamp from auth_logs where event_message like '%2') select id from mine", nil, "id",
			[]string{"auth_logs-2"}},
		{"a caller CTE shadows an endpoint CTE name", "with edge_logs as (select id, timestamp from auth_logs) select id from edge_logs order by timestamp desc limit 1", nil, "id",
			[]string{"auth_logs-1"}},
		// The endpoint's CTEs keep reading the endpoint's retention, not the caller's.
		{"a shadowed name does not leak into endpoint CTEs", "with retention as (select timestamp '2000-01-01' as since) select count(*) as n from pgbouncer_logs", nil, "n",
			[]string{"3"}},
		{"count(*), UNNEST, comma join, derived table", "select count(*) as n, sum(m.n) as total from (select metadata from realtime_logs) as r, unnest(r.metadata) as m", nil, "total",
			[]string{"6"}},
		{"UNION ALL over CTEs", "select id from (select id, timestamp from edge_logs union all select id, timestamp from function_logs) order by timestamp desc, id limit 2", nil, "id",
			[]string{"edge_logs-1", "function_logs-1"}},
		{"the endpoint's parameters exist", "select @project as p", nil, "p", []string{"p"}},
		{"Postgres cast as Studio sends it", "select event_message::text as m from postgrest_logs order by timestamp limit 1", nil, "m",
			[]string{"postgrest_logs message 3"}},
		{"a trailing semicolon is one statement", "select id from pgbouncer_logs order by timestamp desc limit 1;", nil, "id", []string{"pgbouncer_logs-1"}},
		{"IN (subquery) over an endpoint CTE", "select id from auth_logs where id in (select id from auth_logs where event_message like '%2')", nil, "id",
			[]string{"auth_logs-2"}},
		{"NOT IN (subquery) over a caller CTE", "with old as (select id from edge_logs where timestamp < timestamp_sub(current_timestamp(), interval 90 minute)) select id from edge_logs where id not in (select id from old)", nil, "id",
			[]string{"edge_logs-1"}},
		{"scalar subquery and EXISTS over CTEs", "select (select count(*) from edge_logs) as n, exists (select id from auth_logs where id = 'auth_logs-3') as e", nil, "n",
			[]string{"3"}},
		{"EXISTS correlated by an equality", "select id from edge_logs as e where exists (select 1 from auth_logs as a where a.id = replace(e.id, 'edge', 'auth') and a.event_message like '%2')", nil, "id",
			[]string{"edge_logs-2"}},
		{"ARRAY(subquery) over a CTE", "select array_to_string(array(select id from realtime_logs order by timestamp), ',') as ids", nil, "ids",
			[]string{"realtime_logs-3,realtime_logs-2,realtime_logs-1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.get(sqlPath(c.sql, c.extra...))
			require.Equal(t, c.want, column(t, r, c.col))
		})
	}
}

func TestSandboxWithoutSQLRunsTheEndpoint(t *testing.T) {
	h := newSandboxHarness(t)
	own := column(t, h.get("/api/endpoints/query/logs.all?project=p"), "id")
	require.Equal(t, []string{"edge_logs-1", "edge_logs-2", "edge_logs-3"}, own)
	require.Equal(t, own, column(t, h.get("/api/endpoints/query/logs.all?project=p&sql="), "id"))
	// POST with a JSON body carries sql= too.
	r := h.do(http.MethodPost, "/api/endpoints/query/logs.all", strings.NewReader(`{"project":"p","sql":"select id from auth_logs order by timestamp desc limit 1"}`),
		map[string]string{"X-API-KEY": testKey})
	require.Equal(t, []string{"auth_logs-1"}, column(t, r, "id"))
}

// A caller's SQL to an endpoint that is not sandboxed is refused, naming
// the parameter and how the endpoint would be sandboxed (it used to be
// ignored, and the endpoint's own rows came back as if they answered it);
// an empty sql= is the same as none.
func TestSQLRefusedWhenNotSandboxed(t *testing.T) {
	h := newSandboxHarness(t)
	for _, e := range h.srv.cfg.Endpoints {
		if e.Name == "logs.all" {
			e.Sandboxed = false
			e.SandboxHint = "start logq with --sandbox-logs-all"
		}
	}
	for _, sql := range []string{"select id from auth_logs", "delete from everything; drop table x"} {
		r := h.get(sqlPath(sql))
		requireError(t, r, 400, "INVALID_ARGUMENT", "sql")
		require.Contains(t, string(r.body), "logs.all is not sandboxed")
		require.Contains(t, string(r.body), "--sandbox-logs-all")
		require.Equal(t, "bypass", r.header.Get("Logq-Cache"))
	}
	r := h.get(sqlPath(" "))
	require.Equal(t, []string{"edge_logs-1", "edge_logs-2", "edge_logs-3"}, column(t, r, "id"))
}

func TestSandboxRefusals(t *testing.T) {
	h := newSandboxHarness(t)
	allowed := "auth_logs, edge_logs, function_edge_logs, function_logs, pgbouncer_logs, postgres_logs, postgrest_logs, realtime_logs, retention, storage_logs"
	cases := []struct{ sql, location, message string }{
		{"select 1; select 2", "1:11", "only one statement is allowed, found a second one starting with SELECT"},
		{"delete from edge_logs where true", "1:1", "only a SELECT query is allowed, found DELETE"},
		{"insert into edge_logs (id) values ('x')", "1:1", "only a SELECT query is allowed, found INSERT"},
		{"select id from `postgres.logs`", "1:16", "table postgres.logs is not allowed: a sandboxed query may read only these CTEs: " + allowed},
		{"with x as (select 1 as a)\nselect a from x, `cloudflare.logs.prod`", "2:18", "table cloudflare.logs.prod is not allowed: a sandboxed query may read only these CTEs: " + allowed + ", x"},
		{"select id from (select id from `gotrue.logs.prod`)", "1:32", "table gotrue.logs.prod is not allowed"},
		// Subqueries inside expressions read CTEs only, as a FROM does, at
		// any depth.
		{"select (select count(*) from pgbouncer.logs.prod) as n", "1:30", "table pgbouncer.logs.prod is not allowed: a sandboxed query may read only these CTEs: " + allowed},
		{"select id from edge_logs where id in (select id from `postgres.logs`)", "1:54", "table postgres.logs is not allowed"},
		{"select id from edge_logs where exists (select 1 from canary)", "1:54", "table canary is not allowed"},
		{"select array(select id from (select id from `gotrue.logs.prod`)) as a", "1:45", "table gotrue.logs.prod is not allowed"},
		// Logflare refuses a wildcard in any projection, subqueries included.
		{"select id from edge_logs where exists (select * from auth_logs)", "1:47", "SELECT * is not allowed in a sandboxed query; name the columns"},
		{"select id from edge_logs as e where exists (select 1 from auth_logs as a where exists (select 1 from postgres_logs as p where p.id > e.id))", "1:134", "correlated subqueries are not supported: e.id refers to outer column e.id"},
		{"select * from edge_logs", "1:8", "SELECT * is not allowed in a sandboxed query; name the columns"},
		{"select id, t.* from edge_logs as t", "1:12", "t.* is not allowed in a sandboxed query; name the columns"},
		{"select id, struct(id as x).* from edge_logs", "1:12", "expression.* is not allowed in a sandboxed query; name the columns"},
		{"select n from (select * from auth_logs)", "1:23", "SELECT * is not allowed"},
		{"select id from edge_logs where exfiltrate(id) = 1", "1:32", "unknown function exfiltrate"},
		{"select id from", "1:15", "expected a table name, UNNEST or a subquery, found end of input"},
		{"select id from edge_logs where", "1:31", "expected an expression"},
		{"select @api_key as k from edge_logs", "1:8", "unknown parameter @api_key; this endpoint's parameters are @iso_timestamp_end, @iso_timestamp_start, @project, @project_tier"},
		{"select id from edge_logs\nwhere row_number() over (order by timestamp) > 1", "2:7", "analytic function ROW_NUMBER is not allowed here"},
		{"select rank() over (partition by id) as r from edge_logs", "1:8", "RANK needs an ORDER BY in its window"},
		{"select id from edge_logs qualify id = 'x'", "1:34", "QUALIFY needs an analytic function"},
		{"select sum(1) over (order by timestamp range 5 preceding) as s from edge_logs", "1:40", "a RANGE frame with an offset needs exactly one numeric ORDER BY key"},
		{"select id, row_number() over (order by timestamp) as rn from edge_logs qualify rn = 1", "", ""},
		{"   ", "", ""}, // blank: the endpoint's own SELECT (not a refusal)
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			r := h.get(sqlPath(c.sql))
			if c.message == "" {
				require.Equal(t, 200, r.code, string(r.body))
				return
			}
			requireError(t, r, 400, "INVALID_ARGUMENT", c.location)
			require.Equal(t, "bypass", r.header.Get("Logq-Cache"))
			var e errorBody
			require.NoError(t, json.Unmarshal(r.body, &e))
			require.Contains(t, e.Error.Message, c.message, e.Error.Message)
		})
	}
}

// FULL JOIN and EXCEPT DISTINCT run over the endpoint's CTEs, and reach
// nothing else: a source named on either side is refused where it is named.
func TestSandboxOuterJoinAndSetOps(t *testing.T) {
	h := newSandboxHarness(t)
	// auth_logs and function_logs have records at the same three times; the
	// extra ON condition lets only the first pair match.
	r := h.get(sqlPath("select coalesce(a.id, f.id) as id, a.id is not null and f.id is not null as paired " +
		"from auth_logs a full join function_logs f on a.timestamp = f.timestamp and a.id = 'auth_logs-1' order by id"))
	require.Equal(t, 200, r.code, string(r.body))
	require.Equal(t, []string{"auth_logs-1", "auth_logs-2", "auth_logs-3", "function_logs-2", "function_logs-3"}, column(t, r, "id"))
	require.Equal(t, []string{"true", "false", "false", "false", "false"}, column(t, r, "paired"))
	r = h.get(sqlPath("select event_message from auth_logs except distinct select event_message from auth_logs where id = 'auth_logs-2' order by event_message"))
	require.Equal(t, 200, r.code, string(r.body))
	require.Equal(t, []string{"auth_logs message 1", "auth_logs message 3"}, column(t, r, "event_message"))
	for _, c := range []struct{ sql, location, message string }{
		{"select a.id from auth_logs a full join `postgres.logs` p on a.id = p.id", "1:40", "table postgres.logs is not allowed"},
		{"select id from auth_logs except distinct select id from `gotrue.logs.prod`", "1:57", "table gotrue.logs.prod is not allowed"},
	} {
		r := h.get(sqlPath(c.sql))
		requireError(t, r, 400, "INVALID_ARGUMENT", c.location)
		var e errorBody
		require.NoError(t, json.Unmarshal(r.body, &e))
		require.Contains(t, e.Error.Message, c.message)
	}
}

// A caller's query that keeps more rows than the per-query memory budget
// stops with a 400 naming the budget and the operator, in every operator that
// holds rows; one that keeps nothing runs.
func TestSandboxMemoryBudget(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.QueryMemory = 1 << 10
		for _, e := range c.Endpoints {
			if e.Name == "logs.all" {
				e.Sandboxed = true
			}
		}
	})
	studioData(t, h) // about 30 visible rows per CTE: 30 rows × 2+ values × 24 bytes > 1KiB
	for _, c := range []struct{ sql, what string }{
		{"select a.id, b.id as other from edge_logs a, auth_logs b", "cross join"},
		{"select a.id from edge_logs a join auth_logs b on a.event_message = b.event_message", "hash join"},
		{"select id from edge_logs order by id", "sort"},
		{"select id, count(*) as n from postgres_logs group by id", "GROUP BY or DISTINCT"},
		{"select id from edge_logs where event_message in (select event_message from auth_logs union all select event_message from postgres_logs)", "subquery of IN"},
		{"select array_length(array(select id from auth_logs union all select id from postgres_logs)) as n", "subquery of ARRAY"},
	} {
		t.Run(c.what, func(t *testing.T) {
			r := h.get(sqlPath(c.sql))
			requireError(t, r, 400, "INVALID_ARGUMENT", "")
			var e errorBody
			require.NoError(t, json.Unmarshal(r.body, &e))
			require.Equal(t, "resourcesExceeded", e.Error.Errors[0].Reason)
			require.Contains(t, e.Error.Message, "memory budget of 1KiB")
			require.Contains(t, e.Error.Message, "(in a "+c.what+")")
		})
	}
	require.Equal(t, 200, h.get(sqlPath("select count(*) as n from edge_logs")).code)
}

// A caller's query runs under the endpoint's max rows, the query time limit
// and the concurrency bound, like the endpoint's own.
func TestSandboxLimits(t *testing.T) {
	h := sandboxedLogsAll(t)
	studioData(t, h)
	// 30+ visible rows per CTE, three-way: far more than logs.all's 1000.
	r := h.get(sqlPath("select a.id from edge_logs a, auth_logs b, postgres_logs c"))
	require.Len(t, rows(t, r), 1000)

	for i := 0; i < cap(h.srv.sem); i++ {
		h.srv.sem <- struct{}{}
	}
	requireError(t, h.get(sqlPath("select id from edge_logs")), 429, "RESOURCE_EXHAUSTED", "")
	for i := 0; i < cap(h.srv.sem); i++ {
		<-h.srv.sem
	}

	slow := newHarness(t, func(c *Config) {
		c.QueryTimeout = time.Nanosecond
		for _, e := range c.Endpoints {
			if e.Name == "logs.all" {
				e.Sandboxed = true
			}
		}
	})
	studioData(t, slow)
	requireError(t, slow.get(sqlPath("select a.id from edge_logs a, auth_logs b")), 504, "DEADLINE_EXCEEDED", "")
}

// Sandboxed calls, answered or refused, are metered under the endpoint's name.
func TestSandboxMetricsUnderEndpointName(t *testing.T) {
	h := newSandboxHarness(t)
	require.Equal(t, 200, h.get(sqlPath("select id from auth_logs")).code)
	require.Equal(t, 200, h.get(sqlPath("select count(*) as n from edge_logs")).code)
	require.Equal(t, 400, h.get(sqlPath("select * from edge_logs")).code)
	body := string(h.do(http.MethodGet, "/metrics", nil, nil).body)
	require.Contains(t, body, `logq_request_duration_seconds_count{endpoint="logs.all",route="/api/endpoints/query/{id}"} 3`)
	require.Contains(t, body, `logq_requests_total{endpoint="logs.all",route="/api/endpoints/query/{id}",status="400"} 1`)
}

// Any endpoint can be sandboxed from its YAML, not only logs.all: the caller
// reads its CTEs (here one that hides a field and filters by a parameter).
func TestSandboxedEndpointFromYAML(t *testing.T) {
	e, err := endpoint.Parse("mine.yaml", []byte(`id: 11111111-2222-4333-8444-555555555555
name: my.sandbox
sandboxed: true
params:
  team: {required: true}
query: |
  with visible as (
    select id, event_message from `+"`app.logs`"+` where team = @team
  )
  select id from visible order by id
`))
	require.NoError(t, err)
	h := newHarness(t, func(c *Config) { c.Endpoints = append(c.Endpoints, e) })
	require.Equal(t, 200, h.ingest("app.logs", []byte(`[{"id":"a","event_message":"m1","team":"red","secret":"s1"},{"id":"b","event_message":"m2","team":"blue","secret":"s2"}]`), nil).code)
	path := func(sql string) string {
		return "/api/endpoints/query/my.sandbox?" + url.Values{"team": {"red"}, "sql": {sql}}.Encode()
	}
	require.Equal(t, []string{"m1"}, column(t, h.get(path("select event_message from visible")), "event_message"))
	require.Equal(t, []string{"a"}, column(t, h.get(path("")), "id"))
	// The field the CTE leaves out is not reachable, nor is the source.
	requireError(t, h.get(path("select secret from visible")), 400, "INVALID_ARGUMENT", "1:8")
	requireError(t, h.get(path("select secret from `app.logs`")), 400, "INVALID_ARGUMENT", "1:20")
}
