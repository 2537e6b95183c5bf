package api

import (
	"context"
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
	b.SetBytes(int64(len(encodeResult(res, 0))))
	b.ReportAllocs()
	for b.Loop() {
		encodeResult(res, 0)
	}
}
