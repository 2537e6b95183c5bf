package event

import (
	"bytes"
	"testing"
	"time"

	"logq/fixtures"
)

// BenchmarkSplitShred splits a body of 500 generated events (as an ingest
// request brings them) and shreds each into a sink that keeps nothing (nopSink): the
// part of ingest this package owns, per source shape.
func BenchmarkSplitShred(b *testing.B) {
	for _, source := range []string{"cloudflare.logs.prod", "deno-relay-logs"} {
		evs := fixtures.Generate(fixtures.DefaultSpec(500, time.Now()), source)
		body := append(append([]byte("["), bytes.Join(evs, []byte(","))...), ']')
		b.Run(source, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			tree := NewTree(1000)
			sink := nopSink{}
			o := Origin{Arrival: time.Now().UnixMicro()}
			for b.Loop() {
				split, err := Split(body)
				if err != nil {
					b.Fatal(err)
				}
				for i, ev := range split {
					o.Index = uint64(i)
					if _, err := tree.Shred(ev, o, sink); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
		})
	}
}
