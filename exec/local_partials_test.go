package exec

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"weak"

	"github.com/stretchr/testify/require"

	"logq/logstore"
	"logq/planner"
)

// partialsStore holds 600 events, one a minute over ten hours from t0, in
// sealed segments of 50 (and an open one of 25 when open is set): three
// projects, an execution time, a status and a FLOAT64.
func partialsStore(t *testing.T, t0 time.Time, opts logstore.Options, open bool) *logstore.Store {
	opts.SegmentRows = 50
	st := logstore.New(opts)
	ev := func(i int) []byte {
		ts := t0.Add(time.Duration(i) * time.Minute).UnixMicro()
		status := 200
		if i%7 == 0 {
			status = 500
		}
		return []byte(fmt.Sprintf(`{"timestamp":%d,"event_message":"e%d","project":"p%d","ms":%d,"status":%d,"f":%g}`,
			ts, i, i%3, (i*37)%500, status, float64(i)/3))
	}
	for i := 0; i < 600; i += 50 {
		var evs [][]byte
		for j := i; j < i+50; j++ {
			evs = append(evs, ev(j))
		}
		_, rej := st.Append("s", evs)
		require.Empty(t, rej)
	}
	require.NoError(t, st.Flush())
	if open {
		var evs [][]byte
		for j := 600; j < 625; j++ {
			evs = append(evs, ev(j))
		}
		_, rej := st.Append("s", evs)
		require.Empty(t, rej)
	}
	return st
}

// bound answers sql at now as a query bound afresh does: no kept plan,
// so no kept partials.
func bound(t *testing.T, st *logstore.Store, sql string, params map[string]string, now time.Time) string {
	t.Helper()
	fresh, err := Prepare(sql)
	require.NoError(t, err)
	want, err := runQuery(st, fresh, params, now)
	require.NoError(t, err)
	return want
}

