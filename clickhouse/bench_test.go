package clickhouse

import (
	"context"
	"os"
	"strconv"
	"testing"

	"logq/endpoint"
	"logq/exec"
	"logq/fixtures"
)

// BenchmarkEndpoints times each built-in endpoint shape over the local store
// and over the two-shard cluster holding the same events (relay and edge,
// LOGQ_BENCH_EVENTS per source, default 200,000), and reports the rows each
// ClickHouse call moved to logq.
//
//	go test ./clickhouse/ -run XXX -bench Endpoints -benchtime 20x
func BenchmarkEndpoints(b *testing.B) {
	n := 200_000
	if s := os.Getenv("LOGQ_BENCH_EVENTS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	p := newPairOf(b, n, []string{"deno-relay-logs", "cloudflare.logs.prod"})
	eps, err := endpoint.LoadFS(fixtures.Endpoints, "endpoints")
	if err != nil {
		b.Fatal(err)
	}
	byName := map[string]*endpoint.Endpoint{}
	for _, e := range eps {
		byName[e.Name] = e
	}
	proj := fixtures.ProjectRef(0)
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
			})
		}
	}
}
