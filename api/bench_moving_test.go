package api

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"logq/exec"
	"logq/logstore"
)

// BenchmarkMovingStart runs saved queries whose window starts where the
// call's time says, unrounded ("the last 15 minutes"), so that each call
// cuts its segments somewhere else and finds no partial kept for them: the
// shape the kept partials (exec/local_partials.go) must not make slower.
// Each call's time is 1.23 s after the one before (within the hour before
// the data's time). It reads the directory BenchmarkServeDataDir made:
//
//	LOGQ_BENCH_DIR=DIR go test ./api/ -run XXX -bench MovingStart
func BenchmarkMovingStart(b *testing.B) {
	dir := os.Getenv("LOGQ_BENCH_DIR")
	data, err := os.ReadFile(filepath.Join(dir, "bench-now"))
	if err != nil {
		b.Fatalf("LOGQ_BENCH_DIR must name a directory BenchmarkServeDataDir made: %v", err)
	}
	now, _ := time.Parse(time.RFC3339Nano, string(data))
	st, err := logstore.Open(dir, logstore.Options{CacheBytes: 128 << 20, MaxOpenBytes: 32 << 20, Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for _, sq := range []struct{ name, sql string }{
		{"relay-1h", "select timestamp_trunc(f.timestamp, minute) as t, count(*) as n, approx_quantiles(m.execution_time_ms, 100)[offset(95)] as p95 from `deno-relay-logs` as f cross join unnest(f.metadata) as m where m.project_ref = 'proj00ref' and f.timestamp > timestamp_sub(current_timestamp(), interval 1 hour) group by t order by t"},
		{"edge-15m", "select count(*) as n, max(timestamp) as last from `cloudflare.logs.prod` where project = 'proj00ref' and timestamp > timestamp_sub(current_timestamp(), interval 15 minute)"},
		{"edge-3h", "select project, count(*) as n from `cloudflare.logs.prod` where timestamp > timestamp_sub(current_timestamp(), interval 3 hour) group by project order by project"},
	} {
		q, err := exec.Prepare(sq.sql)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(sq.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				at := now.Add(-time.Hour).Add(time.Duration(i) * 1234567 * time.Microsecond % time.Hour)
				if _, err := exec.Run(context.Background(), exec.Local(st), q, exec.Request{Now: at}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
