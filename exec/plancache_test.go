package exec

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/exec/golden"
	"logq/logstore"
)

// runQuery runs a prepared query at now and renders its rows as the golden
// files do (or returns its error).
func runQuery(store *logstore.Store, q *Query, params map[string]string, now time.Time) (string, error) {
	res, err := Run(context.Background(), Local(store), q, Request{Params: params, Now: now})
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Kind == KindInternal {
			return "", errors.New(e.Msg + "\n" + e.Stack)
		}
		return "", err
	}
	return renderResult(res), nil
}

// kept reports whether q holds a template for params.
func kept(q *Query, params map[string]string) bool {
	e, ok := q.plans.lru.Peek(paramKey(q.Params, params))
	if !ok {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.tmpl != nil
}

// TestKeptPlansAnswerAsBound runs every golden case through a query whose
// plan is kept (from its second call on), at the golden time and at other
// times, and compares each answer with the query bound afresh at that time:
// the written answer at the golden time, a new Prepare's at the others.
func TestKeptPlansAnswerAsBound(t *testing.T) {
	cases, err := golden.All()
	require.NoError(t, err)
	times := []time.Time{
		goldenNow,
		goldenNow.Add(97*time.Minute + 13*time.Second + 5*time.Microsecond),
		goldenNow.Add(-36 * time.Hour),
		goldenNow.AddDate(1, 2, 3),
	}
	templated, partialsUsed := 0, 0
	for _, c := range cases {
		store := goldenStore(t, "memory", c.Sources, c.Inputs)
		hits := segPartials.hits.Load()
		q, err := Prepare(c.Query)
		if err != nil {
			continue // a parse or check error: nothing is planned
		}
		// The first call notes the schemas, the second makes the template.
		for i := 0; i < 2; i++ {
			_, _ = runQuery(store, q, c.Params, goldenNow)
		}
		if kept(q, c.Params) {
			templated++
		} else {
			// Every plan is kept (subqueries, per-row ones and recursive
			// CTEs included) unless binding it fails.
			_, err := runQuery(store, q, c.Params, goldenNow)
			require.Error(t, err, "%s: its plan is not kept", c.Name)
		}
		for _, now := range times {
			got, gotErr := runQuery(store, q, c.Params, now)
			fresh, err := Prepare(c.Query)
			require.NoError(t, err)
			want, wantErr := runQuery(store, fresh, c.Params, now)
			if wantErr != nil {
				require.Error(t, gotErr, "%s at %s: want %v, got rows:\n%s", c.Name, now, wantErr, got)
				require.Equal(t, wantErr.Error(), gotErr.Error(), "%s at %s", c.Name, now)
				continue
			}
			require.NoError(t, gotErr, "%s at %s", c.Name, now)
			require.Equal(t, want, got, "%s at %s", c.Name, now)
			if now.Equal(goldenNow) && !c.Has["error"] {
				require.Equal(t, c.Want, got, "%s: the written answer", c.Name)
			}
		}
		if segPartials.hits.Load() > hits {
			partialsUsed++
		}
	}
	t.Logf("%d of %d golden cases planned from a kept template, %d of them from kept segment partials too", templated, len(cases), partialsUsed)
	require.Greater(t, templated, len(cases)/2)
	// Segments of 3 rows, sealed: the aggregates whose partials may be kept
	// (local_partials.go; 19 cases when written) are answered from them,
	// at four different times, and compared with the plan bound directly,
	// which keeps none.
	require.GreaterOrEqual(t, partialsUsed, 15)
}

// TestKeptPlanFollowsSchema: a field that appears after the plan was kept
// is seen by the next call, as a query bound then would see it.
func TestKeptPlanFollowsSchema(t *testing.T) {
	store := logstore.New(logstore.Options{})
	_, rej := store.Append("s", [][]byte{[]byte(`{"event_message":"a","timestamp":1714566600000000}`)})
	require.Empty(t, rej)
	q, err := Prepare("select * from s where timestamp > timestamp_sub(current_timestamp(), interval 1 day)")
	require.NoError(t, err)
	for i := 0; i < 3; i++ {
		got, err := runQuery(store, q, nil, goldenNow)
		require.NoError(t, err)
		require.Equal(t, "timestamp | id | event_message\n", firstLine(got)+"\n")
	}
	require.True(t, kept(q, nil), "the plan is kept from the second call")
	_, rej = store.Append("s", [][]byte{[]byte(`{"event_message":"b","timestamp":1714566600000001,"level":"info"}`)})
	require.Empty(t, rej)
	got, err := runQuery(store, q, nil, goldenNow)
	require.NoError(t, err)
	require.Equal(t, "timestamp | id | event_message | level", firstLine(got))
	require.Equal(t, 3, strings.Count(got, "\n"), "both events:\n%s", got)
}

// TestKeptPlanThroughAWrapper: a Storage embedded in another type (as
// api's Backend embeds the local one) still keeps plans.
func TestKeptPlanThroughAWrapper(t *testing.T) {
	store := logstore.New(logstore.Options{})
	_, rej := store.Append("s", [][]byte{[]byte(`{"event_message":"a","timestamp":1714566600000000}`)})
	require.Empty(t, rej)
	wrapped := struct {
		Storage
		name string
	}{Local(store), "backend"}
	q, err := Prepare("select count(*) as n from s where timestamp > timestamp_sub(current_timestamp(), interval 1 day)")
	require.NoError(t, err)
	for i := 0; i < 2; i++ {
		res, err := Run(context.Background(), wrapped, q, Request{Now: goldenNow})
		require.NoError(t, err)
		require.Equal(t, "1", res.Rows[0][0].String())
	}
	require.True(t, kept(q, nil), "the plan is kept from the second call")
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// TestKeptPlanConcurrentCalls: calls sharing a kept plan at different
// times, at once (run under -race: a template is never written). Beside a
// plain scan, the same count through each kind of plan part a copy must
// rebuild: an IN subquery (the executor writes its set into the plan), a
// subquery run per outer row (its parameters are per call), a subquery
// inside a comparison, and a recursive CTE.
func TestKeptPlanConcurrentCalls(t *testing.T) {
	var evs [][]byte
	base := goldenNow.Add(-3 * time.Hour).UnixMicro()
	for i := 0; i < 300; i++ {
		evs = append(evs, []byte(`{"event_message":"m","timestamp":`+itoa(base+int64(i)*int64(time.Minute/time.Microsecond))+`}`))
	}
	store := logstore.New(logstore.Options{SegmentRows: 50})
	_, rej := store.Append("s", evs)
	require.Empty(t, rej)
	const hour = "timestamp >= timestamp_sub(current_timestamp(), interval 1 hour) and timestamp < current_timestamp()"
	for _, sql := range []string{
		"select count(*) as n from s where " + hour,
		"select count(*) as n from s where timestamp in (select timestamp from s where " + hour + ")",
		"select count(*) as n from s as a where a.timestamp < current_timestamp() and" +
			" (select count(*) from s as b where b.timestamp <= a.timestamp and b.timestamp >= timestamp_sub(current_timestamp(), interval 1 hour)) > 0",
		// A subquery inside a larger expression, holding a call with no
		// function of its own ($grouping_set, of ROLLUP): the rebuilt
		// comparison is resolved without writing the shared call.
		"select count(*) as n from s where " + hour +
			" and 1 < (select count(*) from (select event_message, count(*) from s group by rollup(event_message)))",
		"with recursive r as (select 0 as j union all select j + 1 from r where j < 59)" +
			" select count(*) as n from s join r on timestamp_trunc(s.timestamp, minute) =" +
			" timestamp_trunc(timestamp_sub(current_timestamp(), interval r.j minute), minute)",
	} {
		q, err := Prepare(sql)
		require.NoError(t, err)
		for i := 0; i < 2; i++ {
			_, err := runQuery(store, q, nil, goldenNow)
			require.NoError(t, err, sql)
		}
		require.True(t, kept(q, nil), sql)
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; i < 20; i++ {
					// Events are a minute apart from base, and now is 30 s
					// after one of them: in the hour before now there are 60
					// of them, fewer near the ends.
					k := int64((w*53 + i*17) % 330)
					now := time.UnixMicro(base + k*int64(time.Minute/time.Microsecond) + 30e6)
					lo, hi := max(0, k-59), min(299, k)
					want := int64(0)
					if hi >= lo {
						want = hi - lo + 1
					}
					got, err := runQuery(store, q, nil, now)
					if !assertNoError(t, err) {
						return
					}
					if got != "n\n"+itoa(want)+"\n" {
						t.Errorf("%s at minute %d: got %q, want %d", sql, k, got, want)
						return
					}
				}
			}(w)
		}
		wg.Wait()
	}
}

