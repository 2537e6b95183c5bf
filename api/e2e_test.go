package api

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"

	"logq/endpoint"
	"logq/fixtures"
	"logq/logstore"
	"logq/storage"
	"logq/types"
)

const testKey = "test-key-123"

var testNow = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

type harness struct {
	t     *testing.T
	srv   *Server
	http  *httptest.Server
	clock *FakeClock
	store *logstore.Store
}

func builtins(t testing.TB) []*endpoint.Endpoint {
	eps, err := endpoint.LoadFS(fixtures.Endpoints, "endpoints")
	require.NoError(t, err)
	return eps
}

func newHarness(t *testing.T, mod func(*Config)) *harness {
	clock := NewFakeClock(testNow)
	store := logstore.New(logstore.Options{SegmentRows: 4096})
	cfg := Config{Keys: Keys(testKey, "second-key"), Endpoints: builtins(t), Backend: Local(store), Clock: clock,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if mod != nil {
		mod(&cfg)
	}
	srv := New(cfg)
	srv.SetReady(true)
	hs := httptest.NewServer(srv.Handler()) // a real server on a loopback port
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return &harness{t: t, srv: srv, http: hs, clock: clock, store: store}
}

type reply struct {
	code   int
	header http.Header
	body   []byte
}

func (h *harness) do(method, path string, body io.Reader, header map[string]string) reply {
	req, err := http.NewRequest(method, h.http.URL+path, body)
	require.NoError(h.t, err)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	return reply{resp.StatusCode, resp.Header, b}
}

func (h *harness) get(path string) reply {
	return h.do(http.MethodGet, path, nil, map[string]string{"X-API-KEY": testKey})
}

func (h *harness) ingest(source string, body []byte, header map[string]string) reply {
	hd := map[string]string{"X-API-KEY": testKey, "Content-Type": "application/json"}
	for k, v := range header {
		hd[k] = v
	}
	return h.do(http.MethodPost, "/api/logs?source_name="+url.QueryEscape(source), bytes.NewReader(body), hd)
}

func requireError(t *testing.T, r reply, code int, status, location string) {
	t.Helper()
	require.Equal(t, code, r.code, string(r.body))
	var e errorBody
	require.NoError(t, json.Unmarshal(r.body, &e), string(r.body))
	require.Equal(t, code, e.Error.Code)
	require.Equal(t, status, e.Error.Status)
	require.NotEmpty(t, e.Error.Message)
	require.Len(t, e.Error.Errors, 1)
	require.Equal(t, location, e.Error.Errors[0].Location)
}

// rows decodes {"result": [...]} keeping each row's key order.
func rows(t *testing.T, r reply) [][]kv {
	t.Helper()
	require.Equal(t, 200, r.code, string(r.body))
	var out struct{ Result []json.RawMessage }
	require.NoError(t, json.Unmarshal(r.body, &out))
	var res [][]kv
	for _, raw := range out.Result {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		_, _ = dec.Token()
		var row []kv
		for dec.More() {
			k, _ := dec.Token()
			var v any
			require.NoError(t, dec.Decode(&v))
			row = append(row, kv{k.(string), v})
		}
		res = append(res, row)
	}
	return res
}

type kv struct {
	k string
	v any
}

func num(t *testing.T, v any) int64 {
	n, err := v.(json.Number).Int64()
	require.NoError(t, err, "%v", v)
	return n
}

func flt(t *testing.T, v any) float64 {
	f, err := v.(json.Number).Float64()
	require.NoError(t, err)
	return f
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

func zst(b []byte) []byte {
	enc, _ := zstd.NewWriter(nil)
	return enc.EncodeAll(b, nil)
}

// TestIngestEveryFormThenQuery ships generated events in every body form and
// checks each endpoint, by name and by UUID, against the reference.
func TestIngestEveryFormThenQuery(t *testing.T) {
	h := newHarness(t, nil)
	spec := fixtures.DefaultSpec(3000, testNow.Add(-time.Minute))
	spec.Projects, spec.Functions = 4, 5
	raw := map[string][][]byte{}
	for _, src := range []string{"cloudflare.logs.prod", "deno-relay-logs"} {
		evs := fixtures.Generate(spec, src)
		raw[src] = evs
		parts := [][][]byte{evs[:500], evs[500:1000], evs[1000:1500], evs[1500:2000], evs[2000:2999], evs[2999:]}
		array := fixtures.ArrayBody
		bodies := []struct {
			body []byte
			hdr  map[string]string
		}{
			{array(parts[0]), nil},
			{append(append([]byte(`{"batch":`), array(parts[1])...), '}'), nil},
			{bytes.Join(parts[2], []byte("\n")), nil},
			{gz(array(parts[3])), map[string]string{"Content-Encoding": "gzip"}},
			{zst(array(parts[4])), map[string]string{"Content-Encoding": "zstd"}},
			{parts[5][0], nil}, // one event object
		}
		for i, b := range bodies {
			r := h.ingest(src, b.body, b.hdr)
			require.Equal(t, 200, r.code, "form %d: %s", i, r.body)
			require.JSONEq(t, `{"message":"Logged!"}`, string(r.body))
		}
	}
	relay, err := fixtures.Decode(raw["deno-relay-logs"])
	require.NoError(t, err)
	edge, err := fixtures.Decode(raw["cloudflare.logs.prod"])
	require.NoError(t, err)
	p0 := fixtures.ProjectRef(0)

	for _, path := range []string{"functions.invocation-stats", "0b1f5c76-1b7e-4f0e-9a51-5a1f3c2d8e01"} {
		got := rows(t, h.get("/api/endpoints/query/"+path+"?interval=7day&project="+p0))
		want := fixtures.InvocationStats(relay, p0, "", "7day", testNow)
		require.Len(t, got, len(want))
		for i, w := range want {
			r := got[i]
			require.Equal(t, []string{"timestamp", "min_execution_time", "max_execution_time", "avg_execution_time", "p95_execution_time", "p99_execution_time", "count", "error_count"}, keys(r))
			require.Equal(t, w.Timestamp.UnixMicro(), num(t, r[0].v), "TIMESTAMP is µs since the epoch")
			require.Equal(t, []int64{w.Min, w.Max, w.P95, w.P99, w.Count, w.ErrorCount},
				[]int64{num(t, r[1].v), num(t, r[2].v), num(t, r[4].v), num(t, r[5].v), num(t, r[6].v), num(t, r[7].v)})
			require.InDelta(t, w.Avg, flt(t, r[3].v), 1e-9)
		}
	}
	// An absent or empty interval behaves as 1day, as any other value does
	// (CONTRACT §5): rows, not a 400.
	day := fixtures.InvocationStats(relay, p0, "", "1day", testNow)
	require.NotEmpty(t, day)
	for _, q := range []string{"", "&interval=", "&interval=weekly"} {
		got := rows(t, h.get("/api/endpoints/query/functions.invocation-stats?project="+p0+q))
		require.Len(t, got, len(day), q)
		for i, w := range day {
			require.Equal(t, w.Timestamp.UnixMicro(), num(t, got[i][0].v), q)
			require.Equal(t, w.Count, num(t, got[i][6].v), q)
		}
	}
	for _, path := range []string{"usage.api-counts", "7a6b2f0e-3c1d-4b8a-9e57-2d4c6f8a1b03"} {
		got := rows(t, h.get("/api/endpoints/query/"+path+"?interval=daily&project="+p0))
		want := fixtures.APICounts(edge, p0, "daily", testNow)
		require.Len(t, got, len(want))
		for i, w := range want {
			r := got[i]
			require.Equal(t, types.FormatDatetime(w.Timestamp.UnixMicro()), r[0].v, "DATETIME is a string")
			require.Equal(t, []int64{w.Rest, w.Storage, w.Auth, w.Realtime}, []int64{num(t, r[1].v), num(t, r[2].v), num(t, r[3].v), num(t, r[4].v)})
		}
	}
	for _, path := range []string{"logs.all", "3e9d4a2c-5f6b-4c7d-8e1a-9b0c1d2e3f04"} {
		got := rows(t, h.get("/api/endpoints/query/"+path+"?project_tier=PRO&project="+p0))
		want := fixtures.LogsAll(edge, p0, "PRO", "", "", testNow)
		require.Len(t, got, len(want))
		require.Len(t, got, 100)
		for i, w := range want {
			require.Equal(t, []string{"id", "timestamp", "event_message", "metadata"}, keys(got[i]))
			require.Equal(t, w.ID, got[i][0].v)
			require.Equal(t, w.TS.UnixMicro(), num(t, got[i][1].v))
			meta := got[i][3].v.([]any)
			require.Len(t, meta, 1, "a nested record is an array of one object")
			req := meta[0].(map[string]any)["request"].([]any)[0].(map[string]any)
			require.Equal(t, w.Metadata["request"].(map[string]any)["url"], req["url"])
		}
	}
}

func keys(r []kv) []string {
	var out []string
	for _, x := range r {
		out = append(out, x.k)
	}
	return out
}

func TestKeysAndRoutes(t *testing.T) {
	h := newHarness(t, nil)
	q := "/api/endpoints/query/logs.all?project=p&project_tier=FREE"
	for name, hdr := range map[string]map[string]string{
		"bearer": {"Authorization": "Bearer " + testKey},
		"header": {"X-API-KEY": "second-key"},
	} {
		r := h.do(http.MethodGet, q, nil, hdr)
		require.Equal(t, 200, r.code, name)
		require.Equal(t, "bypass", r.header.Get("Logq-Cache"))
	}
	require.Equal(t, 200, h.do(http.MethodGet, q+"&api_key="+testKey, nil, nil).code)
	// The first key found wins: a wrong bearer is not rescued by a good header.
	requireError(t, h.do(http.MethodGet, q, nil, map[string]string{"Authorization": "Bearer nope", "X-API-KEY": testKey}), 401, "UNAUTHENTICATED", "")
	requireError(t, h.do(http.MethodGet, q, nil, nil), 401, "UNAUTHENTICATED", "")
	// 401 comes before 404.
	requireError(t, h.do(http.MethodGet, "/api/endpoints/query/nope", nil, nil), 401, "UNAUTHENTICATED", "")
	requireError(t, h.get("/api/endpoints/query/nope"), 404, "NOT_FOUND", "")
	require.Equal(t, 200, h.get("/endpoints/query/logs.all?project=p&project_tier=FREE").code)
	require.Equal(t, 200, h.get("/api/endpoints/query/name/logs.all?project=p&project_tier=FREE").code)
	requireError(t, h.get("/api/endpoints/query/name/3e9d4a2c-5f6b-4c7d-8e1a-9b0c1d2e3f04"), 404, "NOT_FOUND", "")
	requireError(t, h.do(http.MethodDelete, q, nil, map[string]string{"X-API-KEY": testKey}), 405, "METHOD_NOT_ALLOWED", "")
	r := h.do(http.MethodOptions, q, nil, map[string]string{"Origin": "https://studio", "Access-Control-Request-Method": "GET"})
	require.Equal(t, 204, r.code)
	require.Equal(t, "*", r.header.Get("Access-Control-Allow-Origin"))
	for _, hd := range []string{"Authorization", "Content-Type", "X-API-Key", "X-Source", "X-Source-Name", "X-Collection", "ce-specversion", "ce-type"} {
		require.Contains(t, r.header.Get("Access-Control-Allow-Headers"), hd)
	}
	// GET's Content-Type is ignored; POST takes a JSON object of strings.
	require.Equal(t, 200, h.do(http.MethodGet, q, nil, map[string]string{"X-API-KEY": testKey, "Content-Type": "text/plain"}).code)
	r = h.do(http.MethodPost, "/api/endpoints/query/logs.all", strings.NewReader(`{"project":"p","project_tier":"PRO"}`), map[string]string{"X-API-KEY": testKey})
	require.Equal(t, 200, r.code, string(r.body))
	requireError(t, h.do(http.MethodPost, "/api/endpoints/query/logs.all", strings.NewReader(`{"project":1}`), map[string]string{"X-API-KEY": testKey}), 400, "INVALID_ARGUMENT", "project")
	requireError(t, h.do(http.MethodPost, "/api/endpoints/query/logs.all", strings.NewReader(`[`), map[string]string{"X-API-KEY": testKey}), 400, "INVALID_ARGUMENT", "")
}

func TestQueryErrors(t *testing.T) {
	h := newHarness(t, nil)
	requireError(t, h.get("/api/endpoints/query/usage.api-counts?project=p"), 400, "INVALID_ARGUMENT", "interval")
	requireError(t, h.get("/api/endpoints/query/usage.api-counts?project=p&interval=weekly"), 400, "INVALID_ARGUMENT", "interval")
	requireError(t, h.get("/api/endpoints/query/usage.api-counts?interval=daily&project="), 400, "INVALID_ARGUMENT", "project")
	requireError(t, h.get("/api/endpoints/query/usage.api-counts?interval=daily&project=%28"), 400, "INVALID_ARGUMENT", "project")
	requireError(t, h.get("/api/endpoints/query/logs.all?project=p&project_tier=PRO&iso_timestamp_start=later"), 400, "INVALID_ARGUMENT", "iso_timestamp_start")
	requireError(t, h.get("/api/endpoints/query/logs.all?project=p&project_tier=PRO&iso_timestamp_end=2024-02-30T00:00:00Z"), 400, "INVALID_ARGUMENT", "iso_timestamp_end")
	// Parameters the SQL does not use are ignored, an empty sql= too; a
	// caller's SQL to an endpoint that is not sandboxed is refused.
	require.Equal(t, 200, h.get("/api/endpoints/query/logs.all?project=p&project_tier=PRO&sql=&whatever=x").code)
	requireError(t, h.get("/api/endpoints/query/logs.all?project=p&project_tier=PRO&sql=select+1&whatever=x"), 400, "INVALID_ARGUMENT", "sql")

	h.srv.SetReady(false)
	requireError(t, h.get("/api/endpoints/query/logs.all?project=p&project_tier=PRO"), 503, "UNAVAILABLE", "")
	requireError(t, h.ingest("s", []byte(`[]`), nil), 503, "UNAVAILABLE", "")
	require.Equal(t, 503, h.do(http.MethodGet, "/ready", nil, nil).code)
	require.Equal(t, 200, h.do(http.MethodGet, "/health", nil, nil).code)
	// While not ready, a bad key is still refused as such.
	requireError(t, h.do(http.MethodGet, "/api/endpoints/query/logs.all", nil, nil), 401, "UNAUTHENTICATED", "")
	h.srv.SetReady(true)

	// Too many concurrent queries: fill the semaphore.
	for i := 0; i < cap(h.srv.sem); i++ {
		h.srv.sem <- struct{}{}
	}
	requireError(t, h.get("/api/endpoints/query/logs.all?project=p&project_tier=PRO"), 429, "RESOURCE_EXHAUSTED", "")
	for i := 0; i < cap(h.srv.sem); i++ {
		<-h.srv.sem
	}
}

func TestQueryTimeLimit(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.QueryTimeout = time.Nanosecond })
	h.store.Append("cloudflare.logs.prod", fixtures.Generate(fixtures.DefaultSpec(20000, testNow), "cloudflare.logs.prod"))
	requireError(t, h.get("/api/endpoints/query/logs.all?project=proj00ref&project_tier=PRO"), 504, "DEADLINE_EXCEEDED", "")
}

