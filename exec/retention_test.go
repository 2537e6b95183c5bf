package exec

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/logstore"
)

// Rows older than the retention are never returned, whatever shares their
// segment: the open one, or a sealed one that a future-dated event keeps.
func TestRetentionHidesExpiredRows(t *testing.T) {
	now := time.Date(2026, 6, 10, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	for _, segRows := range []int{4, 1000} { // sealed segments, then all in the open one
		// Ingested 90 days ago, when every event was recent (one already
		// older than the retention is refused at ingest); read now.
		clock := now.Add(-90 * day)
		st := logstore.New(logstore.Options{SegmentRows: segRows, Retention: 7 * day, Now: func() time.Time { return clock }})
		var evs [][]byte
		var want []string
		recent := 0 // newer than two days ago
		// Ages: negative is in the future; mixed within segments. An event
		// exactly 7 days and 1 minute old is expired; 6 days 23:59 is kept.
		ages := []time.Duration{30 * day, day, 7*day + time.Minute, -400 * day, 6 * day, 10 * day,
			2*day - time.Minute, 7*day - time.Minute, 90 * day, 0, 3 * day, 6 * day}
		for i, age := range ages {
			ts := now.Add(-age)
			evs = append(evs, []byte(fmt.Sprintf(`{"timestamp":%q,"event_message":"e%d"}`, ts.Format(time.RFC3339Nano), i)))
			if age <= 7*day {
				want = append(want, fmt.Sprintf("e%d", i))
			}
			if age < 2*day {
				recent++
			}
		}
		_, rej := st.Append("s", evs)
		require.Empty(t, rej)
		clock = now
		got, err := runGolden(st, "select event_message from s order by event_message", nil)
		require.NoError(t, err)
		require.Equal(t, "event_message\n"+strings.Join(sorted(want), "\n")+"\n", got, "segment rows %d", segRows)
		got, err = runGolden(st, "select count(*) as n from s", nil)
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("n\n%d\n", len(want)), got)
		// The query's own range still applies within the retained rows.
		res, err := Run(context.Background(), Local(st), mustPrepare(t, "select count(*) from s where timestamp > @t"),
			Request{Params: map[string]string{"t": now.Add(-2 * day).Format(time.RFC3339)}, Now: now})
		require.NoError(t, err)
		require.Equal(t, int64(recent), res.Rows[0][0].I)
	}
}

func mustPrepare(t *testing.T, sql string) *Query {
	q, err := Prepare(sql)
	require.NoError(t, err)
	return q
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// A WHERE conjunct answered per dictionary entry must not fail on an entry
// that only an expired row holds: here a correlated scalar subquery whose
// key has two rows, which no row of the table reads (found by review).
func TestValuePredicateFailsOnlyForRowsThatReachIt(t *testing.T) {
	now := time.Date(2026, 6, 10, 0, 0, 0, 0, time.UTC)
	clock := now.Add(-30 * 24 * time.Hour) // ingested when e0 was new
	st := logstore.New(logstore.Options{SegmentRows: 3, Retention: 7 * 24 * time.Hour, Now: func() time.Time { return clock }})
	ev := func(age time.Duration, body string) []byte {
		return []byte(fmt.Sprintf(`{"timestamp":%q,%s}`, now.Add(-age).Format(time.RFC3339), body))
	}
	day := 24 * time.Hour
	_, rej := st.Append("events", [][]byte{
		ev(30*day, `"id":"e0","tag":"u2"`), // expired: not in the table
		ev(day, `"id":"e1","tag":"u1"`),
		ev(day, `"id":"e2","tag":"u1"`),
	})
	require.Empty(t, rej)
	_, rej = st.Append("people", [][]byte{
		ev(day, `"uid":"u1","score":1`),
		ev(day, `"uid":"u2","score":2`),
		ev(day, `"uid":"u2","score":3`),
	})
	require.Empty(t, rej)
	clock = now
	ids := func(sql string) ([]string, error) {
		res, err := Run(context.Background(), Local(st), mustPrepare(t, sql), Request{Now: now})
		if err != nil {
			return nil, err
		}
		var out []string
		for _, r := range res.Rows {
			out = append(out, r[0].S)
		}
		return out, nil
	}
	got, err := ids("select id from events as e where (select p.score from people as p where p.uid = e.tag) = 1 order by id")
	require.NoError(t, err)
	require.Equal(t, []string{"e1", "e2"}, got)
	// Once a live row reads the duplicated key, the query fails.
	_, rej = st.Append("events", [][]byte{ev(day, `"id":"e3","tag":"u2"`)})
	require.Empty(t, rej)
	_, err = ids("select id from events as e where (select p.score from people as p where p.uid = e.tag) = 1 order by id")
	require.ErrorContains(t, err, "more than one element")
}
