package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"logq/exec"
	"logq/fixtures"
	"logq/logstore"
)

// BenchmarkEncodeLogsAll writes the rows of the built-in logs.all (100
// full edge records, nested metadata included) as the response body:
// the encoder alone, in bytes of JSON written per second.
func BenchmarkEncodeLogsAll(b *testing.B) {
	res := logsAllResult(b)
	b.SetBytes(int64(len(encodeResult(res, 0))))
	b.ReportAllocs()
	for b.Loop() {
		encodeResult(res, 0)
	}
}

// logsAllResult is the built-in logs.all's answer over 20k generated edge
// events: 100 full records.
func logsAllResult(b *testing.B) *exec.Result {
	now := time.Now().UTC()
	st := logstore.New(logstore.Options{})
	spec := fixtures.DefaultSpec(20_000, now)
	fixtures.GenerateBatches(spec, "cloudflare.logs.prod", 1000, func(evs [][]byte) { st.Append("cloudflare.logs.prod", evs) })
	st.Flush()
	var logsAll *exec.Query
	for _, e := range builtins(b) {
		if e.Name == "logs.all" {
			logsAll = e.Query
		}
	}
	res, err := exec.Run(context.Background(), exec.Local(st), logsAll, exec.Request{
		Params: map[string]string{"project": fixtures.ProjectRef(0), "project_tier": "PRO"}, Now: now})
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Rows) != 100 {
		b.Fatalf("%d rows, want 100", len(res.Rows))
	}
	return res
}

// BenchmarkCompressLogsAll sends logs.all's body (100 edge records)
// through the response compression as a client asking for each encoding
// gets it: bytes of JSON in per second, and the size sent (ratio %).
func BenchmarkCompressLogsAll(b *testing.B) {
	body := encodeResult(logsAllResult(b), 0)
	h := compress(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(body) }))
	for _, enc := range []string{"gzip", "zstd"} {
		b.Run(enc, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			var sent int
			for b.Loop() {
				r := httptest.NewRequest("GET", "/", nil)
				r.Header.Set("Accept-Encoding", enc)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				sent = w.Body.Len()
			}
			b.ReportMetric(100*float64(sent)/float64(len(body)), "ratio%")
		})
	}
}