func TestIngestErrors(t *testing.T) {
	h := newHarness(t, nil)
	requireError(t, h.do(http.MethodPost, "/api/logs?source_name=s", strings.NewReader(`[]`), nil), 401, "UNAUTHENTICATED", "")
	requireError(t, h.ingest("s", []byte(`{"a":`), nil), 400, "INVALID_ARGUMENT", "")
	requireError(t, h.ingest("s", []byte(`hello`), nil), 400, "INVALID_ARGUMENT", "")
	requireError(t, h.do(http.MethodPost, "/api/logs", strings.NewReader(`[{}]`), map[string]string{"X-API-KEY": testKey}), 400, "INVALID_ARGUMENT", "source_name")
	requireError(t, h.ingest("s", []byte(`[{}]`), map[string]string{"Content-Encoding": "br"}), 400, "INVALID_ARGUMENT", "")
	requireError(t, h.ingest("s", []byte(`not gzip`), map[string]string{"Content-Encoding": "gzip"}), 400, "INVALID_ARGUMENT", "")
	big := append(append([]byte(`[{"event_message":"`), bytes.Repeat([]byte("x"), MaxBody)...), []byte(`"}]`)...)
	requireError(t, h.ingest("s", big, nil), 413, "PAYLOAD_TOO_LARGE", "")
	requireError(t, h.ingest("s", gz(big), map[string]string{"Content-Encoding": "gzip"}), 413, "PAYLOAD_TOO_LARGE", "")
	r := h.ingest("s", []byte(`[{"event_message":"ok"}, 7, {"event_message":"ok2"}]`), nil)
	require.Equal(t, http.StatusNotAcceptable, r.code)
	require.JSONEq(t, `{"message":["event 1: an event must be a JSON object"]}`, string(r.body))
	snap := h.store.Snapshot("s")
	require.Equal(t, 2, snap.Segments[0].Rows(), "the accepted events of a 406 batch are stored")
	// By UUID: the source's name-based UUID reaches it.
	r = h.do(http.MethodPost, "/api/logs?source="+storage.SourceUUID("s"), strings.NewReader(`{"event_message":"via uuid"}`), map[string]string{"X-API-KEY": testKey})
	require.Equal(t, 200, r.code, string(r.body))
	r = h.do(http.MethodPost, "/api/events", strings.NewReader(`{"event_message":"via header"}`), map[string]string{"X-API-KEY": testKey, "X-Source": storage.SourceUUID("s")})
	require.Equal(t, 200, r.code, string(r.body))
	require.Equal(t, 4, h.store.Snapshot("s").Segments[0].Rows())
}

