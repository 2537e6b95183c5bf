package ingest

import (
	"testing"
	"time"

	"logq/fixtures"
)

// BenchmarkDecode times the JSON form's decoding of a body of 500 generated
// events (split, and Logflare's message order applied), per source shape:
// what an ingest request costs before the store's lock.
func BenchmarkDecode(b *testing.B) {
	for _, source := range []string{"cloudflare.logs.prod", "deno-relay-logs"} {
		evs := fixtures.Generate(fixtures.DefaultSpec(500, time.Now()), source)
		body := fixtures.ArrayBody(evs)
		b.Run(source, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := Decode(FormJSON, body, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
		})
	}
}
