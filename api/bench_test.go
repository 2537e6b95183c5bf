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

// BenchmarkIngestHTTP posts batches of 500 generated events to a real server
// on loopback, one request at a time; events/s is the figure of merit.
func BenchmarkIngestHTTPEdge(b *testing.B)  { benchIngestHTTP(b, "cloudflare.logs.prod") }
func BenchmarkIngestHTTPRelay(b *testing.B) { benchIngestHTTP(b, "deno-relay-logs") }

func benchIngestHTTP(b *testing.B, source string) {
	const batch = 500
	evs := fixtures.Generate(fixtures.DefaultSpec(batch*20, time.Now()), source)
	var bodies [][]byte
	for i := 0; i < len(evs); i += batch {
		bodies = append(bodies, append(append([]byte("["), bytes.Join(evs[i:i+batch], []byte(","))...), ']'))
	}
	srv := New(Config{Keys: []string{testKey}, Store: logstore.New(logstore.Options{}), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv.SetReady(true)
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	client := hs.Client()
	b.SetBytes(int64(len(bodies[0])))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req, _ := http.NewRequest(http.MethodPost, hs.URL+"/api/logs?source_name="+source, bytes.NewReader(bodies[i%len(bodies)]))
		req.Header.Set("X-API-KEY", testKey)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatal(resp.StatusCode)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "events/s")
}