// Cache behaviour with a fake clock: hit, shared miss, expiry, refresh,
// errors not cached, failed refresh drops.
func TestResultCache(t *testing.T) {
	h := newHarness(t, nil)
	q := "/api/endpoints/query/usage.api-counts?interval=daily&project=proj00ref"
	count := func(r reply) int64 {
		var total int64
		for _, row := range rows(t, r) {
			total += num(t, row[1].v)
		}
		return total
	}
	edge := func(n int) {
		var evs []string
		for i := 0; i < n; i++ {
			evs = append(evs, fmt.Sprintf(`{"timestamp":%q,"project":"proj00ref","metadata":{"request":{"url":"https://proj00ref.supabase.co/rest/v1/t","path":"/rest/v1/t"}}}`, h.clock.Now().Add(-time.Hour).Format(time.RFC3339)))
		}
		require.Equal(t, 200, h.ingest("cloudflare.logs.prod", []byte("["+strings.Join(evs, ",")+"]"), nil).code)
	}
	edge(3)
	r := h.get(q)
	require.Equal(t, "miss", r.header.Get("Logq-Cache"))
	require.Equal(t, int64(3), count(r))
	edge(2) // not visible through the cache until it refreshes
	r = h.get(q)
	require.Equal(t, "hit", r.header.Get("Logq-Cache"))
	require.Equal(t, int64(3), count(r))
	// Unused parameters do not split the cache.
	require.Equal(t, "hit", h.get(q+"&unused=1").header.Get("Logq-Cache"))

	// Warming re-runs at 300 s without any reader; the refreshed entry is served.
	h.clock.Advance(300 * time.Second)
	r = h.get(q)
	require.Equal(t, "hit", r.header.Get("Logq-Cache"))
	require.Equal(t, int64(5), count(r))

	// The entry lives 900 s from its (re)creation: refreshed at 300 and 600 s
	// it stays alive; stop the refreshes to see expiry.
	key := cacheKeyFor(t, h, "usage.api-counts", map[string]string{"interval": "daily", "project": "proj00ref"})
	e, ok := h.srv.cache.entries.Peek(key)
	require.True(t, ok)
	e.timer.Stop()
	h.clock.Advance(899 * time.Second)
	require.Equal(t, "hit", h.get(q).header.Get("Logq-Cache"))
	h.clock.Advance(time.Second)
	require.Equal(t, "miss", h.get(q).header.Get("Logq-Cache"), "expired at cache_seconds")

	// Errors are never cached.
	bad := "/api/endpoints/query/usage.api-counts?interval=daily&project=%28"
	require.Equal(t, 400, h.get(bad).code)
	require.Equal(t, 400, h.get(bad).code)
	require.Equal(t, "miss", h.get(bad).header.Get("Logq-Cache"))

	// A refresh that fails drops the entry: make the run fail by filling the
	// concurrency semaphore when the refresh fires.
	q2 := "/api/endpoints/query/usage.api-counts?interval=hourly&project=proj00ref"
	require.Equal(t, "miss", h.get(q2).header.Get("Logq-Cache"))
	for i := 0; i < cap(h.srv.sem); i++ {
		h.srv.sem <- struct{}{}
	}
	h.clock.Advance(300 * time.Second)
	for i := 0; i < cap(h.srv.sem); i++ {
		<-h.srv.sem
	}
	require.Equal(t, "miss", h.get(q2).header.Get("Logq-Cache"), "failed refresh dropped the entry")
}

