package api

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// /api/query runs a SELECT over the sources by name, as Logflare's does,
// with the endpoints' error shapes and row cap; other parameters are
// @params.
func TestAdhocQuery(t *testing.T) {
	h := newHarness(t, nil)
	var evs []string
	for i := 0; i < 1200; i++ {
		evs = append(evs, fmt.Sprintf(`{"event_message":"m%d","timestamp":"2026-03-01T10:00:00Z","n":%d}`, i, i))
	}
	require.Equal(t, 200, h.ingest("cloudflare.logs.prod", []byte("["+strings.Join(evs, ",")+"]"), nil).code)
	get := func(q url.Values) reply { return h.get("/api/query?" + q.Encode()) }

	r := get(url.Values{"sql": {"select count(*) as n, sum(n) as s from `cloudflare.logs.prod`"}})
	require.Equal(t, 200, r.code, string(r.body))
	require.JSONEq(t, `{"result":[{"n":1200,"s":719400}]}`, string(r.body)) // 0+…+1199
	require.Equal(t, "bypass", r.header.Get("Logq-Cache"))

	r = get(url.Values{"bq_sql": {"select @a as a, @missing as b"}, "a": {"x"}})
	require.Equal(t, 200, r.code, string(r.body))
	require.JSONEq(t, `{"result":[{"a":"x","b":null}]}`, string(r.body), "bq_sql=, and parameters as strings")

	r = get(url.Values{"sql": {"select n from `cloudflare.logs.prod`"}})
	require.Equal(t, 200, r.code)
	var res struct{ Result []map[string]any }
	require.NoError(t, json.Unmarshal(r.body, &res))
	require.Len(t, res.Result, AdhocMaxRows, "the row cap")

	// POST with a JSON object body.
	r = h.do(http.MethodPost, "/api/query", strings.NewReader(`{"sql":"select 1 as one"}`), map[string]string{"X-API-KEY": testKey})
	require.Equal(t, 200, r.code, string(r.body))
	require.JSONEq(t, `{"result":[{"one":1}]}`, string(r.body))

	// Errors: positioned, never a 500.
	requireError(t, get(url.Values{"sql": {"select\n  count(* from x"}}), 400, "INVALID_ARGUMENT", "2:11")
	requireError(t, get(url.Values{"sql": {"select nope()"}}), 400, "INVALID_ARGUMENT", "1:8")
	requireError(t, get(url.Values{}), 400, "INVALID_ARGUMENT", "sql")
	requireError(t, get(url.Values{"pg_sql": {"select 1"}}), 400, "INVALID_ARGUMENT", "pg_sql")
	requireError(t, get(url.Values{"sql": {"select error('boom')"}}), 400, "INVALID_ARGUMENT", "sql")
	requireError(t, h.do(http.MethodGet, "/api/query?sql=select+1", nil, nil), 401, "UNAUTHENTICATED", "")
}

// FuzzAdhocQuery: whatever sql= holds, the answer is 200 or a 4xx in the
// error shape, never a panic or a 500.
func FuzzAdhocQuery(f *testing.F) {
	h := newHarness(&testing.T{}, nil)
	h.ingest("s", []byte(`[{"event_message":"a","metadata":{"n":1}},{"event_message":"b"}]`), nil)
	for _, s := range []string{"select 1", "select count(*) from s", "select * from s cross join unnest(metadata) as m", "select (", "with a as (select 1) select * from a a a",
		"select timestamp_trunc(timestamp, hour) as t, count(*) from s group by t", "select @p", "select repeat('x', 1000000000)",
		"select * from s as t tablesample reservoir (1 rows partition by t.event_message) repeatable (3) with weight w",
		"select count(*) from (select * from s) tablesample bernoulli (50 percent)", "select * from ((select 1 as a) x cross join s)",
		"select sqrt(numeric '2'), pow(bignumeric '1.5', 30), log(numeric '8', 2), exp(numeric '80')"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		h.t = t
		r := h.get("/api/query?" + url.Values{"sql": {sql}}.Encode())
		require.NotEqual(t, 500, r.code, "%q: %s", sql, r.body)
		if r.code != 200 {
			var e errorBody
			require.NoError(t, json.Unmarshal(r.body, &e), "%q", sql)
			require.Equal(t, r.code, e.Error.Code)
		}
	})
}

// readSSE reads Server-Sent Events messages from a stream into ch.
func readSSE(t *testing.T, r *bufio.Reader, ch chan<- [3]string) {
	var id, ev, data string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			close(ch)
			return
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "":
			if ev != "" {
				ch <- [3]string{id, ev, data}
			}
			id, ev, data = "", "", ""
		case strings.HasPrefix(line, "id: "):
			id = line[4:]
		case strings.HasPrefix(line, "event: "):
			ev = line[7:]
		case strings.HasPrefix(line, "data: "):
			data += line[6:]
		}
	}
}