func assertNoError(t *testing.T, err error) bool {
	if err != nil {
		t.Error(err)
		return false
	}
	return true
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

// TestKeptPlanTimeSubqueries: a subquery whose one row is made of the
// query's time, called again and again (the third call is the first that
// may use a kept plan), answers as the first did, shifted with the time.
func TestKeptPlanTimeSubqueries(t *testing.T) {
	store := logstore.New(logstore.Options{})
	for _, tc := range []struct{ sql, want, wantLater string }{
		{"select array(select current_timestamp()) as a",
			"a\n[2024-05-01 12:30:00 UTC]\n", "a\n[2024-05-01 13:30:00 UTC]\n"},
		{"with b as (select timestamp_sub(current_timestamp(), interval 1 hour) as s) select array(select s from b) as a",
			"a\n[2024-05-01 11:30:00 UTC]\n", "a\n[2024-05-01 12:30:00 UTC]\n"},
		{"select (select as struct current_timestamp() as t).t as t",
			"t\n2024-05-01 12:30:00 UTC\n", "t\n2024-05-01 13:30:00 UTC\n"},
	} {
		q, err := Prepare(tc.sql)
		require.NoError(t, err)
		for i := 0; i < 4; i++ {
			got, err := runQuery(store, q, nil, goldenNow)
			require.NoError(t, err, "%s, call %d", tc.sql, i+1)
			require.Equal(t, tc.want, got, "%s, call %d", tc.sql, i+1)
		}
		later, err := runQuery(store, q, nil, goldenNow.Add(time.Hour))
		require.NoError(t, err)
		require.Equal(t, tc.wantLater, later, tc.sql)
	}
}

// TestParamKeysAreDistinct: parameter values holding any bytes never give
// two different sets of values one key.
func TestParamKeysAreDistinct(t *testing.T) {
	used := []string{"a", "b"}
	sets := []map[string]string{
		{},
		{"a": ""},
		{"b": ""},
		{"a": "", "b": ""},
		{"a": "\x00\x01"},
		{"a": "", "b": "\x00"},
		{"a": "1:x"},
		{"a": "1", "b": "x"},
		{"a": "-"},
		{"a": "-", "b": "-"},
		{"a": "x", "c": "ignored"},
		{"a": "x"},
	}
	seen := map[string]int{}
	for i, s := range sets {
		k := paramKey(used, s)
		if j, ok := seen[k]; ok {
			// Only a parameter the query does not use may be told apart by nothing.
			require.Equal(t, "x", s["a"], "sets %d and %d share key %q", j, i, k)
			require.Equal(t, "x", sets[j]["a"])
			continue
		}
		seen[k] = i
	}
	require.Len(t, seen, len(sets)-1)
}