func cacheKeyFor(t *testing.T, h *harness, name string, params map[string]string) string {
	return cacheKey(h.srv.byName[name], params)
}

// Identical misses share one run. (In a synctest bubble: synctest.Wait
// returns once every caller is blocked, on the run or on the one it waits
// for, so the test cannot pass without the sharing it names.)
func TestCacheSharedMiss(t *testing.T) { synctest.Test(t, testCacheSharedMiss) }

func testCacheSharedMiss(t *testing.T) {
	c := newResultCache(10, NewFakeClock(testNow), nil)
	var mu sync.Mutex
	runs := 0
	release := make(chan struct{})
	run := func(ctx ctxT) (encoded, error) {
		mu.Lock()
		runs++
		mu.Unlock()
		<-release
		return encoded{body: []byte("rows")}, nil
	}
	var wg sync.WaitGroup
	results := make([]string, 8)
	for i := range results {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			b, _, err := c.get(bgCtx(), "k", "e", time.Minute, 0, run)
			require.NoError(t, err)
			results[i] = string(b.body)
		}(i)
	}
	synctest.Wait() // every caller has reached the cache, and waits
	mu.Lock()
	require.Equal(t, 1, runs, "one run while all eight wait")
	mu.Unlock()
	close(release)
	wg.Wait()
	require.Equal(t, 1, runs)
	for _, r := range results {
		require.Equal(t, "rows", r)
	}
	b, hit, err := c.get(bgCtx(), "k", "e", time.Minute, 0, run)
	require.NoError(t, err)
	require.True(t, hit)
	require.Equal(t, "rows", string(b.body))
}

