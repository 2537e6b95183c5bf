package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"logq/drain"
	"logq/fixtures"
	"logq/logstore"
)

// BenchmarkIngestHTTP posts batches of 500 generated events to a real server
// on loopback, one request at a time; events/s is the figure of merit.
func BenchmarkIngestHTTPEdge(b *testing.B) {
	benchIngestHTTP(b, "cloudflare.logs.prod", false, 1, drainNone)
}
func BenchmarkIngestHTTPRelay(b *testing.B) {
	benchIngestHTTP(b, "deno-relay-logs", false, 1, drainNone)
}

// The same on a data directory: every reply waits for its fsync. With
// several clients, group commit lets one fsync serve them all.
func BenchmarkIngestHTTPEdgeDurable(b *testing.B) {
	benchIngestHTTP(b, "cloudflare.logs.prod", true, 1, drainNone)
}
func BenchmarkIngestHTTPRelayDurable(b *testing.B) {
	benchIngestHTTP(b, "deno-relay-logs", true, 1, drainNone)
}

// One connection waits for each fsync, so the ingest leaves a core mostly
// idle: the drain's figures where it does not compete for the CPU.
func BenchmarkIngestHTTPEdgeDurableDrain(b *testing.B) {
	benchIngestHTTP(b, "cloudflare.logs.prod", true, 1, drainGzip)
}
func BenchmarkIngestHTTPRelayDurableDrain(b *testing.B) {
	benchIngestHTTP(b, "deno-relay-logs", true, 1, drainGzip)
}
func BenchmarkIngestHTTPEdgeDurable8Clients(b *testing.B) {
	benchIngestHTTP(b, "cloudflare.logs.prod", true, 8, drainNone)
}

// Two connections, as issue 34's ingest figures are measured, without and
// with one webhook drain following every event to a local receiver (the
// drain's own figures: events/s delivered, and its worst lag while the
// clients ingest).
func BenchmarkIngestHTTPEdgeDurable2Clients(b *testing.B) {
	benchIngestHTTP(b, "cloudflare.logs.prod", true, 2, drainNone)
}
func BenchmarkIngestHTTPEdgeDurable2ClientsDrain(b *testing.B) {
	benchIngestHTTP(b, "cloudflare.logs.prod", true, 2, drainGzip)
}
func BenchmarkIngestHTTPRelayDurable2Clients(b *testing.B) {
	benchIngestHTTP(b, "deno-relay-logs", true, 2, drainNone)
}
func BenchmarkIngestHTTPRelayDurable2ClientsDrain(b *testing.B) {
	benchIngestHTTP(b, "deno-relay-logs", true, 2, drainGzip)
}

// The same with the drain's bodies sent without gzip: what compressing
// them costs the ingest beside it.
func BenchmarkIngestHTTPEdgeDurable2ClientsDrainPlain(b *testing.B) {
	benchIngestHTTP(b, "cloudflare.logs.prod", true, 2, drainPlain)
}
func BenchmarkIngestHTTPRelayDurable2ClientsDrainPlain(b *testing.B) {
	benchIngestHTTP(b, "deno-relay-logs", true, 2, drainPlain)
}

// benchDrain follows source with a webhook drain to a local receiver that
// counts events; it samples the drain's lag until stop is closed and
// returns the receiver's count, the worst lag seen and a closer.
func benchDrain(b *testing.B, store *logstore.Store, source string, gzip bool) (delivered func() int64, maxLag func() float64, stop func()) {
	// The receiver shares the machine, where a real destination would not:
	// it reads and drops the bodies, and the drain's own count says what
	// was delivered (what arrives is checked by the drain's tests).
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	m, err := drain.New(drain.Options{Store: &drain.MemoryStore{}, Feed: store, Sources: store.Names})
	if err != nil {
		b.Fatal(err)
	}
	name, typ := "bench", "webhook"
	bk, err := m.CreateBackend(drain.BackendInput{Name: &name, Type: &typ, Config: json.RawMessage(fmt.Sprintf(`{"url":%q,"gzip":%t}`, recv.URL, gzip))})
	if err != nil {
		b.Fatal(err)
	}
	lql := `~".*?"`
	if _, err := m.CreateRule(drain.RuleInput{BackendID: json.RawMessage(fmt.Sprint(bk.ID)), Source: source, LQL: &lql}); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	var worst atomic.Uint64
	go func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				for _, st := range m.Stats() {
					if lag := math.Float64bits(st.LagSeconds); lag > worst.Load() {
						worst.Store(lag)
					}
				}
			}
		}
	}()
	delivered = func() int64 {
		var n int64
		for _, st := range m.Stats() {
			n += st.Delivered
		}
		return n
	}
	return delivered, func() float64 { return math.Float64frombits(worst.Load()) }, func() {
		close(done)
		m.Close()
		recv.Close()
	}
}

// drainNone, drainGzip, drainPlain: no drain, or a webhook drain whose
// bodies are gzipped (as the figure is taken) or sent plain.
const (
	drainNone = iota
	drainGzip
	drainPlain
)

func benchIngestHTTP(b *testing.B, source string, durable bool, clients int, drainMode int) {
	withDrain := drainMode != drainNone
	const batch = 500
	evs := fixtures.Generate(fixtures.DefaultSpec(batch*20, time.Now()), source)
	var bodies [][]byte
	for i := 0; i < len(evs); i += batch {
		bodies = append(bodies, fixtures.ArrayBody(evs[i:i+batch]))
	}
	store := logstore.New(logstore.Options{})
	if durable {
		var err error
		if store, err = logstore.Open(b.TempDir(), logstore.Options{}); err != nil {
			b.Fatal(err)
		}
		defer store.Close()
	}
	var (
		delivered func() int64
		maxLag    func() float64
	)
	if withDrain {
		var stop func()
		delivered, maxLag, stop = benchDrain(b, store, source, drainMode == drainGzip)
		defer stop()
	}
	srv := New(Config{Keys: Keys(testKey), Backend: Local(store), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv.SetReady(true)
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	client := hs.Client()
	client.Transport.(*http.Transport).MaxIdleConnsPerHost = clients
	b.SetBytes(int64(len(bodies[0])))
	b.ResetTimer()
	var next atomic.Int64
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				req, _ := http.NewRequest(http.MethodPost, hs.URL+"/api/logs?source_name="+source, bytes.NewReader(bodies[i%int64(len(bodies))]))
				req.Header.Set("X-API-KEY", testKey)
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Error(resp.StatusCode)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "events/s")
	if withDrain {
		// The drain's own pace: until it has delivered everything.
		b.StopTimer()
		start := time.Now()
		for delivered() < int64(b.N*batch) {
			if time.Since(start) > time.Minute {
				b.Fatalf("the drain delivered %d of %d events", delivered(), b.N*batch)
			}
			time.Sleep(time.Millisecond)
		}
		b.ReportMetric(float64(b.N*batch)/(b.Elapsed().Seconds()+time.Since(start).Seconds()), "drained/s")
		b.ReportMetric(maxLag(), "max-lag-s")
	}
}
