package event

import (
	"testing"
	"time"

	"logq/fixtures"
)

// BenchmarkSplitShred times the passes of ingest this package owns over a
// body of 500 generated events (as an ingest request brings them), per
// source shape, shredding into a sink that keeps nothing (nopSink):
//
//	split  Split of the body into events (before the source lock)
//	shred  Shred of each event (under it)
func BenchmarkSplitShred(b *testing.B) {
	for _, source := range []string{"cloudflare.logs.prod", "deno-relay-logs"} {
		evs := fixtures.Generate(fixtures.DefaultSpec(500, time.Now()), source)
		body := fixtures.ArrayBody(evs)
		split, err := Split(body)
		if err != nil {
			b.Fatal(err)
		}
		o := Origin{Arrival: time.Now().UnixMicro()}
		passes := []struct {
			name string
			run  func(b *testing.B)
		}{
			{"split", func(b *testing.B) {
				for b.Loop() {
					if _, err := Split(body); err != nil {
						b.Fatal(err)
					}
				}
			}},
			{"shred", func(b *testing.B) {
				tree := NewTree(1000)
				for b.Loop() {
					for i, ev := range split {
						o.Index = uint64(i)
						if _, err := tree.Shred(ev, o, nopSink{}); err != nil {
							b.Fatal(err)
						}
					}
				}
			}},
		}
		for _, p := range passes {
			b.Run(source+"/"+p.name, func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				p.run(b)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
			})
		}
	}
}