func TestConcurrentIngestWhileQuerying(t *testing.T) {
	h := newHarness(t, nil)
	var wg sync.WaitGroup
	const writers, batches = 3, 20
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for b := 0; b < batches; b++ {
				body := fmt.Sprintf(`[{"project":"pc","event_message":"w%d-b%d","timestamp":%q}]`, w, b, testNow.Add(-time.Minute).Format(time.RFC3339))
				r := h.ingest("cloudflare.logs.prod", []byte(body), nil)
				if r.code != 200 {
					t.Errorf("ingest: %d %s", r.code, r.body)
				}
			}
		}(w)
	}
	for i := 0; i < 20; i++ {
		r := h.get("/api/endpoints/query/logs.all?project=pc&project_tier=FREE")
		require.Equal(t, 200, r.code)
	}
	wg.Wait()
	got := rows(t, h.get("/api/endpoints/query/logs.all?project=pc&project_tier=FREE"))
	require.Len(t, got, writers*batches, "every event answered 200 is queryable")
}

func TestMetricsAndHealth(t *testing.T) {
	h := newHarness(t, nil)
	sent := []byte(`[{"event_message":"x"},{"event_message":"y"}]`)
	h.ingest("src-a", sent, nil)
	h.get("/api/endpoints/query/usage.api-counts?interval=daily&project=p")
	h.get("/api/endpoints/query/usage.api-counts?interval=daily&project=p")
	r := h.do(http.MethodGet, "/metrics", nil, nil)
	require.Equal(t, 200, r.code)
	body := string(r.body)
	for _, want := range []string{
		`logq_events_ingested_total{source="src-a"} 2`,
		fmt.Sprintf(`logq_ingest_bytes_total{source="src-a"} %d`, len(sent)),
		`logq_events_held{source="src-a"} 2`,
		`logq_cache_events_total{endpoint="usage.api-counts",event="hit"} 1`,
		`logq_cache_events_total{endpoint="usage.api-counts",event="miss"} 1`,
		`logq_request_duration_seconds_count{endpoint="usage.api-counts",route="/api/endpoints/query/{id}"} 2`,
		`logq_requests_total{endpoint="usage.api-counts",route="/api/endpoints/query/{id}",status="200"} 2`,
		`logq_requests_total{endpoint="ingest",route="/api/logs",status="200"} 1`,
		`logq_bytes_held{source="src-a"}`,
		`logq_build_info{goversion="` + runtime.Version() + `"`,
		"go_goroutines ",
		"process_cpu_seconds_total ",
	} {
		require.Contains(t, body, want)
	}
	require.JSONEq(t, `{"status":"ok"}`, string(h.do(http.MethodGet, "/health", nil, nil).body))
}

