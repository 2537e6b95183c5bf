package exec

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/logstore"
)

// A field an equality predicate pins (project = 'x') is output as the
// predicate's value without reading it row by row; the rows and the values
// are those of the data, from dictionary and plain columns alike, and a
// field read next to it keeps its own values.
func TestScanEqualityFieldReadsItsValue(t *testing.T) {
	st := logstore.New(logstore.Options{SegmentRows: 500})
	projectOf := func(i int) string {
		if i >= 500 && i < 1000 && i%3 != 0 { // a plain column: values nearly unique
			return fmt.Sprintf("project-%06d-with-a-long-unique-suffix", i)
		}
		return fmt.Sprintf("p%d", i%4)
	}
	numbered(t, st, "src", 1700, func(i int) string {
		return fmt.Sprintf(`"project":%q,"other":"o%d","i":%d`, projectOf(i), i%5, i)
	})
	for _, want := range []string{"p1", "p3", "project-000502-with-a-long-unique-suffix"} {
		var wantRows []string
		for i := 0; i < 1700; i++ {
			if projectOf(i) == want {
				wantRows = append(wantRows, fmt.Sprintf("%s o%d %d", want, i%5, i))
			}
		}
		res, err := runSQL(t, st, fmt.Sprintf("select project, other, i from src where project = '%s' order by i", want), 0)
		require.NoError(t, err)
		var got []string
		for _, r := range res.Rows {
			got = append(got, fmt.Sprintf("%s %s %d", r[0].S, r[1].S, r[2].I))
		}
		require.Equal(t, wantRows, got)
	}
}

// An equality on a field that was INT64 in an older segment and STRING
// later compares the older values as the text a query reads them as (found
// by review: the INT64 column was read as strings, an internal error).
func TestScanEqualityOnAWidenedField(t *testing.T) {
	st := logstore.New(logstore.Options{SegmentRows: 10})
	numbered(t, st, "src", 30, func(i int) string {
		if i < 10 {
			return fmt.Sprintf(`"k":%d,"i":%d`, i%3, i)
		}
		return fmt.Sprintf(`"k":"%d","i":%d`, i%3, i)
	})
	var want []string
	for i := 1; i < 30; i += 3 {
		want = append(want, fmt.Sprintf("1 %d", i))
	}
	res, err := runSQL(t, st, "select k, i from src where k = '1' order by i", 0)
	require.NoError(t, err)
	var got []string
	for _, r := range res.Rows {
		got = append(got, fmt.Sprintf("%s %d", r[0].S, r[1].I))
	}
	require.Equal(t, want, got)
}

// A time window over an open segment whose rows arrive nearly, not wholly,
// in time order (its block ranges are kept in arrival order) counts exactly
// the rows inside it.
func TestWindowOverOpenSegment(t *testing.T) {
	st := logstore.New(logstore.Options{SegmentRows: 10_000})
	r := rand.New(rand.NewPCG(5, 6))
	base := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	var evs [][]byte
	var ts []time.Time
	for i := range 5000 {
		at := base.Add(time.Duration(i) * time.Second)
		if r.IntN(20) == 0 {
			at = at.Add(-time.Duration(r.IntN(3000)) * time.Second) // a late arrival
		}
		ts = append(ts, at)
		evs = append(evs, []byte(fmt.Sprintf(`{"timestamp":%q,"event_message":"m%d"}`, at.Format(time.RFC3339), i)))
	}
	_, rej := st.Append("s", evs)
	require.Empty(t, rej)
	require.False(t, st.Snapshot("s").Segments[0].Sealed())
	for _, w := range [][2]int{{0, 5000}, {1000, 1100}, {4000, 5000}, {2047, 2049}, {100, 4100}} {
		from, to := base.Add(time.Duration(w[0])*time.Second), base.Add(time.Duration(w[1])*time.Second)
		want := 0
		for _, at := range ts {
			if !at.Before(from) && at.Before(to) {
				want++
			}
		}
		sql := fmt.Sprintf("select count(*) as n from s where timestamp >= timestamp '%s' and timestamp < timestamp '%s'",
			from.Format(time.RFC3339), to.Format(time.RFC3339))
		res, err := runSQL(t, st, sql, 0)
		require.NoError(t, err)
		require.Equal(t, int64(want), res.Rows[0][0].I, "window %v", w)
	}
}
