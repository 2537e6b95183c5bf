package api

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"logq/fixtures"
	"logq/logstore"
)

func fuzzServer(f *testing.F) *Server {
	store := logstore.New(logstore.Options{SegmentRows: 512})
	for _, src := range []string{"cloudflare.logs.prod", "deno-relay-logs"} {
		store.Append(src, fixtures.Generate(fixtures.DefaultSpec(1500, testNow), src))
	}
	srv := New(Config{Keys: Keys(testKey), Endpoints: builtins(f), Backend: Local(store), Clock: NewFakeClock(testNow),
		QueryTimeout: 5 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv.SetReady(true)
	f.Cleanup(srv.Close)
	return srv
}

// FuzzQueryParams: any query string against any endpoint gets an answer that
// is not a 500.
func FuzzQueryParams(f *testing.F) {
	srv := fuzzServer(f)
	for _, seed := range []string{
		"project=proj00ref&interval=1day", "project=proj00ref&interval=7day&function_id=x",
		"project=proj00ref&interval=daily", "project=.*&interval=hourly", "project=(&interval=daily",
		"project=proj00ref&project_tier=PRO&iso_timestamp_start=2026-03-01T00:00:00Z&iso_timestamp_end=",
		"project=%ff%00&project_tier=\x00", "interval=5min&project=", "iso_timestamp_end=9999-99-99",
	} {
		for _, ep := range []string{"functions.invocation-stats", "usage.api-counts", "logs.all"} {
			f.Add(ep, seed)
		}
	}
	f.Fuzz(func(t *testing.T, endpoint, query string) {
		req, err := http.NewRequest(http.MethodGet, "/api/endpoints/query/x?"+query, nil)
		if err != nil {
			return
		}
		req.URL.Path = "/api/endpoints/query/" + endpoint
		req.Header.Set("X-API-KEY", testKey)
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		if rec.Code >= 500 && rec.Code != 503 && rec.Code != 504 {
			t.Fatalf("%s?%s: %d %s", endpoint, query, rec.Code, rec.Body.String())
		}
	})
}

// FuzzIngestBody: any body, in any encoding, is stored, refused with a
// reason, or rejected as malformed; never a 500.
func FuzzIngestBody(f *testing.F) {
	srv := fuzzServer(f)
	for _, seed := range []string{`[{"event_message":"a","metadata":{"x":[1,"b",{"c":null}]}}]`, `{"batch":[{"a":1}]}`,
		"{\"a\":1}\n{\"b\":2}", `{"timestamp":1700000000000000000,"id":7,"message":{"m":1}}`, `[1,2]`, `{"a":{"a":{"a":{}}}}`, `[`, `"x"`} {
		f.Add([]byte(seed), "")
		f.Add(gz([]byte(seed)), "gzip")
		f.Add(zst([]byte(seed)), "zstd")
	}
	f.Fuzz(func(t *testing.T, body []byte, encoding string) {
		req := httptest.NewRequest(http.MethodPost, "/api/logs?source_name=fuzz", bytes.NewReader(body))
		req.Header.Set("X-API-KEY", testKey)
		if encoding != "" {
			req.Header.Set("Content-Encoding", encoding)
		}
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		switch rec.Code {
		case 200, 400, 406, 413:
		default:
			t.Fatalf("%q (%s): %d %s", body, encoding, rec.Code, rec.Body.String())
		}
	})
}
