package exec

import (
	"fmt"
	"testing"

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
