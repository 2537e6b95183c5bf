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
		st := logstore.New(logstore.Options{SegmentRows: segRows, Retention: 7 * day, Now: func() time.Time { return now }})
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
		got, err := runGolden(st, "select event_message from s order by event_message", nil)
		require.NoError(t, err)
		require.Equal(t, "event_message\n"+strings.Join(sorted(want), "\n")+"\n", got, "segment rows %d", segRows)
		got, err = runGolden(st, "select count(*) as n from s", nil)
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("n\n%d\n", len(want)), got)
		// The query's own range still applies within the retained rows.
		res, err := Run(context.Background(), st, mustPrepare(t, "select count(*) from s where timestamp > @t"),
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
