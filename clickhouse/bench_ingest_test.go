package clickhouse

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"logq/api"
	"logq/fixtures"
)

// BenchmarkIngest sends the same edge events (LOGQ_BENCH_EVENTS, default
// 200,000) in the same batches from the same concurrent senders two ways
// into the two-shard cluster: through logq's ingest API (shredded into
// typed columns, grouped, inserted through the Distributed table), and
// straight into ClickHouse with its own JSONEachRow input, into the layout
// Logflare's ClickHouse backend uses (id, timestamp, event_message, the
// whole event as a JSON string), also through a Distributed table with
// insert_distributed_sync=1; and, as a third way, with JSONEachRow into
// the same typed tables logq makes (each event's values keyed by their
// columns' names, as logq's shredder gives them, through a Distributed
// table too): the first baseline is the ingest of Logflare's layout, the
// second ClickHouse's own cost of logq's. Each of 4 or 16 senders sends a batch of 1000
// and waits for its answer before the next, as shippers do. The direct
// senders' rows are prepared before the clock starts; logq's are the
// events as a shipper sends them.
//
//	go test ./clickhouse/ -run XXX -bench Ingest -benchtime 3x
func BenchmarkIngest(b *testing.B) {
	n := fixtures.BenchEvents(200_000)
	const batch = 1000
	cl := needCluster(b)
	// As a live shipper sends them: the last hour's events, in order.
	spec := fixtures.DefaultSpec(n, epNow)
	spec.Span = time.Hour
	evs := fixtures.Generate(spec, "cloudflare.logs.prod")
	var batches []string // the bodies each way
	var direct []string
	for i := 0; i < len(evs); i += batch {
		part := evs[i:min(i+batch, len(evs))]
		batches = append(batches, "["+string(joinLines(part, ","))+"]")
		var rows strings.Builder
		for _, ev := range part {
			var e struct {
				ID        string `json:"id"`
				Message   string `json:"event_message"`
				Timestamp string `json:"timestamp"`
			}
			if err := json.Unmarshal(ev, &e); err != nil {
				b.Fatal(err)
			}
			ts, err := time.Parse(time.RFC3339Nano, e.Timestamp)
			if err != nil {
				b.Fatal(err)
			}
			row, _ := json.Marshal(map[string]any{"id": e.ID, "timestamp": ts.UnixMicro(), "event_message": e.Message, "body": string(ev)})
			rows.Write(row)
			rows.WriteByte('\n')
		}
		direct = append(direct, rows.String())
	}
	proto, typed := typedRows(b, cl, evs, batch)
	for _, senders := range []int{4, 16} {
		b.Run(fmt.Sprintf("senders=%d", senders), func(b *testing.B) { benchIngest(b, cl, evs, batches, direct, proto, typed, senders) })
	}
}

// typedRows makes a source of the events through logq (its typed tables,
// every column the events need) and writes each batch of them as
// JSONEachRow rows keyed by those columns' names, with the values logq's
// shredder gives them; it returns the engine that holds the source.
func typedRows(b *testing.B, cl *testCluster, evs [][]byte, batch int) (*Engine, []string) {
	eng := cl.engine(b, Config{})
	if _, _, err := eng.Ingest("proto", evs); err != nil {
		b.Fatal(err)
	}
	src, err := eng.source(context.Background(), "proto", false)
	if err != nil {
		b.Fatal(err)
	}
	var out []string
	for i := 0; i < len(evs); i += batch {
		rows, cols, _, _, _ := src.shred(evs[i:min(i+batch, len(evs))], epNow, 0)
		var body []byte
		for _, r := range rows {
			obj := map[string]any{}
			for _, c := range r.cells {
				col := cols[c.col]
				text := string(tsvUnescape(c.val))
				switch {
				case strings.Contains(col.typ, "String"):
					obj[col.name] = text
				default:
					obj[col.name] = json.Number(text)
				}
			}
			line, err := json.Marshal(obj)
			if err != nil {
				b.Fatal(err)
			}
			body = append(append(body, line...), '\n')
		}
		out = append(out, string(body))
	}
	return eng, out
}

