package api

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A Studio-shaped suite: queries in the shapes Studio's log pages, charts,
// count badges and Logs Explorer send to logs.all?sql= (read from
// supabase/supabase apps/studio: Logs.constants.ts, Logs.utils.ts), run over
// HTTP against records of all nine sources, and compared, every column, with
// rows computed here in plain Go from the records as generated (the
// reference knows nothing of the engine).

// studioRec is one generated record, as the reference sees it.
type studioRec struct {
	cte, id, msg, project string
	ts                    time.Time
	meta                  map[string]any // as sent: nested objects are plain objects
	status                int64          // edge: metadata.response.status_code
	method, path          string         // edge: metadata.request
	severity              string         // postgres: metadata.parsed.error_severity
}

func studioData(t *testing.T, h *harness) []studioRec {
	rng := rand.New(rand.NewSource(8))
	methods := []string{"GET", "POST", "PATCH"}
	paths := []string{"/rest/v1/todos", "/auth/v1/token", "/storage/v1/object/a.png", "/realtime/v1/websocket"}
	severities := []string{"LOG", "ERROR", "WARNING"}
	statuses := []int64{200, 201, 404, 500, 503}
	var all []studioRec
	for si, s := range sandboxSources {
		var evs []map[string]any
		for i := 0; i < 40; i++ {
			r := studioRec{cte: s.cte, id: fmt.Sprintf("%s-%02d", s.cte, i), project: "p",
				ts:  testNow.Add(-time.Duration(i)*37*time.Minute - time.Duration(si)*61*time.Second),
				msg: fmt.Sprintf("%s event %d %s", s.cte, i, []string{"ok", "failed", "slow"}[rng.Intn(3)])}
			if rng.Intn(8) == 0 {
				r.project = "other"
			}
			meta := map[string]any{"level": []string{"info", "error"}[rng.Intn(2)]}
			switch s.cte {
			case "edge_logs":
				r.method, r.path, r.status = methods[rng.Intn(3)], paths[rng.Intn(4)], statuses[rng.Intn(5)]
				meta["request"] = map[string]any{"method": r.method, "path": r.path}
				meta["response"] = map[string]any{"status_code": r.status}
			case "postgres_logs":
				r.severity = severities[rng.Intn(3)]
				meta["parsed"] = map[string]any{"error_severity": r.severity, "user_name": "postgres"}
			}
			ev := sandboxEvent(s.projectAt, r.project, r.id, r.msg, r.ts, meta)
			r.meta = ev["metadata"].(map[string]any)
			evs = append(evs, ev)
			all = append(all, r)
		}
		body, err := json.Marshal(evs)
		require.NoError(t, err)
		require.Equal(t, 200, h.ingest(s.source, body, nil).code)
	}
	return all
}

// visible is what one CTE of logs.all holds: project p, within the FREE
// retention (1 day), after start (exclusive) and up to end (inclusive).
func visible(all []studioRec, cte string, start, end time.Time) []studioRec {
	var out []studioRec
	for _, r := range all {
		if r.cte != cte || r.project != "p" || r.ts.Before(testNow.Add(-24*time.Hour)) {
			continue
		}
		if !start.IsZero() && !r.ts.After(start) || !end.IsZero() && r.ts.After(end) {
			continue
		}
		out = append(out, r)
	}
	return out
}

func newestFirst(rs []studioRec) []studioRec {
	out := append([]studioRec(nil), rs...)
	sort.Slice(out, func(i, j int) bool { return out[i].ts.After(out[j].ts) })
	return out
}

// schemaOf is the union of the object keys of every record of a source,
// nested: a STRUCT has every field the source has ever had (BigQuery's
// storage model, CONTRACT.md §3), absent ones NULL.
func schemaOf(all []studioRec, cte string) map[string]any {
	var merge func(into map[string]any, m map[string]any)
	merge = func(into map[string]any, m map[string]any) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok {
				child, _ := into[k].(map[string]any)
				if child == nil {
					child = map[string]any{}
					into[k] = child
				}
				merge(child, sub)
			} else if _, ok := into[k]; !ok {
				into[k] = nil
			}
		}
	}
	out := map[string]any{}
	for _, r := range all {
		if r.cte == cte {
			merge(out, r.meta)
		}
	}
	return out
}

