package endpoint

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"logq/exec"
	"logq/fixtures"
	"logq/logstore"
)

// Benchmarks run the saved endpoints over LOGQ_BENCH_EVENTS events per source
// (default 1M) spread over the last 7 days: 20 projects, the busiest with about
// a third of the events, 50 functions. Queries are uncached, one at a time,
// for the busiest project.

var (
	benchOnce  sync.Once
	benchStore *logstore.Store
	benchNow   time.Time
	benchHeap  uint64
)

func benchEvents() int { return fixtures.BenchEvents(1_000_000) }

func benchData(b *testing.B) *logstore.Store {
	benchOnce.Do(func() {
		benchNow = time.Now().UTC()
		spec := fixtures.DefaultSpec(benchEvents(), benchNow)
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		benchStore = logstore.New(logstore.Options{})
		for _, src := range []string{"cloudflare.logs.prod", "deno-relay-logs"} {
			fixtures.GenerateBatches(spec, src, 10000, func(evs [][]byte) { benchStore.Append(src, evs) })
		}
		benchStore.Flush()
		var after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&after)
		benchHeap = after.HeapAlloc - before.HeapAlloc
	})
	return benchStore
}

func benchEndpoint(b *testing.B, name string, params map[string]string) {
	st := benchData(b)
	eps := loadBuiltins(b)
	e := eps[name]
	params["project"] = fixtures.ProjectRef(0)
	benchRuns(b, st, e.Query, params, e.MaxRows)
}

// benchRuns times calls of q as the service makes them, one at a time,
// and reports the rows of the last.
func benchRuns(b *testing.B, st *logstore.Store, q *exec.Query, params map[string]string, maxRows int) {
	b.ReportAllocs()
	b.ResetTimer()
	rows := 0
	for i := 0; i < b.N; i++ {
		res, err := exec.Run(context.Background(), exec.Local(st), q, exec.Request{Params: params, Now: benchNow, MaxRows: maxRows})
		if err != nil {
			b.Fatal(err)
		}
		rows = len(res.Rows)
	}
	b.ReportMetric(float64(rows), "rows")
}

func BenchmarkInvocationStats1day(b *testing.B) {
	benchEndpoint(b, "functions.invocation-stats", map[string]string{"interval": "1day"})
}

func BenchmarkInvocationStats7day(b *testing.B) {
	benchEndpoint(b, "functions.invocation-stats", map[string]string{"interval": "7day"})
}

func BenchmarkInvocationStats1hr(b *testing.B) {
	benchEndpoint(b, "functions.invocation-stats", map[string]string{"interval": "1hr"})
}

func BenchmarkAPICountsDaily(b *testing.B) {
	benchEndpoint(b, "usage.api-counts", map[string]string{"interval": "daily"})
}

func BenchmarkAPICountsHourly(b *testing.B) {
	benchEndpoint(b, "usage.api-counts", map[string]string{"interval": "hourly"})
}

func BenchmarkAPICountsMinutely(b *testing.B) {
	benchEndpoint(b, "usage.api-counts", map[string]string{"interval": "minutely"})
}

func BenchmarkLogsAllPro(b *testing.B) {
	benchEndpoint(b, "logs.all", map[string]string{"project_tier": "PRO"})
}

// BenchmarkMemoryPerEvent reports the heap held by the loaded data set.
func BenchmarkMemoryPerEvent(b *testing.B) {
	st := benchData(b)
	var held int64
	events := 0
	for _, s := range st.Stats() {
		held += s.Bytes
		events += s.Events
	}
	for i := 0; i < b.N; i++ {
	}
	b.ReportMetric(float64(benchHeap)/float64(events), "heapB/event")
	b.ReportMetric(float64(held)/float64(events), "accountedB/event")
	b.ReportMetric(float64(benchHeap)/(1<<30), "heapGiB")
}

