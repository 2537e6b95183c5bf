package drain

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"logq/fixtures"
	"logq/logstore"
)

// BenchmarkDrainBacklog is a webhook drain (gzip on) delivering a backlog
// of generated events from a data directory's WAL (and spool) to a local
// receiver that reads and drops each body: events/s is the drain's own
// pace, with nothing else running.
func BenchmarkDrainBacklogEdge(b *testing.B)  { benchDrainBacklog(b, "cloudflare.logs.prod") }
func BenchmarkDrainBacklogRelay(b *testing.B) { benchDrainBacklog(b, "deno-relay-logs") }

func benchDrainBacklog(b *testing.B, source string) {
	const n = 100_000
	evs := fixtures.Generate(fixtures.DefaultSpec(n, time.Now()), source)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) }))
	defer recv.Close()
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		drains := filepath.Join(dir, "drains")
		positions, err := LoadPositions(drains)
		if err != nil {
			b.Fatal(err)
		}
		st, err := logstore.Open(dir, logstore.Options{Holds: positions.Holds()})
		if err != nil {
			b.Fatal(err)
		}
		m, err := New(Options{Store: FileStore{Dir: drains}, Feed: st, Positions: positions, Sources: st.Names})
		if err != nil {
			b.Fatal(err)
		}
		name, typ, lql := "bench", "webhook", `~".*?"`
		bk, err := m.CreateBackend(BackendInput{Name: &name, Type: &typ, Config: json.RawMessage(fmt.Sprintf(`{"url":%q,"gzip":true}`, recv.URL))})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.CreateRule(RuleInput{BackendID: json.RawMessage(fmt.Sprint(bk.ID)), Source: source, LQL: &lql}); err != nil {
			b.Fatal(err)
		}
		m.Close() // the drain waits at the head while the backlog is made
		for i := 0; i < n; i += 500 {
			if _, _, err := st.Ingest(source, evs[i:i+500]); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		m, err = New(Options{Store: FileStore{Dir: drains}, Feed: st, Positions: positions, Sources: st.Names})
		if err != nil {
			b.Fatal(err)
		}
		for m.Stats()[0].Delivered < n {
			time.Sleep(time.Millisecond)
		}
		b.StopTimer()
		m.Close()
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
