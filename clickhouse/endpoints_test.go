package clickhouse

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/api"
	"logq/endpoint"
	"logq/exec"
	"logq/fixtures"
	"logq/logstore"
)

// The built-in endpoints over their parameter grids, and Studio-shaped sql=
// calls, asked over HTTP of two servers that differ only in storage: the
// local store and the cluster, holding the same generated events of all
// nine sources. Status, columns, rows and errors must be the same.

var epNow = time.Date(2026, 3, 14, 15, 9, 26, 535897000, time.UTC)

const testKey = "k"

// pair is two API servers over the same events.
type pair struct {
	local, ch  http.Handler
	engine     *Engine
	localStore exec.Storage
}

func newPair(t *testing.T, perSource int) *pair {
	return newPairOf(t, perSource, fixtures.Sources)
}

// newPairOf loads the generated events of the sources named.
func newPairOf(t testing.TB, perSource int, sources []string) *pair {
	cl := needCluster(t)
	eng := cl.engine(t, Config{})
	st := logstore.New(logstore.Options{SegmentRows: 700})
	if perSource > 100_000 {
		st = logstore.New(logstore.Options{})
	}
	spec := fixtures.DefaultSpec(perSource, epNow)
	for _, src := range sources {
		evs := fixtures.Generate(spec, src)
		for len(evs) > 0 {
			k := min(max(500, perSource/50), len(evs))
			_, lrej := st.Append(src, evs[:k])
			_, crej, err := eng.Ingest(src, evs[:k])
			require.NoError(t, err)
			require.Equal(t, len(lrej), len(crej))
			evs = evs[k:]
		}
	}
	eps, err := endpoint.LoadFS(fixtures.Endpoints, "endpoints")
	require.NoError(t, err)
	for _, e := range eps {
		if e.Name == "logs.all" {
			e.Sandboxed = true // Studio's sql= (serve --sandbox-logs-all)
		}
	}
	server := func(b api.Backend) http.Handler {
		s := api.New(api.Config{Keys: api.Keys(testKey), Endpoints: eps, Backend: b, Clock: api.NewFakeClock(epNow), CacheEntries: 1,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		s.SetReady(true)
		t.Cleanup(s.Close)
		return s.Handler()
	}
	return &pair{local: server(api.Local(st)), ch: server(eng), engine: eng, localStore: exec.Local(st)}
}

// get asks one server.
func get(h http.Handler, path string) (int, []byte) {
	r := httptest.NewRequest("GET", path, nil)
	r.Header.Set("X-API-Key", testKey)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code, w.Body.Bytes()
}

// same asks both servers and requires the same answer; it returns the
// local one's body.
func (p *pair) same(t *testing.T, path string) []byte {
	t.Helper()
	lc, lb := get(p.local, path)
	cc, cb := get(p.ch, path)
	require.Equal(t, lc, cc, "status of %s: local %s / clickhouse %s", path, lb, cb)
	var lv, cv any
	require.NoError(t, json.Unmarshal(lb, &lv), "%s", lb)
	require.NoError(t, json.Unmarshal(cb, &cv), "%s", cb)
	if d := jsonDiff(lv, cv, "$"); d != "" {
		t.Fatalf("%s: %s\nlocal:      %.600s\nclickhouse: %.600s", path, d, lb, cb)
	}
	return lb
}

// jsonDiff compares two decoded JSON documents; numbers to 12 significant
// digits (shards add floats in another order).
func jsonDiff(a, b any, at string) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %v vs %v", at, a, b)
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if d := jsonDiff(x[k], y[k], at+"."+k); d != "" {
				return d
			}
		}
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %d items vs %v", at, len(x), lenOf(b))
		}
		for i := range x {
			if d := jsonDiff(x[i], y[i], fmt.Sprintf("%s[%d]", at, i)); d != "" {
				return d
			}
		}
	case float64:
		y, ok := b.(float64)
		if !ok || (x != y && math.Abs(x-y) > 1e-12*math.Max(math.Abs(x), math.Abs(y))) {
			return fmt.Sprintf("%s: %v vs %v", at, a, b)
		}
	default:
		if a != b {
			return fmt.Sprintf("%s: %v vs %v", at, a, b)
		}
	}
	return ""
}

func lenOf(v any) any {
	if l, ok := v.([]any); ok {
		return len(l)
	}
	return v
}

func rowsOf(t *testing.T, body []byte) int {
	var r struct {
		Result []any `json:"result"`
	}
	require.NoError(t, json.Unmarshal(body, &r))
	return len(r.Result)
}

func endpointPath(name string, params ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(params); i += 2 {
		q.Set(params[i], params[i+1])
	}
	return "/api/endpoints/query/" + name + "?" + q.Encode()
}