// A caller that gives up does not fail the shared run others wait on.
func TestSharedMissSurvivesFirstCallerLeaving(t *testing.T) {
	synctest.Test(t, testSharedMissSurvivesFirstCallerLeaving)
}

func testSharedMissSurvivesFirstCallerLeaving(t *testing.T) {
	c := newResultCache(10, NewFakeClock(testNow), nil)
	started := make(chan struct{}, 2)
	release := make(chan struct{})
	run := func(ctx ctxT) (encoded, error) {
		started <- struct{}{}
		<-release
		if err := ctx.Err(); err != nil {
			return encoded{}, err
		}
		return encoded{body: []byte("rows")}, nil
	}
	shared := detached(run)
	first, cancel := cancelCtx()
	done := make(chan error, 1)
	go func() {
		_, _, err := c.get(first, "k", "e", time.Minute, 0, shared)
		done <- err
	}()
	synctest.Wait() // the first caller's run has started, and waits
	second := make(chan string, 1)
	go func() {
		b, _, _ := c.get(bgCtx(), "k", "e", time.Minute, 0, shared)
		second <- string(b.body)
	}()
	synctest.Wait() // the second caller waits on the same run
	require.Len(t, started, 1, "one run for both callers")
	cancel() // the first caller hangs up
	close(release)
	require.NoError(t, <-done, "the run itself was not canceled")
	require.Equal(t, "rows", <-second)
}