func benchAppend(b *testing.B, source string, durable bool) {
	evs := fixtures.Generate(fixtures.DefaultSpec(20000, time.Now()), source)
	var size int64
	for _, e := range evs {
		size += int64(len(e))
	}
	b.SetBytes(size / int64(len(evs)))
	b.ReportAllocs()
	b.ResetTimer()
	st := logstore.New(logstore.Options{})
	if durable {
		var err error
		if st, err = logstore.Open(b.TempDir(), logstore.Options{}); err != nil {
			b.Fatal(err)
		}
		defer st.Close()
	}
	for i := 0; i < b.N; {
		n := min(1000, b.N-i)
		off := i % (len(evs) - 1000)
		st.Append(source, evs[off:off+n])
		i += n
	}
	st.Flush() // background seals are part of the cost
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkAppendEdge(b *testing.B)  { benchAppend(b, "cloudflare.logs.prod", false) }
func BenchmarkAppendRelay(b *testing.B) { benchAppend(b, "deno-relay-logs", false) }

// On a data directory: WAL writes, an fsync per batch of 1000 (one writer,
// so no group commit), segment files written as segments seal.
func BenchmarkAppendEdgeDurable(b *testing.B)  { benchAppend(b, "cloudflare.logs.prod", true) }
func BenchmarkAppendRelayDurable(b *testing.B) { benchAppend(b, "deno-relay-logs", true) }

// Window functions in a caller's sql= over logs.all (the built-in's CTEs),
// as a Logs Explorer user writes them: the newest request per path of the
// busiest project's 7 days, and a per-minute count with a running total.
func BenchmarkStudioWindowLatestPerPath(b *testing.B) {
	benchSandboxed(b, `select path, timestamp from (
  select r.path as path, t.timestamp,
    row_number() over (partition by r.path order by t.timestamp desc) as rn
  from edge_logs t cross join unnest(t.metadata) as m cross join unnest(m.request) as r)
where rn = 1 order by timestamp desc limit 100`)
}

func BenchmarkStudioWindowRunningTotal(b *testing.B) {
	benchSandboxed(b, `select minute, n, sum(n) over (order by minute) as running,
  avg(n) over (order by minute rows between 9 preceding and current row) as avg10
from (select timestamp_trunc(timestamp, minute) as minute, count(*) as n from edge_logs group by minute)
order by minute desc limit 100`)
}

func benchSandboxed(b *testing.B, sql string) {
	st := benchData(b)
	eps := loadBuiltins(b)
	q, err := eps["logs.all"].Query.Sandboxed(sql)
	if err != nil {
		b.Fatal(err)
	}
	params := map[string]string{
		"project":             fixtures.ProjectRef(0),
		"iso_timestamp_start": benchNow.Add(-7 * 24 * time.Hour).Format(time.RFC3339),
		"iso_timestamp_end":   benchNow.Format(time.RFC3339),
	}
	benchRuns(b, st, q, params, 1000)
}

// The top-paths report: a GROUP BY over a high-cardinality string.
func BenchmarkStudioTopPaths(b *testing.B) {
	benchSandboxed(b, `select request.path as path, count(*) as c from edge_logs t
cross join unnest(t.metadata) as m cross join unnest(m.request) as request
group by path order by c desc, path limit 10`)
}

// A saved query with subqueries, called as an endpoint is: the last hour's
// invocations of the busiest project's functions that failed in that hour
// (an IN subquery), and how far each bucket's count is from the hour's
// mean (a scalar one). Its plan is kept between calls as the built-ins'
// are (planner/template.go).
func BenchmarkSavedSubqueries1hr(b *testing.B) {
	st := benchData(b)
	q, err := exec.Prepare(`with calls as (
    select timestamp_trunc(f.timestamp, minute) as minute, m.function_id, r.status_code
    from ` + "`deno-relay-logs`" + ` as f
      cross join unnest(f.metadata) as m cross join unnest(m.response) as r
    where f.timestamp >= timestamp_sub(current_timestamp(), interval 1 hour)
      and m.project_ref = @project)
  select minute, count(*) as n,
    count(*) - (select count(*) / 60 from calls) as from_mean
  from calls
  where function_id in (select function_id from calls where status_code >= 500)
  group by minute order by minute`)
	if err != nil {
		b.Fatal(err)
	}
	benchRuns(b, st, q, map[string]string{"project": fixtures.ProjectRef(0)}, 0)
}