// The tail streams each acknowledged event of its source, filtered by LQL,
// and resumes after a cursor.
func TestTail(t *testing.T) {
	h := newHarness(t, nil)
	require.Equal(t, 200, h.ingest("src", []byte(`[{"event_message":"before"}]`), nil).code)
	open := func(query string) (chan [3]string, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.http.URL+"/api/sources/src/tail"+query, nil)
		require.NoError(t, err)
		req.Header.Set("X-API-KEY", testKey)
		req.Header.Set("Accept-Encoding", "gzip") // never compressed: it streams
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		require.Equal(t, 200, resp.StatusCode)
		require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
		require.Empty(t, resp.Header.Get("Content-Encoding"))
		ch := make(chan [3]string, 100)
		go readSSE(t, bufio.NewReader(resp.Body), ch)
		t.Cleanup(func() { cancel(); resp.Body.Close() })
		return ch, cancel
	}
	next := func(ch chan [3]string) [3]string {
		select {
		case m, ok := <-ch:
			require.True(t, ok, "the stream ended")
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no message")
			return [3]string{}
		}
	}
	all, _ := open("")
	errs, _ := open("?lql=" + url.QueryEscape("m.level:error"))
	require.Equal(t, "hello", next(all)[1])
	require.Equal(t, "hello", next(errs)[1])
	require.Equal(t, 200, h.ingest("src", []byte(`[{"event_message":"one","metadata":{"level":"info"}},{"event_message":"two","metadata":{"level":"error"}}]`), nil).code)
	m1, m2 := next(all), next(all)
	require.Equal(t, "log", m1[1])
	require.Contains(t, m1[2], `"event_message":"one"`, "not 'before': the tail starts now")
	require.Contains(t, m2[2], `"event_message":"two"`)
	e := next(errs)
	require.Contains(t, e[2], `"event_message":"two"`, "only what the filter matches")

	// Resuming after the first event's cursor gives the second.
	again, _ := open("?from=" + url.QueryEscape(m1[0]))
	require.Equal(t, "hello", next(again)[1])
	require.Contains(t, next(again)[2], `"event_message":"two"`)
	// From the start: every event the feed keeps (a store in memory keeps
	// them from its first ingest: "before" came before any reader).
	start, _ := open("?from=start")
	next(start)
	require.Contains(t, next(start)[2], `"event_message":"before"`)
	require.Contains(t, next(start)[2], `"event_message":"one"`)

	requireError(t, h.get("/api/sources/src/tail?lql="+url.QueryEscape(`m.x:>>1`)), 400, "INVALID_ARGUMENT", "1:6")
	requireError(t, h.get("/api/sources/src/tail?from=nonsense"), 400, "INVALID_ARGUMENT", "from")
	requireError(t, h.get("/api/sources/00000000-0000-4000-8000-000000000000/tail"), 404, "NOT_FOUND", "source")
}

// The page: / sends a browser to /ui/, whose files need no key and carry
// a strict Content-Security-Policy; the embedded files stay small.
func TestPageIsServedStrictly(t *testing.T) {
	h := newHarness(t, nil)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(h.http.URL + "/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 302, resp.StatusCode)
	require.Equal(t, "/ui/", resp.Header.Get("Location"))
	for _, p := range []string{"/ui/", "/ui/app.js", "/ui/app.css"} {
		r := h.do(http.MethodGet, p, nil, nil) // no key
		require.Equal(t, 200, r.code, p)
		csp := r.header.Get("Content-Security-Policy")
		require.Contains(t, csp, "default-src 'self'", p)
		require.Contains(t, csp, "frame-ancestors 'none'", p)
		require.NotContains(t, csp, "unsafe-inline", p)
		require.Equal(t, "nosniff", r.header.Get("X-Content-Type-Options"), p)
	}
	total := 0
	require.NoError(t, fs.WalkDir(uiFiles, "ui", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(uiFiles, p)
			total += len(b)
			require.NotContains(t, string(b), "http://", "%s: no request to another host", p)
			require.NotContains(t, string(b), "https://", "%s: no request to another host", p)
		}
		return err
	}))
	require.LessOrEqual(t, total, 250_000, "the page's files, uncompressed")
	requireError(t, h.do(http.MethodGet, "/ui/nope.js", nil, nil), 404, "NOT_FOUND", "")
}