// callsAtOnce runs q from workers goroutines, calls times each, and fails
// on the first answer that is not want.
func callsAtOnce(t *testing.T, st *logstore.Store, q *Query, params map[string]string, now time.Time, workers, calls int, want string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < calls; i++ {
				got, err := runQuery(st, q, params, now)
				if err == nil && got != want {
					err = fmt.Errorf("call %d answered\n%s\nwant\n%s", i, got, want)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// The queries whose partials are kept: an invocation-stats shape over the
// last six hours, and a GROUP BY without ORDER BY (whose groups come out
// in the order the uncached path finds them).
var partialQueries = []string{
	// Keys and projections that read the time are not kept (the answer
	// moves with it).
	`select timestamp_diff(current_timestamp(), timestamp, minute) as age, count(*) as n
	 from s where timestamp >= timestamp_sub(current_timestamp(), interval 20 hour) group by age order by age`,
	`select age, count(*) as n from (select timestamp_diff(current_timestamp(), timestamp, hour) as age from s
	   where timestamp >= timestamp_sub(current_timestamp(), interval 20 hour)) group by age order by age`,
	`select timestamp_trunc(timestamp, hour) as h, count(*) as n, countif(status >= 400) as errors,
	   min(ms) as lo, max(ms) as hi, avg(ms) as mean, sum(ms) as total,
	   approx_quantiles(ms, 100)[offset(50)] as p50, approx_quantiles(ms, 100)[offset(99)] as p99
	 from s where project = @project and timestamp >= timestamp_sub(current_timestamp(), interval 6 hour)
	 group by h order by h`,
	`select project, count(*) as n, min(timestamp) as first, max(ms) as hi
	 from s where timestamp >= timestamp_sub(current_timestamp(), interval 6 hour) group by project`,
}

// Kept partials answer as the plan bound directly at every time, whichever
// segments the window covers whole or cuts, with other queries' quantile lists
// taken from and given back to the pool between calls.
func TestKeptPartialsAnswerAsBound(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := partialsStore(t, t0, logstore.Options{}, true)
	params := map[string]string{"project": "p1"}
	churn, err := Prepare(`select project, approx_quantiles(ms + 1000, 4) as q from s group by project`)
	require.NoError(t, err)
	nows := []time.Time{
		t0.Add(10 * time.Hour), t0.Add(10*time.Hour + 17*time.Minute), t0.Add(10*time.Hour + 17*time.Minute),
		t0.Add(11*time.Hour + 3*time.Minute), t0.Add(10 * time.Hour), t0.Add(15*time.Hour + 59*time.Minute),
	}
	for _, sql := range partialQueries {
		q, err := Prepare(sql)
		require.NoError(t, err)
		hits := segPartials.hits.Load()
		for round := 0; round < 2; round++ {
			for _, now := range nows {
				got, err := runQuery(st, q, params, now)
				require.NoError(t, err)
				require.Equal(t, bound(t, st, sql, params, now), got, "at %s", now)
				_, err = runQuery(st, churn, nil, now)
				require.NoError(t, err)
			}
		}
		require.True(t, kept(q, params))
		if !strings.Contains(sql, "timestamp_diff") {
			require.Greater(t, segPartials.hits.Load(), hits, "the later calls read kept partials")
		}
	}
}

// A window shorter than a segment cuts it and covers none whole: the
// segment's partial is kept with the window's start and found again while
// the start stays where it is; a start that moves reads the segment again,
// and one that moves with every call gives the partials up. Every answer
// is the plan bound directly's.
func TestKeptPartialsOfACutSegment(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := partialsStore(t, t0, logstore.Options{}, false)
	sql := `select project, count(*) as n, sum(ms) as total from s
	  where timestamp >= timestamp_sub(current_timestamp(), interval 30 minute) group by project`
	q, err := Prepare(sql)
	require.NoError(t, err)
	// The last segment holds minutes 550 to 599; every window below starts
	// inside it, and the 30 minutes at 10h hold minutes 570 to 599.
	at := func(now time.Time, foundAgain bool) {
		t.Helper()
		hits := segPartials.hits.Load()
		got, err := runQuery(st, q, nil, now)
		require.NoError(t, err)
		require.Equal(t, bound(t, st, sql, nil, now), got, "at %s", now)
		want := hits
		if foundAgain {
			want++
		}
		require.Equal(t, want, segPartials.hits.Load(), "at %s: the cut segment's partial found again", now)
	}
	now := t0.Add(10 * time.Hour)
	for !kept(q, nil) { // the first calls bind afresh, until the plan is kept
		at(now, false)
	}
	at(now, false) // the first call of the kept plan computes the partial, and keeps it
	at(now, true)
	at(now.Add(time.Minute), false) // one row fewer
	at(now.Add(time.Minute), true)
	at(now, false) // one row more again
	for i := 2; i < 6; i++ {
		at(now.Add(time.Duration(i)*time.Minute), false)
	}
	require.True(t, gaveUp(t, q, now), "a start moving with every call gives the partials up")
	at(now.Add(6*time.Minute), false)
}

// The open segment's partial is kept over the rows it had: a call after
// a few more arrived reads only those (late ones before the window or
// before the kept rows among them, and a group first seen in them), one
// after a quarter as many again reads the segment whole, and once sealed
// the segment is read again (its rows now in time order, which a GROUP BY
// without ORDER BY gives its groups in). Every answer is the plan bound
// directly's.
func TestKeptPartialsOfTheOpenSegment(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := logstore.New(logstore.Options{SegmentRows: 1000})
	// Minute i holds event i; the projects arrive in the order p2, p1, p0
	// (p0 and p1 from minute 2 on), and time order puts p0 first.
	ev := func(i int, project string) []byte {
		ts := t0.Add(time.Duration(i) * time.Minute).UnixMicro()
		return []byte(fmt.Sprintf(`{"timestamp":%d,"event_message":"e%d","project":"%s","ms":%d}`, ts, i, project, (i*37)%500))
	}
	add := func(evs ...[]byte) {
		_, rej := st.Append("s", evs)
		require.Empty(t, rej)
	}
	for i := 0; i < 200; i++ {
		add(ev(i+60, []string{"p2", "p1", "p0"}[min(i, 2)]))
	}
	add(ev(10, "p0")) // the earliest event arrives last
	sql := `select project, count(*) as n, sum(ms) as total, max(timestamp) as last,
	    approx_quantiles(ms, 100)[offset(50)] as p50
	  from s where timestamp >= timestamp_sub(current_timestamp(), interval 5 hour) group by project`
	q, err := Prepare(sql)
	require.NoError(t, err)
	now := t0.Add(5 * time.Hour) // the window holds every event
	at := func(foundAgain bool) {
		t.Helper()
		hits := segPartials.hits.Load()
		got, err := runQuery(st, q, nil, now)
		require.NoError(t, err)
		require.Equal(t, bound(t, st, sql, nil, now), got)
		want := hits
		if foundAgain {
			want++
		}
		require.Equal(t, want, segPartials.hits.Load(), "the open segment's partial found again")
	}
	for !kept(q, nil) {
		at(false)
	}
	at(false) // computes the open segment's partial, and keeps it
	at(true)
	// 40 more (under a quarter of 201): one past the window's end, one
	// before its start, one a new project's, one before every kept row.
	for i := 0; i < 36; i++ {
		add(ev(270+i, "p1"))
	}
	add(ev(5*60+1, "p1"), ev(-1, "p1"), ev(280, "p7"), ev(5, "p2"))
	at(true)
	at(true)
	add(ev(290, "p0")) // 41 since: still under a quarter
	at(true)
	for i := 0; i < 20; i++ { // 61 since: the segment is read whole again
		add(ev(300+i, "p2"))
	}
	at(false)
	at(true)
	require.NoError(t, st.Flush()) // sealed: the same rows, ordered by time
	at(false)
	at(true)
}

// Retention moving past the start of a segment whose partial is kept: the
// segment is no longer covered whole, and its rows still in retention are
// read again.
func TestKeptPartialsFollowRetention(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := t0.Add(7 * time.Hour) // when the events arrive, all within retention
	var mu sync.Mutex
	st := partialsStore(t, t0, logstore.Options{Retention: 8 * time.Hour, Now: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return clock
	}}, false)
	mu.Lock()
	clock = t0.Add(10 * time.Hour) // retention now starts inside the third segment
	mu.Unlock()
	sql := `select count(*) as n, sum(ms) as total from s where timestamp >= timestamp_sub(current_timestamp(), interval 20 hour)`
	q, err := Prepare(sql)
	require.NoError(t, err)
	hits := segPartials.hits.Load()
	for _, step := range []time.Duration{0, 0, 25 * time.Minute, 25 * time.Minute, 3 * time.Hour} {
		mu.Lock()
		clock = clock.Add(step)
		now := clock
		mu.Unlock()
		got, err := runQuery(st, q, nil, now)
		require.NoError(t, err)
		require.Equal(t, bound(t, st, sql, nil, now), got, "at %s", now)
	}
	require.Greater(t, segPartials.hits.Load(), hits)
}

// Partials are kept only where a merge of them answers as one pass does:
// not for a FLOAT64 sum (rounded by how the rows are split), a string MIN
// (which would keep its segment's column), or a volatile call.
func TestPartialsNotKept(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := partialsStore(t, t0, logstore.Options{}, false)
	for _, sql := range []string{
		`select sum(f) as s from s where timestamp >= timestamp_sub(current_timestamp(), interval 6 hour)`,
		`select min(event_message) as m from s where timestamp >= timestamp_sub(current_timestamp(), interval 6 hour)`,
		`select countif(rand() < 2) as n from s where timestamp >= timestamp_sub(current_timestamp(), interval 6 hour)`,
	} {
		q, err := Prepare(sql)
		require.NoError(t, err)
		hits := segPartials.hits.Load()
		for i := 0; i < 4; i++ {
			_, err := runQuery(st, q, nil, t0.Add(10*time.Hour))
			require.NoError(t, err)
		}
		require.True(t, kept(q, nil), sql)
		require.Equal(t, hits, segPartials.hits.Load(), sql)
	}
}

// Calls at once read the same kept partials (run under -race).
func TestKeptPartialsConcurrentCalls(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := partialsStore(t, t0, logstore.Options{}, true)
	params := map[string]string{"project": "p2"}
	now := t0.Add(10*time.Hour + 5*time.Minute)
	q, err := Prepare(partialQueries[2])
	require.NoError(t, err)
	callsAtOnce(t, st, q, params, now, 4, 20, bound(t, st, partialQueries[2], params, now))
}

// Partials pushed out before the next call (a budget too small for them)
// are given up after two such calls; the answers stay those of the plan
// bound directly throughout.
func TestPartialsGivenUpWhenPushedOut(t *testing.T) {
	saved := segPartials.byteLRU
	segPartials.byteLRU = newByteLRU[partialKey, *keptPartial](2400) // about 4 of the 12 segments' partials
	defer func() { segPartials.byteLRU = saved }()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := partialsStore(t, t0, logstore.Options{}, false)
	sql := `select project, count(*) as n, max(ms) as hi from s where timestamp >= timestamp_sub(current_timestamp(), interval 20 hour) group by project`
	q, err := Prepare(sql)
	require.NoError(t, err)
	now := t0.Add(10 * time.Hour)
	want := bound(t, st, sql, nil, now)
	for i := 0; i < 6; i++ {
		got, err := runQuery(st, q, nil, now)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	require.True(t, gaveUp(t, q, now), "pushed out twice in a row, the partials are given up")
}

// gaveUp reports whether the aggregate of q's kept plan runs without its
// partials now.
func gaveUp(t *testing.T, q *Query, now time.Time) bool {
	e, ok := q.plans.lru.Peek(paramKey(q.Params, nil))
	require.True(t, ok)
	require.NotNil(t, e.tmpl)
	p, err := e.tmpl.Plan(now.UnixMicro())
	require.NoError(t, err)
	var kept *planner.Aggregate
	for n := p; kept == nil; n = n.Children()[0] {
		if a, ok := n.(*planner.Aggregate); ok {
			kept = a.Kept
			require.NotNil(t, kept)
		}
	}
	thrashing.mu.Lock()
	defer thrashing.mu.Unlock()
	st := thrashing.seen[weak.Make(kept)]
	return st != nil && st.off > 0
}

// Past the exact quantiles' limit a t-digest answers, and its answer
// depends on how the values were split: the partials are not used, for
// this call or the next, and the answer is the uncached path's, with one
// worker and with two, also from calls at once (run under -race).
func TestPartialsPastTheExactQuantileLimit(t *testing.T) {
	saved := exactQuantileLimit
	exactQuantileLimit = 64
	defer func() { exactQuantileLimit = saved }()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := partialsStore(t, t0, logstore.Options{}, true)
	now := t0.Add(10 * time.Hour)
	for _, sql := range []string{
		// Past the limit in the merge only (a segment holds 50 values).
		`select approx_quantiles(f, 10) as q from s where timestamp >= timestamp_sub(current_timestamp(), interval 20 hour)`,
		`select project, approx_quantiles(ms, 4) as q from s where timestamp >= timestamp_sub(current_timestamp(), interval 20 hour) group by project`,
	} {
		q, err := Prepare(sql)
		require.NoError(t, err)
		callsAtOnce(t, st, q, nil, now, 3, 5, bound(t, st, sql, nil, now))
	}
}

// A cold call whose per-segment partials would go past the query's memory
// budget (a pass holds one per worker) answers as the pass does.
func TestPartialsWithinTheQueryBudget(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := partialsStore(t, t0, logstore.Options{}, false)
	sql := `select mod(ms, 40) as k, count(*) as n from s where timestamp >= timestamp_sub(current_timestamp(), interval 20 hour) group by k order by k`
	now := t0.Add(10 * time.Hour)
	run := func(q *Query, budget int64) (string, error) {
		res, err := Run(context.Background(), Local(st), q, Request{Now: now, MemoryBudget: budget})
		if err != nil {
			return "", err
		}
		return renderResult(res), nil
	}
	for _, budget := range []int64{10000, 20000, 1 << 20} {
		q, err := Prepare(sql)
		require.NoError(t, err)
		for i := 0; i < 3; i++ { // the second call makes the template, the third uses it
			fresh, err := Prepare(sql)
			require.NoError(t, err)
			want, wantErr := run(fresh, budget)
			got, gotErr := run(q, budget)
			if wantErr != nil {
				require.Error(t, gotErr, "budget %d call %d", budget, i)
				continue
			}
			require.NoError(t, gotErr, "budget %d call %d", budget, i)
			require.Equal(t, want, got)
		}
	}
}