// storedJSON is metadata as logq returns it: every nested object an
// ARRAY<STRUCT> of one element with every field of the source's schema, in
// canonical JSON.
func storedJSON(t *testing.T, v map[string]any, schema map[string]any) string {
	var wrap func(v map[string]any, schema map[string]any) any
	wrap = func(v map[string]any, schema map[string]any) any {
		out := map[string]any{}
		for k, sub := range schema {
			x, present := v[k]
			switch {
			case !present:
				out[k] = nil
			case sub != nil:
				out[k] = wrap(x.(map[string]any), sub.(map[string]any))
			default:
				out[k] = x
			}
		}
		return []any{out}
	}
	b, err := json.Marshal(wrap(v, schema))
	require.NoError(t, err)
	return string(b)
}

// cell renders a result value for comparison: JSON numbers by their text,
// arrays and objects as canonical JSON.
func cell(t *testing.T, v any) string {
	switch v.(type) {
	case map[string]any, []any:
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return string(b)
	case nil:
		return "NULL"
	}
	return fmt.Sprint(v)
}

func table(t *testing.T, r reply) [][]string {
	var out [][]string
	for _, row := range rows(t, r) {
		var line []string
		for _, c := range row {
			line = append(line, c.k+"="+cell(t, c.v))
		}
		out = append(out, line)
	}
	return out
}

