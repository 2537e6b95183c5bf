package api

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"logq/fixtures"
	"logq/logstore"
)

// BenchmarkServeDataDir is the measure of the endpoints over HTTP:
// LOGQ_BENCH_EVENTS events per source (edge and relay, default 1M) are
// ingested into a data directory, the store is closed and opened again (a
// restart: the newest events come back from the WAL), and each shape is
// called once to warm up and then b.N times through the server's handler,
// with the built-in SQL under caching off, so that every call runs. The
// time per call is the server's own (what logq_request_duration_seconds
// observes), without a network. The store has the sidecar's default
// budgets (a 128 MiB column cache, 32 MiB per open segment).
//
//	LOGQ_BENCH_EVENTS=10000000 go test ./api/ -run XXX -bench ServeDataDir -timeout 60m
//
// LOGQ_BENCH_DIR names a directory to keep the data in: generated there the
// first time (with the time it was generated, in bench-now), and opened as
// it is afterwards, by this build or another, so that an A/B reads the
// same files and a 10M run does not load for minutes each time. The
// queries' time is then the generation's.
//
// LOGQ_BENCH_INGEST=N ingests N events per source, dated within the minute
// before the queries' time, before each call (outside the timer): Studio
// asking while Vector sends, so that what a call keeps for the next is
// not all it needs. The directory grows: run it on a copy.
func BenchmarkServeDataDir(b *testing.B) {
	dir := os.Getenv("LOGQ_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	nowFile := filepath.Join(dir, "bench-now")
	now := time.Now().UTC()
	opts := logstore.Options{CacheBytes: 128 << 20, MaxOpenBytes: 32 << 20, Now: func() time.Time { return now }}
	if data, err := os.ReadFile(nowFile); err == nil {
		if now, err = time.Parse(time.RFC3339Nano, string(data)); err != nil {
			b.Fatalf("%s: %v", nowFile, err)
		}
	} else {
		st, err := logstore.Open(dir, opts)
		if err != nil {
			b.Fatal(err)
		}
		spec := fixtures.DefaultSpec(fixtures.BenchEvents(1_000_000), now)
		for _, src := range []string{"cloudflare.logs.prod", "deno-relay-logs"} {
			fixtures.GenerateBatches(spec, src, 500, func(evs [][]byte) {
				if _, _, err := st.Ingest(src, evs); err != nil {
					b.Fatal(err)
				}
			})
		}
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(nowFile, []byte(now.Format(time.RFC3339Nano)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// The start-up scrub reads every file once in the background; the
	// calls are timed after it, as on a server that has been up a while.
	scrubbed := make(chan struct{})
	opts.Logger = slog.New(&onMessage{prefix: "scrub: checked", c: scrubbed})
	st, err := logstore.Open(dir, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	<-scrubbed
	eps := builtins(b)
	for _, e := range eps {
		e.CacheSeconds, e.WarmSeconds = 0, 0
	}
	srv := New(Config{Keys: Keys("k"), Endpoints: eps, Backend: Local(st), Clock: NewFakeClock(now), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer srv.Close()
	srv.SetReady(true)
	h := srv.Handler()
	project := fixtures.ProjectRef(0)
	ingest, _ := strconv.Atoi(os.Getenv("LOGQ_BENCH_INGEST"))
	fed := 0
	for _, s := range []struct{ name, endpoint, param, value string }{
		{"invocation-stats-1hr", "functions.invocation-stats", "interval", "1hr"},
		{"api-counts-hourly", "usage.api-counts", "interval", "hourly"},
		{"api-counts-minutely", "usage.api-counts", "interval", "minutely"},
		{"logs-all-pro", "logs.all", "project_tier", "PRO"},
		{"logs-all-free", "logs.all", "project_tier", "FREE"},
		{"invocation-stats-1day", "functions.invocation-stats", "interval", "1day"},
		{"invocation-stats-7day", "functions.invocation-stats", "interval", "7day"},
		{"api-counts-daily", "usage.api-counts", "interval", "daily"},
	} {
		target := "/api/endpoints/query/" + s.endpoint + "?" + url.Values{"project": {project}, s.param: {s.value}}.Encode()
		call := func(b *testing.B) int {
			r := httptest.NewRequest("GET", target, nil)
			r.Header.Set("X-API-KEY", "k")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != 200 {
				b.Fatalf("%s: %d %s", target, w.Code, w.Body.String())
			}
			return w.Body.Len()
		}
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(call(b))) // the warm-up call
			for b.Loop() {
				if ingest > 0 {
					b.StopTimer()
					fed++
					spec := fixtures.Spec{Seed: uint64(fed), Events: ingest, Projects: 20, Functions: 50, Span: time.Minute, End: now}
					for _, src := range []string{"cloudflare.logs.prod", "deno-relay-logs"} {
						if _, _, err := st.Ingest(src, fixtures.Generate(spec, src)); err != nil {
							b.Fatal(err)
						}
					}
					b.StartTimer()
				}
				call(b)
			}
		})
	}
}

// onMessage is a log handler that closes c at the first record whose
// message starts with prefix, and drops every record.
type onMessage struct {
	prefix string
	c      chan struct{}
	once   sync.Once
}

func (h *onMessage) Enabled(context.Context, slog.Level) bool { return true }
func (h *onMessage) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, h.prefix) {
		h.once.Do(func() { close(h.c) })
	}
	return nil
}
func (h *onMessage) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *onMessage) WithGroup(string) slog.Handler      { return h }
