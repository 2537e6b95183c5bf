package clickhouse

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"logq/endpoint"
	"logq/exec"
	"logq/fixtures"
)

// BenchmarkEndpoints times each built-in endpoint shape over the local store
// and over the two-shard cluster holding the same events (relay and edge,
// LOGQ_BENCH_EVENTS per source, default 200,000), and reports the rows each
// ClickHouse call moved to logq. Past 2M events per source only the cluster
// is loaded, streamed from the generator (both sides in memory do not fit
// a 24 GiB machine at 10M), and the local side is not timed.
//
//	go test ./clickhouse/ -run XXX -bench Endpoints -benchtime 20x
func BenchmarkEndpoints(b *testing.B) {
	n := fixtures.BenchEvents(200_000)
	sources := []string{"deno-relay-logs", "cloudflare.logs.prod"}
	var p *pair
	if n > 2_000_000 {
		p = clusterOnly(b, n, sources)
	} else {
		p = newPairOf(b, n, sources)
	}
	eps, err := endpoint.LoadFS(fixtures.Endpoints, "endpoints")
	if err != nil {
		b.Fatal(err)
	}
	byName := map[string]*endpoint.Endpoint{}
	for _, e := range eps {
		byName[e.Name] = e
	}
	proj := fixtures.ProjectRef(0)
	// Let the servers finish merging what the load wrote, so that every
	// side reads the same parts.
	for _, c := range p.engine.servers {
		for _, src := range []string{"deno-relay-logs", "cloudflare.logs.prod"} {
			if err := c.exec(context.Background(), "OPTIMIZE TABLE "+p.engine.local(src)+" FINAL", nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	hand := handWritten(b, p, p.engine.cfg.Database)
	want := map[string]int{}
	for _, c := range []struct {
		name, ep string
		params   map[string]string
	}{
		{"inv-1hr", "functions.invocation-stats", map[string]string{"project": proj, "interval": "1hr"}},
		{"inv-1day", "functions.invocation-stats", map[string]string{"project": proj, "interval": "1day"}},
		{"inv-7day", "functions.invocation-stats", map[string]string{"project": proj, "interval": "7day"}},
		{"api-hourly", "usage.api-counts", map[string]string{"project": proj, "interval": "hourly"}},
		{"api-daily", "usage.api-counts", map[string]string{"project": proj, "interval": "daily"}},
		{"logs-all-PRO", "logs.all", map[string]string{"project": proj, "project_tier": "PRO"}},
	} {
		for _, side := range []struct {
			name string
			st   exec.Storage
		}{{"local", p.localStore}, {"clickhouse", p.engine}} {
			if side.st == nil {
				continue // a cluster-only run
			}
			b.Run(c.name+"/"+side.name, func(b *testing.B) {
				before := p.engine.RowsMoved()
				rows := 0
				for i := 0; i < b.N; i++ {
					res, err := exec.Run(context.Background(), side.st, byName[c.ep].Query, exec.Request{Params: c.params, Now: epNow, MaxRows: 1000})
					if err != nil {
						b.Fatal(err)
					}
					rows = len(res.Rows)
				}
				b.ReportMetric(float64(rows), "result-rows")
				if side.name == "clickhouse" {
					b.ReportMetric(float64(p.engine.RowsMoved()-before)/float64(b.N), "rows-moved/op")
				}
				want[c.name] = rows
			})
		}
		b.Run(c.name+"/handwritten", func(b *testing.B) {
			rows := 0
			for i := 0; i < b.N; i++ {
				out, err := p.engine.servers[i%len(p.engine.servers)].text(context.Background(), hand[c.name], nil)
				if err != nil {
					b.Fatal(err)
				}
				rows = strings.Count(out, "\n")
			}
			if rows != want[c.name] {
				b.Fatalf("the hand-written query gave %d rows, logq %d:\n%s", rows, want[c.name], hand[c.name])
			}
			b.ReportMetric(float64(rows), "result-rows")
		})
	}
}

// handWritten is the ClickHouse SQL a person would write for each shape's
// answer over logq's tables (db), to time logq's translation against.
func handWritten(b *testing.B, p *pair, db string) map[string]string {
	us := func(t time.Time) string { return strconv.FormatInt(t.UnixMicro(), 10) }
	relay := ident(db) + "." + ident("deno-relay-logs")
	edge := ident(db) + "." + ident("cloudflare.logs.prod")
	proj := quote(fixtures.ProjectRef(0))
	inv := func(width time.Duration, since time.Time) string {
		w := strconv.FormatInt(width.Microseconds(), 10)
		return "SELECT intDiv(timestamp, " + w + ") * " + w + " AS t, min(`metadata.execution_time_ms#i`), max(`metadata.execution_time_ms#i`), avg(`metadata.execution_time_ms#i`)," +
			" quantileExact(0.95)(`metadata.execution_time_ms#i`), quantileExact(0.99)(`metadata.execution_time_ms#i`), count(), countIf(`metadata.response.status_code#i` >= 400)" +
			" FROM " + relay + " WHERE timestamp >= " + us(since) + " AND `metadata.project_ref#s` = " + proj + " GROUP BY t ORDER BY t"
	}
	api := func(width time.Duration, since time.Time) string {
		w := strconv.FormatInt(width.Microseconds(), 10)
		return "SELECT intDiv(timestamp, " + w + ") * " + w + " AS t, countIf(match(`metadata.request.path#s`, '/rest')), countIf(match(`metadata.request.path#s`, '/storage'))," +
			" countIf(match(`metadata.request.path#s`, '/auth')), countIf(match(`metadata.request.path#s`, '/realtime'))" +
			" FROM " + edge + " WHERE timestamp >= " + us(since) + " AND match(`metadata.request.url#s`, " + proj + ") GROUP BY t ORDER BY t"
	}
	cols, err := p.engine.servers[0].text(context.Background(), "SELECT name FROM system.columns WHERE database = "+quote(db)+
		" AND table = 'cloudflare.logs.prod' AND name LIKE 'metadata%' ORDER BY name", nil)
	if err != nil {
		b.Fatal(err)
	}
	wide := "id, timestamp, event_message"
	for _, c := range strings.Fields(cols) {
		wide += ", " + ident(c)
	}
	day := 24 * time.Hour
	return map[string]string{
		"inv-1hr":      inv(time.Minute, epNow.Truncate(time.Minute).Add(-time.Hour)),
		"inv-1day":     inv(time.Hour, epNow.Truncate(time.Hour).Add(-day)),
		"inv-7day":     inv(day, epNow.Truncate(day).Add(-7*day)),
		"api-hourly":   api(time.Hour, epNow.Add(-time.Hour)),
		"api-daily":    api(day, epNow.Add(-7*day)),
		"logs-all-PRO": "SELECT " + wide + " FROM " + edge + " WHERE timestamp >= " + us(epNow.Add(-7*day)) + " AND `project#s` = " + proj + " ORDER BY timestamp DESC LIMIT 100",
	}
}

// clusterOnly loads perSource events of each source into the cluster alone,
// in batches of 100,000 straight from the generator.
func clusterOnly(b *testing.B, perSource int, sources []string) *pair {
	cl := needCluster(b)
	eng := cl.engine(b, Config{})
	spec := fixtures.DefaultSpec(perSource, epNow)
	for _, src := range sources {
		fixtures.GenerateBatches(spec, src, 100_000, func(evs [][]byte) {
			if _, _, err := eng.Ingest(src, evs); err != nil {
				b.Fatal(err)
			}
		})
	}
	return &pair{engine: eng}
}