func TestStudioShapedQueries(t *testing.T) {
	h := sandboxedLogsAll(t)
	all := studioData(t, h)
	us := func(ts time.Time) string { return fmt.Sprint(ts.UnixMicro()) }
	var zero time.Time
	type query struct {
		name, sql string
		params    []string
		want      func() [][]string
	}
	var qs []query
	// The log page of each source: the newest 100 with the whole metadata.
	for _, s := range sandboxSources {
		cte := s.cte
		qs = append(qs, query{cte + " page", "select id, timestamp, event_message, metadata from " + cte + " order by timestamp desc limit 100", nil,
			func() [][]string {
				var out [][]string
				schema := schemaOf(all, cte)
				for _, r := range newestFirst(visible(all, cte, zero, zero)) {
					out = append(out, []string{"id=" + r.id, "timestamp=" + us(r.ts), "event_message=" + r.msg, "metadata=" + storedJSON(t, r.meta, schema)})
				}
				return out
			}})
		// The count badge.
		qs = append(qs, query{cte + " count", "select count(*) as count from " + cte, nil,
			func() [][]string { return [][]string{{fmt.Sprint("count=", len(visible(all, cte, zero, zero)))}} }})
	}
	start, end := testNow.Add(-10*time.Hour), testNow.Add(-2*time.Hour)
	qs = append(qs,
		query{"edge page with request and response", `select id, timestamp, event_message, request.method, request.path, response.status_code
from edge_logs
cross join unnest(metadata) as m
cross join unnest(m.request) as request
cross join unnest(m.response) as response
order by timestamp desc
limit 100`, nil, func() [][]string {
			var out [][]string
			for _, r := range newestFirst(visible(all, "edge_logs", zero, zero)) {
				out = append(out, []string{"id=" + r.id, "timestamp=" + us(r.ts), "event_message=" + r.msg, "method=" + r.method, "path=" + r.path, fmt.Sprint("status_code=", r.status)})
			}
			return out
		}},
		query{"postgres page with parsed, iso bounds", `select id, postgres_logs.timestamp, event_message, parsed.error_severity
from postgres_logs
cross join unnest(metadata) as m
cross join unnest(m.parsed) as parsed
order by timestamp desc
limit 100`, []string{"iso_timestamp_start", start.Format(time.RFC3339), "iso_timestamp_end", end.Format(time.RFC3339)}, func() [][]string {
			var out [][]string
			for _, r := range newestFirst(visible(all, "postgres_logs", start, end)) {
				out = append(out, []string{"id=" + r.id, "timestamp=" + us(r.ts), "event_message=" + r.msg, "error_severity=" + r.severity})
			}
			return out
		}},
		query{"postgres errors only", `select id, event_message::text as event_message from postgres_logs
cross join unnest(metadata) as m cross join unnest(m.parsed) as parsed
where parsed.error_severity in ('ERROR', 'FATAL', 'PANIC')
order by timestamp desc`, nil, func() [][]string {
			var out [][]string
			for _, r := range newestFirst(visible(all, "postgres_logs", zero, zero)) {
				if r.severity == "ERROR" {
					out = append(out, []string{"id=" + r.id, "event_message=" + r.msg})
				}
			}
			return out
		}},
		query{"edge chart: requests and errors per hour", `select timestamp_trunc(t.timestamp, hour) as timestamp,
  countif(response.status_code >= 500) as error_count,
  countif(response.status_code >= 400 and response.status_code < 500) as warning_count,
  count(t.id) as ok_count
from edge_logs t
cross join unnest(t.metadata) as m
cross join unnest(m.response) as response
group by timestamp
order by timestamp asc`, nil, func() [][]string {
			type agg struct{ e, w, n int }
			byHour := map[time.Time]*agg{}
			for _, r := range visible(all, "edge_logs", zero, zero) {
				k := r.ts.Truncate(time.Hour)
				if byHour[k] == nil {
					byHour[k] = &agg{}
				}
				a := byHour[k]
				a.n++
				if r.status >= 500 {
					a.e++
				} else if r.status >= 400 {
					a.w++
				}
			}
			var hours []time.Time
			for k := range byHour {
				hours = append(hours, k)
			}
			sort.Slice(hours, func(i, j int) bool { return hours[i].Before(hours[j]) })
			var out [][]string
			for _, k := range hours {
				a := byHour[k]
				out = append(out, []string{"timestamp=" + us(k), fmt.Sprint("error_count=", a.e), fmt.Sprint("warning_count=", a.w), fmt.Sprint("ok_count=", a.n)})
			}
			return out
		}},
		query{"search: regexp on event_message", `select id, timestamp from auth_logs where regexp_contains(event_message, 'failed') order by timestamp desc limit 100`, nil,
			func() [][]string {
				var out [][]string
				for _, r := range newestFirst(visible(all, "auth_logs", zero, zero)) {
					if strings.Contains(r.msg, "failed") {
						out = append(out, []string{"id=" + r.id, "timestamp=" + us(r.ts)})
					}
				}
				return out
			}},
		query{"level filter through metadata", `select id, metadata.level from function_logs cross join unnest(metadata) as metadata where metadata.level = 'error' order by timestamp desc`, nil,
			func() [][]string {
				var out [][]string
				for _, r := range newestFirst(visible(all, "function_logs", zero, zero)) {
					if r.meta["level"] == "error" {
						out = append(out, []string{"id=" + r.id, "level=error"})
					}
				}
				return out
			}},
		query{"explorer: union of two sources, load older via iso end", `select id, timestamp, event_message from storage_logs
union all
select id, timestamp, event_message from realtime_logs
order by timestamp desc limit 15`, []string{"iso_timestamp_end", end.Format(time.RFC3339)}, func() [][]string {
			rs := newestFirst(append(visible(all, "storage_logs", zero, end), visible(all, "realtime_logs", zero, end)...))
			var out [][]string
			for _, r := range rs[:min(15, len(rs))] {
				out = append(out, []string{"id=" + r.id, "timestamp=" + us(r.ts), "event_message=" + r.msg})
			}
			return out
		}},
		query{"explorer: caller CTE and group by status", `with reqs as (
  select response.status_code as status
  from edge_logs cross join unnest(metadata) as m cross join unnest(m.response) as response
)
select status, count(*) as n from reqs group by status order by status`, nil, func() [][]string {
			counts := map[int64]int{}
			for _, r := range visible(all, "edge_logs", zero, zero) {
				counts[r.status]++
			}
			var keys []int64
			for k := range counts {
				keys = append(keys, k)
			}
			sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
			var out [][]string
			for _, k := range keys {
				out = append(out, []string{fmt.Sprint("status=", k), fmt.Sprint("n=", counts[k])})
			}
			return out
		}},
		query{"explorer: counts per source in one query", `select 'pgbouncer' as source, count(*) as n from pgbouncer_logs
union all select 'postgrest', count(*) from postgrest_logs
union all select 'function_edge', count(*) from function_edge_logs`, nil, func() [][]string {
			return [][]string{
				{"source=pgbouncer", fmt.Sprint("n=", len(visible(all, "pgbouncer_logs", zero, zero)))},
				{"source=postgrest", fmt.Sprint("n=", len(visible(all, "postgrest_logs", zero, zero)))},
				{"source=function_edge", fmt.Sprint("n=", len(visible(all, "function_edge_logs", zero, zero)))},
			}
		}},
		query{"load older: newest 5 after a start", `select id, timestamp from function_edge_logs order by timestamp desc limit 5`,
			[]string{"iso_timestamp_start", start.Format(time.RFC3339)}, func() [][]string {
				var out [][]string
				for _, r := range newestFirst(visible(all, "function_edge_logs", start, zero))[:5] {
					out = append(out, []string{"id=" + r.id, "timestamp=" + us(r.ts)})
				}
				return out
			}},
		query{"badge: REST requests", `select count(*) as count from edge_logs
cross join unnest(metadata) as m cross join unnest(m.request) as request
where request.path like '/rest%'`, nil, func() [][]string {
			n := 0
			for _, r := range visible(all, "edge_logs", zero, zero) {
				if strings.HasPrefix(r.path, "/rest") {
					n++
				}
			}
			return [][]string{{fmt.Sprint("count=", n)}}
		}},
		query{"chart: pgbouncer per minute", `select timestamp_trunc(timestamp, minute) as timestamp, count(*) as count
from pgbouncer_logs group by timestamp order by timestamp desc`, nil, func() [][]string {
			var out [][]string
			for _, r := range newestFirst(visible(all, "pgbouncer_logs", zero, zero)) {
				out = append(out, []string{"timestamp=" + us(r.ts.Truncate(time.Minute)), "count=1"}) // one record per minute at most
			}
			return out
		}},
		query{"explorer: newest request per status (QUALIFY)", `select response.status_code as status, id, timestamp
from edge_logs cross join unnest(metadata) as m cross join unnest(m.response) as response
qualify row_number() over (partition by response.status_code order by timestamp desc) = 1
order by status`, nil, func() [][]string {
			newest := map[int64]studioRec{}
			for _, r := range visible(all, "edge_logs", zero, zero) {
				if n, ok := newest[r.status]; !ok || r.ts.After(n.ts) {
					newest[r.status] = r
				}
			}
			var keys []int64
			for k := range newest {
				keys = append(keys, k)
			}
			sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
			var out [][]string
			for _, k := range keys {
				out = append(out, []string{fmt.Sprint("status=", k), "id=" + newest[k].id, "timestamp=" + us(newest[k].ts)})
			}
			return out
		}},
		query{"explorer: per hour with running total and previous hour", `select hour, n, sum(n) over (order by hour) as running, lag(n) over (order by hour) as prev
from (select timestamp_trunc(timestamp, hour) as hour, count(*) as n from auth_logs group by hour)
order by hour`, nil, func() [][]string {
			counts := map[time.Time]int{}
			for _, r := range visible(all, "auth_logs", zero, zero) {
				counts[r.ts.Truncate(time.Hour)]++
			}
			var hours []time.Time
			for k := range counts {
				hours = append(hours, k)
			}
			sort.Slice(hours, func(i, j int) bool { return hours[i].Before(hours[j]) })
			var out [][]string
			running, prev := 0, "NULL"
			for _, k := range hours {
				running += counts[k]
				out = append(out, []string{"hour=" + us(k), fmt.Sprint("n=", counts[k]), fmt.Sprint("running=", running), "prev=" + prev})
				prev = fmt.Sprint(counts[k])
			}
			return out
		}},
		query{"report: paths ranked by requests", `select request.path as path, count(*) as n, rank() over (order by count(*) desc) as r
from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as request
group by path order by r, path`, nil, func() [][]string {
			counts := map[string]int{}
			for _, r := range visible(all, "edge_logs", zero, zero) {
				counts[r.path]++
			}
			var paths []string
			for k := range counts {
				paths = append(paths, k)
			}
			sort.Slice(paths, func(i, j int) bool {
				if counts[paths[i]] != counts[paths[j]] {
					return counts[paths[i]] > counts[paths[j]]
				}
				return paths[i] < paths[j]
			})
			var out [][]string
			for _, p := range paths {
				rank := 1
				for _, o := range paths {
					if counts[o] > counts[p] {
						rank++
					}
				}
				out = append(out, []string{"path=" + p, fmt.Sprint("n=", counts[p]), fmt.Sprint("r=", rank)})
			}
			return out
		}},
	)
	require.GreaterOrEqual(t, len(qs), 30)
	for _, q := range qs {
		t.Run(q.name, func(t *testing.T) {
			want := q.want()
			require.NotEmpty(t, want, "a query with no expected rows checks nothing")
			got := table(t, h.get(sqlPath(q.sql, q.params...)))
			require.Equal(t, want, got)
		})
	}
}