func TestBuiltinEndpointsAgree(t *testing.T) {
	p := newPair(t, 3000)
	projects := []string{fixtures.ProjectRef(0), fixtures.ProjectRef(3), "nosuchref"}
	nonEmpty := 0
	t.Run("invocation-stats", func(t *testing.T) {
		for _, proj := range projects {
			for _, iv := range []string{"5min", "15min", "1hr", "1day", "7day", "", "bogus"} {
				for _, fn := range []string{"", fixtures.FunctionID(1), fixtures.FunctionID(2)} {
					b := p.same(t, endpointPath("functions.invocation-stats", "project", proj, "interval", iv, "function_id", fn))
					nonEmpty += min(rowsOf(t, b), 1)
				}
			}
		}
	})
	t.Run("api-counts", func(t *testing.T) {
		for _, proj := range projects {
			for _, iv := range []string{"minutely", "hourly", "daily", "", "bogus"} {
				b := p.same(t, endpointPath("usage.api-counts", "project", proj, "interval", iv))
				nonEmpty += min(rowsOf(t, b), 1)
			}
		}
	})
	t.Run("logs.all", func(t *testing.T) {
		start := epNow.Add(-3 * time.Hour).Format(time.RFC3339Nano)
		end := epNow.Add(-time.Hour).Format(time.RFC3339Nano)
		for _, proj := range projects {
			for _, tier := range []string{"FREE", "PRO", "PAYG", "ENTERPRISE", "", "bogus"} {
				for _, rng := range [][2]string{{"", ""}, {start, ""}, {start, end}, {"", end}} {
					b := p.same(t, endpointPath("logs.all", "project", proj, "project_tier", tier, "iso_timestamp_start", rng[0], "iso_timestamp_end", rng[1]))
					nonEmpty += min(rowsOf(t, b), 1)
				}
			}
		}
	})
	t.Run("errors", func(t *testing.T) {
		for _, path := range []string{
			endpointPath("functions.invocation-stats"),                                   // project missing
			endpointPath("logs.all", "project", "p", "iso_timestamp_start", "yesterday"), // bad timestamp
			"/api/endpoints/query/nosuch?project=x",
		} {
			p.same(t, path)
		}
	})
	require.Greater(t, nonEmpty, 40, "most of the grid has rows to compare")
}

// studioShapes are queries in the shapes Studio's Logs pages and Explorer
// send as sql= to logs.all (written for this test): lists, counts, charts,
// a single log, unnests of metadata, and reports.
var studioShapes = []string{
	// list, newest first
	`select id, timestamp, event_message from edge_logs order by timestamp desc limit 100`,
	// list with metadata leaves through unnest, filtered
	`select id, edge_logs.timestamp, event_message, request.method, request.path, response.status_code
	 from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as request cross join unnest(m.response) as response
	 where (response.status_code between 400 and 599) and (request.path like '/rest/%' or request.path like '/auth/%')
	   and regexp_contains(event_message, '(?i)get|post')
	 order by timestamp desc limit 50`,
	// count
	`select count(*) as count from edge_logs cross join unnest(metadata) as m cross join unnest(m.response) as r where r.status_code >= 500`,
	// chart: per minute ok/warning/error
	`select timestamp_trunc(t.timestamp, minute) as timestamp,
	   count(case when not (r.status_code >= 500 or r.status_code >= 400 and r.status_code < 500) then 1 end) as ok_count,
	   count(case when r.status_code >= 500 then 1 end) as error_count,
	   countif(r.status_code between 400 and 499) as warning_count
	 from edge_logs t cross join unnest(t.metadata) as m cross join unnest(m.response) as r
	 group by timestamp order by timestamp asc`,
	// chart by hour over postgres logs
	`select timestamp_trunc(timestamp, hour) as hour, count(*) as n from postgres_logs group by hour order by hour desc`,
	// a single log by id
	`select id, timestamp, event_message, metadata from edge_logs where id = (select min(id) from edge_logs) limit 1`,
	// report: top paths
	`select r.path as path, count(*) as requests, avg(res.origin_time) as avg_origin
	 from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as r cross join unnest(m.response) as res
	 group by path order by requests desc, path limit 10`,
	// report: slow responses
	`select cast(timestamp as datetime) as timestamp, event_message, r.origin_time
	 from edge_logs cross join unnest(metadata) as m cross join unnest(m.response) as r
	 where r.origin_time > 500 order by timestamp desc limit 20`,
	// function logs and their levels
	`select timestamp_trunc(timestamp, hour) as t, m.level as level, count(*) as n
	 from function_logs cross join unnest(metadata) as m group by t, level order by t, level`,
	// percentiles of function execution time
	`select approx_quantiles(m.execution_time_ms, 100)[offset(50)] as p50, approx_quantiles(m.execution_time_ms, 100)[offset(99)] as p99, max(m.execution_time_ms) as mx
	 from function_edge_logs cross join unnest(metadata) as m`,
	// auth logs search
	`select id, timestamp, event_message from auth_logs where regexp_contains(event_message, 'user') and not regexp_contains(event_message, 'token') order by timestamp desc limit 30`,
	// errors: a column that does not exist, a function that does not exist
	`select nosuch from edge_logs`,
	`select frobnicate(id) from edge_logs`,
}

func TestStudioShapesAgree(t *testing.T) {
	p := newPair(t, 1500)
	rows := 0
	for i, sql := range studioShapes {
		for _, rng := range [][2]string{{"", ""}, {epNow.Add(-time.Hour).Format(time.RFC3339Nano), ""}} {
			path := endpointPath("logs.all", "project", fixtures.ProjectRef(0), "iso_timestamp_start", rng[0], "iso_timestamp_end", rng[1], "sql", sql)
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				rows += rowsOf(t, p.same(t, path))
			})
		}
	}
	require.Greater(t, rows, 100, "the shapes have rows to compare")
}
