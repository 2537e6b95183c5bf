package exec

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/logstore"
)

// A value predicate over a dictionary column is answered per entry, for
// every entry at once or only for those the rows in range hold (when they
// are fewer than half the dictionary): both give the rows a per-row filter
// gives. Here one sealed segment of 8192 events a second apart, with 3000
// URLs each held by two neighbours (so that the column stays a dictionary),
// read over windows from 10 s (lazy: 1024 rows of a block against 3000
// entries) to all of it (eager).
func TestValuePredicatesEagerAndLazy(t *testing.T) {
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	const n = 8192
	st := logstore.New(logstore.Options{SegmentRows: n})
	var evs [][]byte
	for i := 0; i < n; i++ {
		url := fmt.Sprintf("https://x/%d", i/2%3000)
		if i%1000 == 999 {
			url = "bad" // not a number after the prefix
		}
		evs = append(evs, []byte(fmt.Sprintf(`{"timestamp":%q,"url":%q,"n":%d}`, base.Add(time.Duration(i)*time.Second).Format(time.RFC3339), url, i)))
	}
	_, rej := st.Append("s", evs)
	require.Empty(t, rej)
	require.NoError(t, st.Flush())
	require.Len(t, st.Snapshot("s").Segments, 1)

	for _, window := range []int{10, 100, 3000, n} {
		from := n - window
		// Rows whose URL holds a 7, counted here from the events.
		want := 0
		for i := from; i < n; i++ {
			if i%1000 != 999 && strings.Contains(fmt.Sprint(i/2%3000), "7") {
				want++
			}
		}
		params := map[string]string{"from": base.Add(time.Duration(from) * time.Second).Format(time.RFC3339)}
		got, err := runGolden(st, "select count(*) as c from s where regexp_contains(url, '7') and timestamp >= timestamp(@from)", params)
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("c\n%d\n", want), got, "window %d", window)

		// A predicate that fails on an entry ("bad") fails the query only
		// when a row in range holds it: the two shortest windows hold none
		// (the entries of rows 999, 1999, … 7999 are in the segment's
		// dictionary all the same).
		if window <= 100 {
			got, err = runGolden(st, "select count(*) as c from s where cast(substr(url, 11) as int64) > 5 and timestamp >= timestamp(@from)", params)
			require.NoError(t, err, "window %d", window)
			require.Equal(t, fmt.Sprintf("c\n%d\n", window), got, "window %d", window)
		}
	}
	// A row that reaches it does fail it.
	_, err := runGolden(st, "select count(*) as c from s where cast(substr(url, 11) as int64) > 5 and timestamp >= timestamp('2026-03-01T02:13:10Z')", nil) // from row 7990: holds 7999
	require.ErrorContains(t, err, "cannot cast")
}

// A string predicate in a select list (COUNTIF's argument) over a
// dictionary column is answered once per entry of a segment
// (kernel_match.go): the counts are those counted here from the events,
// with rows whose path is absent (NULL, read as "" with some entry's
// code) first in each segment, so that an answer for "" kept under that
// code would show.
func TestPredicatesPerDictionaryEntry(t *testing.T) {
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	paths := []string{"/rest/v1/a", "/auth/v1/b", "/storage/v1/c", "/rest/v1/d", "/realtime/e"}
	const segRows = 1000
	st := logstore.New(logstore.Options{SegmentRows: segRows})
	var evs [][]byte
	wantRest, wantAuthLike, wantEmpty, wantNonNull := 0, 0, 0, 0
	for i := 0; i < 3*segRows; i++ {
		ts := base.Add(time.Duration(i) * time.Second).Format(time.RFC3339)
		if i%segRows < 10 {
			evs = append(evs, fmt.Appendf(nil, `{"timestamp":%q}`, ts))
			continue
		}
		p := paths[i*7%len(paths)]
		evs = append(evs, fmt.Appendf(nil, `{"timestamp":%q,"path":%q}`, ts, p))
		wantNonNull++
		if strings.Contains(p, "/rest") {
			wantRest++
		}
		if strings.HasPrefix(p, "/auth") {
			wantAuthLike++
		}
		if p == "" {
			wantEmpty++
		}
	}
	_, rej := st.Append("s", evs)
	require.Empty(t, rej)
	require.NoError(t, st.Flush())
	require.Len(t, st.Snapshot("s").Segments, 3)
	got, err := runGolden(st, `select countif(regexp_contains(path, '/rest')) as rest, countif(path like '/auth%') as auth,
		countif(regexp_contains(path, '^$')) as empty, countif(path like '%') as nonnull from s`, nil)
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("rest | auth | empty | nonnull\n%d | %d | %d | %d\n", wantRest, wantAuthLike, wantEmpty, wantNonNull), got)
}
