package api

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"logq/logstore"
)

// FuzzSandboxSQL runs arbitrary SQL through logs.all?sql= over a small data
// set of all nine sources: never a 500 (nor a panic), and nothing read
// outside the CTEs. The latter is checked with records no CTE can return: a
// "canary" source, and records of another project in every source; their
// messages must never appear in an answer.
func FuzzSandboxSQL(f *testing.F) {
	store := logstore.New(logstore.Options{SegmentRows: 4})
	add := func(source string, ev map[string]any) {
		b, err := json.Marshal(ev)
		if err != nil {
			f.Fatal(err)
		}
		store.Append(source, [][]byte{b})
	}
	for si, s := range sandboxSources {
		for i := 0; i < 6; i++ {
			at := testNow.Add(-time.Duration(i*5+si) * time.Minute)
			add(s.source, sandboxEvent(s.projectAt, "p", fmt.Sprintf("%s-%d", s.cte, i), fmt.Sprintf("%s %d", s.cte, i), at,
				map[string]any{"n": i, "request": map[string]any{"path": "/rest/v1/x"}, "tags": []any{"a", "b"}}))
		}
		add(s.source, sandboxEvent(s.projectAt, "other", "x", "FORBIDDEN-OTHER", testNow.Add(-time.Minute), nil))
	}
	add("canary", map[string]any{"event_message": "FORBIDDEN-CANARY", "project": "p", "timestamp": testNow.Format(time.RFC3339)})
	eps := builtins(f)
	for _, e := range eps {
		if e.Name == "logs.all" {
			e.Sandboxed = true
		}
	}
	// A small memory budget, so that joins and sorts of fuzzed queries also
	// take the budget's error path.
	srv := New(Config{Keys: Keys(testKey), Endpoints: eps, Backend: Local(store), Clock: NewFakeClock(testNow),
		QueryTimeout: 5 * time.Second, QueryMemory: 64 << 10, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv.SetReady(true)
	f.Cleanup(srv.Close)

	for _, seed := range []string{
		"select id, timestamp, event_message, metadata from edge_logs order by timestamp desc limit 100",
		"select count(*) as c from postgres_logs", "select id from canary", "select event_message from `canary`",
		"with canary as (select id from auth_logs) select id from canary",
		"select m.n, t from storage_logs cross join unnest(metadata) as m cross join unnest(m.tags) as t",
		"select id from edge_logs union all select id from function_logs",
		"select a.id from realtime_logs a, pgbouncer_logs b where a.id = b.id",
		"select event_message::text from postgrest_logs where regexp_contains(event_message, '1')",
		"select timestamp_trunc(timestamp, minute) as ts, count(*) from function_edge_logs group by ts order by ts",
		"select 1; select 2", "select * from edge_logs", "delete from edge_logs", "select @project, @nope",
		"select cast(2.5 as int64), safe_cast('x' as int64), 1/0",
		"select a.id, b.id, c.id from edge_logs a, auth_logs b, postgres_logs c order by a.id",
		"select id from edge_logs where id in (select id from auth_logs) or id not in (select id from canary)",
		"select (select max(id) from postgres_logs) as m, exists (select 1 from `postgres.logs`) as e",
		"select array(select event_message from function_logs order by timestamp) as a",
		"select id from edge_logs e where exists (select 1 from auth_logs a where a.id = e.id)",
		"select id from auth_logs where event_message in (select t from storage_logs, unnest(metadata) as m, unnest(m.tags) as t)",
		"select (select id from edge_logs) as many, array(select [1]) as nested",
		"select id from edge_logs where id is distinct from 'x' and event_message not like any ('a%', null)",
		"select m.n in unnest([1, 2]), 'a' like all unnest(['%', 'a_']) from storage_logs, unnest(metadata) as m",
		"select sum(m.n), max(cast(m.n as float64)), approx_quantiles(id, 3), stddev(m.n) from storage_logs, unnest(metadata) as m",
		"select safe_add(9223372036854775807, 1), ieee_divide(1, 0), is_nan(0/1), '\\x41\\101', cast('1' as numeric)",
		"select json '{\"a\": [1]}'.a[0], to_json_string(struct(id)), parse_json(event_message).x from edge_logs",
		"select id, (select count(*) from auth_logs a where a.timestamp < e.timestamp) as n from edge_logs e order by n",
		"select collate(event_message, 'und:ci') = 'X' as c, strpos(collate(event_message, 'und:ci'), 'f') from edge_logs order by event_message collate 'en_US:ci'",
		"select e.id, t from storage_logs e left join unnest(e.metadata) as m on m.n > 1 left join unnest(m.tags) as t on t = 'a'",
		"select 5 & 3, ~1, 1 << 63, b'\\x01' | b'\\x02', net.ip_to_string(net.ip_from_string('::1')), edit_distance(id, event_message) from edge_logs",
	} {
		f.Add(seed)
	}
	files, _ := filepath.Glob("../exec/testdata/golden/*.txtar")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, fl := range txtar.Parse(b).Files {
			if fl.Name == "query.sql" {
				f.Add(string(fl.Data))
			}
		}
	}
	f.Fuzz(func(t *testing.T, sql string) {
		req := httptest.NewRequest(http.MethodGet, "/api/endpoints/query/logs.all?project=p&sql="+url.QueryEscape(sql), nil)
		req.Header.Set("X-API-KEY", testKey)
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		switch rec.Code {
		case 200, 400, 504:
		default:
			t.Fatalf("%q: %d %s", sql, rec.Code, rec.Body.String())
		}
		// (A query may spell the marker itself, in a literal or by
		// concatenation; such inputs are not evidence of a leak.)
		if strings.Contains(rec.Body.String(), "FORBIDDEN-") && !strings.Contains(strings.ToUpper(sql), "FORBIDDEN") && !strings.Contains(sql, "||") && !strings.Contains(strings.ToLower(sql), "concat") {
			t.Fatalf("%q read outside the CTEs: %s", sql, rec.Body.String())
		}
	})
}