func benchIngest(b *testing.B, cl *testCluster, evs [][]byte, batches, direct []string, proto *Engine, typed []string, senders int) {
	// send runs fn over the batches from the senders, and reports events/s.
	send := func(b *testing.B, fn func(it, i int) error) {
		start := time.Now()
		for it := 0; it < b.N; it++ {
			var wg sync.WaitGroup
			errs := make(chan error, senders)
			next := make(chan int)
			for s := 0; s < senders; s++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range next {
						if err := fn(it+1, i); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			for i := range batches {
				next <- i
			}
			close(next)
			wg.Wait()
			close(errs)
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N*len(evs))/time.Since(start).Seconds(), "events/s")
	}

	b.Run("logq", func(b *testing.B) {
		linger := DefaultLinger
		if v := os.Getenv("LOGQ_BENCH_LINGER"); v != "" {
			linger, _ = time.ParseDuration(v)
		}
		eng := cl.engine(b, Config{Linger: linger})
		srv := api.New(api.Config{Keys: api.Keys(testKey), Backend: eng, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		srv.SetReady(true)
		defer srv.Close()
		hs := httptest.NewServer(srv.Handler())
		defer hs.Close()
		b.ResetTimer()
		send(b, func(it, i int) error {
			req, _ := http.NewRequest("POST", hs.URL+"/api/logs?source_name=edge"+strconv.Itoa(it), strings.NewReader(batches[i]))
			req.Header.Set("X-API-Key", testKey)
			req.Header.Set("Content-Type", "application/json")
			resp, err := hs.Client().Do(req)
			if err != nil {
				return err
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				return fmt.Errorf("%d: %s", resp.StatusCode, body)
			}
			return nil
		})
	})

	b.Run("jsoneachrow", func(b *testing.B) {
		eng := cl.engine(b, Config{})
		db := ident(eng.cfg.Database)
		ctx := context.Background()
		for it := 1; it <= b.N; it++ {
			for _, c := range eng.servers {
				mt := fmt.Sprintf("CREATE TABLE %s.raw%d_local (id String, timestamp Int64, event_message String, body String) ENGINE = MergeTree() PARTITION BY intDiv(timestamp, %d) ORDER BY timestamp", db, it, microsPerDay)
				dist := fmt.Sprintf("CREATE TABLE %s.raw%d AS %s.raw%d_local ENGINE = Distributed(%s, %s, %s, cityHash64(timestamp))", db, it, db, it, ident(eng.cfg.Cluster), db, quote(fmt.Sprintf("raw%d_local", it)))
				if eng.cfg.Cluster == "" {
					dist = fmt.Sprintf("CREATE VIEW %s.raw%d AS SELECT * FROM %s.raw%d_local", db, it, db, it)
				}
				for _, stmt := range []string{mt, dist} {
					if err := c.exec(ctx, stmt, nil); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
		b.ResetTimer()
		send(b, func(it, i int) error {
			c := eng.servers[i%len(eng.servers)]
			rc, err := c.do(ctx, fmt.Sprintf("INSERT INTO %s.raw%d FORMAT JSONEachRow", db, it), strings.NewReader(direct[i]), map[string]string{"insert_distributed_sync": "1"})
			if err != nil {
				return err
			}
			io.Copy(io.Discard, rc)
			return rc.Close()
		})
	})

	b.Run("jsoneachrow-typed", func(b *testing.B) {
		db := ident(proto.cfg.Database)
		ctx := context.Background()
		for it := 1; it <= b.N; it++ {
			name := fmt.Sprintf("typed%d_%d", senders, it)
			for _, c := range proto.servers {
				if err := c.exec(ctx, fmt.Sprintf("CREATE TABLE %s.%s_local AS %s", db, name, proto.local("proto")), nil); err != nil {
					b.Fatal(err)
				}
				if err := c.exec(ctx, fmt.Sprintf("CREATE TABLE %s.%s AS %s.%s_local ENGINE = Distributed(%s, %s, %s, cityHash64(`timestamp`))",
					db, name, db, name, ident(proto.cfg.Cluster), db, quote(name+"_local")), nil); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ResetTimer()
		send(b, func(it, i int) error {
			c := proto.servers[i%len(proto.servers)]
			rc, err := c.do(ctx, fmt.Sprintf("INSERT INTO %s.typed%d_%d FORMAT JSONEachRow", db, senders, it), strings.NewReader(typed[i]), map[string]string{"insert_distributed_sync": "1"})
			if err != nil {
				return err
			}
			io.Copy(io.Discard, rc)
			return rc.Close()
		})
	})
}
