package api

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"logq/fixtures"
	"logq/logstore"
)

// BenchmarkIngestHTTP posts batches of 500 generated events to a real server
// on loopback, one request at a time; events/s is the figure of merit.
func BenchmarkIngestHTTPEdge(b *testing.B)  { benchIngestHTTP(b, "cloudflare.logs.prod", false, 1) }
func BenchmarkIngestHTTPRelay(b *testing.B) { benchIngestHTTP(b, "deno-relay-logs", false, 1) }

// The same on a data directory: every reply waits for its fsync. With
// several clients, group commit lets one fsync serve them all.
func BenchmarkIngestHTTPEdgeDurable(b *testing.B) {
	benchIngestHTTP(b, "cloudflare.logs.prod", true, 1)
}
func BenchmarkIngestHTTPRelayDurable(b *testing.B) { benchIngestHTTP(b, "deno-relay-logs", true, 1) }
func BenchmarkIngestHTTPEdgeDurable8Clients(b *testing.B) {
	benchIngestHTTP(b, "cloudflare.logs.prod", true, 8)
}

func benchIngestHTTP(b *testing.B, source string, durable bool, clients int) {
	const batch = 500
	evs := fixtures.Generate(fixtures.DefaultSpec(batch*20, time.Now()), source)
	var bodies [][]byte
	for i := 0; i < len(evs); i += batch {
		bodies = append(bodies, append(append([]byte("["), bytes.Join(evs[i:i+batch], []byte(","))...), ']'))
	}
	store := logstore.New(logstore.Options{})
	if durable {
		var err error
		if store, err = logstore.Open(b.TempDir(), logstore.Options{}); err != nil {
			b.Fatal(err)
		}
		defer store.Close()
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
}