// The nine real sample records (one per source, as self-hosted Supabase's
// Vector ships them, project "default") each come back from their CTE of
// logs.all?sql= as Studio asks, with Studio's own project=default and no
// project_tier. Expected values are read from the sample files themselves.
func TestStudioOverRealSamples(t *testing.T) {
	h := sandboxedLogsAll(t)
	want := map[string]map[string]any{}
	for _, s := range sandboxSources {
		b, err := os.ReadFile(filepath.Join("..", "logstore", "testdata", "samples", s.source+".json"))
		require.NoError(t, err)
		var ev map[string]any
		require.NoError(t, json.Unmarshal(b, &ev))
		want[s.cte] = ev
		require.Equal(t, 200, h.ingest(s.source, b, nil).code)
	}
	for _, s := range sandboxSources {
		// As Studio sends it: empty iso bounds, a Postgres cast.
		r := h.get("/api/endpoints/query/logs.all?" + url.Values{"project": {"default"}, "iso_timestamp_start": {""}, "iso_timestamp_end": {""},
			"sql": {"select event_message::text as event_message from " + s.cte}}.Encode())
		require.Equal(t, []string{want[s.cte]["event_message"].(string)}, column(t, r, "event_message"), s.cte)
	}
	meta := func(ev map[string]any, path ...string) string {
		var v any = ev["metadata"]
		for _, p := range path {
			v = v.(map[string]any)[p]
		}
		return fmt.Sprint(v)
	}
	r := h.get("/api/endpoints/query/logs.all?" + url.Values{"project": {"default"}, "sql": {`select request.method, response.status_code
from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as request cross join unnest(m.response) as response`}}.Encode())
	require.Equal(t, []string{meta(want["edge_logs"], "request", "method")}, column(t, r, "method"))
	require.Equal(t, []string{meta(want["edge_logs"], "response", "status_code")}, column(t, r, "status_code"))
	r = h.get("/api/endpoints/query/logs.all?" + url.Values{"project": {"default"}, "sql": {`select parsed.error_severity
from postgres_logs cross join unnest(metadata) as m cross join unnest(m.parsed) as parsed`}}.Encode())
	require.Equal(t, []string{meta(want["postgres_logs"], "parsed", "error_severity")}, column(t, r, "error_severity"))

	// Studio's own postgres log list (Logs.utils.ts, verbatim): it reads
	// parsed.detail and parsed.hint, which the sample record lacks. A field
	// of a stored object that no event has is NULL, as a top-level one is;
	// before, UNNEST(metadata) unqualified made parsed a STRUCT value and the
	// page answered 400.
	r = h.get("/api/endpoints/query/logs.all?" + url.Values{"project": {"default"}, "sql": {`
select postgres_logs.timestamp, id, event_message, parsed.error_severity, parsed.detail, parsed.hint
from postgres_logs
cross join unnest(metadata) as m
  cross join unnest(m.parsed) as parsed

order by timestamp desc
limit 100`}}.Encode())
	require.Equal(t, 200, r.code, string(r.body))
	require.Equal(t, []string{meta(want["postgres_logs"], "parsed", "error_severity")}, column(t, r, "error_severity"))
	require.Equal(t, []string{"<nil>"}, column(t, r, "detail"))
	// Studio's function-edge count names a field of the UNNEST alias m
	// unqualified (value-table fields, as BigQuery resolves them).
	fid := meta(want["function_edge_logs"], "function_id")
	r = h.get("/api/endpoints/query/logs.all?" + url.Values{"project": {"default"}, "sql": {"SELECT count(*) as count FROM function_edge_logs cross join unnest(metadata) as m\n" +
		"  cross join unnest(m.response) as response\n  cross join unnest(m.request) as request where (`function_id` = '" + fid + "')"}}.Encode())
	require.Equal(t, 200, r.code, string(r.body))
	require.Equal(t, []string{"1"}, column(t, r, "count"))

	// Studio's edge-function report by region (Reports, self-hosted) reads
	// the x_sb_edge_region response header, which the sample lacks. The
	// function_edge_logs CTE unnests metadata itself (to filter on
	// project_ref); merged as a view, its metadata stays a stored path and
	// the missing header is NULL, as for any stored object. Before, the CTE
	// was a plan, metadata a STRUCT value and the report a 400.
	r = h.get("/api/endpoints/query/logs.all?" + url.Values{"project": {"default"}, "sql": {`
select
  h.x_sb_edge_region as region,
  h.server as server,
  count(*) as count
from
  function_edge_logs
  cross join unnest(metadata) as m
  cross join unnest(m.response) as r
  cross join unnest(r.headers) as h
group by
  region, server`}}.Encode())
	require.Equal(t, 200, r.code, string(r.body))
	require.Equal(t, []string{"<nil>"}, column(t, r, "region"))
	require.Equal(t, []string{meta(want["function_edge_logs"], "response", "headers", "server")}, column(t, r, "server"))
	require.Equal(t, []string{"1"}, column(t, r, "count"))
	// The same CTE inside a derived table on one side of a LEFT JOIN (the
	// unified log list's shape) is merged within that derived table.
	r = h.get("/api/endpoints/query/logs.all?" + url.Values{"project": {"default"}, "sql": {`
select e.id, f.n
from edge_logs as e
left join (
  select fm.function_id, count(*) as n
  from function_logs as fl cross join unnest(fl.metadata) as fm
  where fm.request_id is null
  group by fm.function_id
) as f on true`}}.Encode())
	require.Equal(t, 200, r.code, string(r.body))
	require.Equal(t, []string{"1"}, column(t, r, "n"))
}
