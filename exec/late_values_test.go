package exec

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/logstore"
)

// TestLateValuesInBatches: a lazy vector read for a whole batch (the
// references out of order, across segments, some rows NULL) gives each
// row the value a read of that row alone gives, in the row's place.
func TestLateValuesInBatches(t *testing.T) {
	store := logstore.New(logstore.Options{SegmentRows: 3})
	var evs [][]byte
	for i := 0; i < 10; i++ {
		switch i % 3 {
		case 0:
			evs = append(evs, fmt.Appendf(nil, `{"event_message":"m%d","metadata":{"n":%d,"req":{"path":"/p%d"}}}`, i, i, i))
		case 1:
			evs = append(evs, fmt.Appendf(nil, `{"event_message":"m%d","metadata":{"n":%d}}`, i, i))
		default:
			evs = append(evs, fmt.Appendf(nil, `{"event_message":"m%d"}`, i)) // no metadata: NULL
		}
	}
	_, rej := store.Append("s", evs)
	require.Empty(t, rej)
	snap := store.Snapshot("s")
	require.Greater(t, len(snap.Segments), 2)
	f, ok := snap.Schema.Lookup("metadata")
	require.True(t, ok)
	l := &lazyField{rows: localRows(snap.Segments), field: f, failed: &readFailure{}}

	// Every row of every segment, newest segment first and each
	// segment's rows backwards, with two rows NULL in the vector.
	var refs []int64
	for s := len(snap.Segments) - 1; s >= 0; s-- {
		for r := snap.Segments[s].Rows() - 1; r >= 0; r-- {
			refs = append(refs, lazyRef(s, r))
		}
	}
	// Read without NULL rows first: the records are those written.
	all := (&Vector{T: f.Type, I: refs, Lazy: l}).lateValues(len(refs))
	var gotSet, wantSet []string
	for _, x := range all {
		gotSet = append(gotSet, x.String())
	}
	for i := 0; i < 10; i++ {
		wantSet = append(wantSet, [3]string{
			fmt.Sprintf("[{n: %d, req: [{path: /p%d}]}]", i, i),
			fmt.Sprintf("[{n: %d, req: NULL}]", i),
			"NULL",
		}[i%3])
	}
	require.ElementsMatch(t, wantSet, gotSet)

	// With two rows NULL in the vector: those read NULL, every other row
	// reads what it read before, and what a read of it alone gives.
	v := &Vector{T: f.Type, I: refs, Lazy: l, Null: make([]bool, len(refs))}
	v.Null[1], v.Null[4] = true, true
	got := v.lateValues(len(refs))
	require.Len(t, got, len(refs))
	for i, ref := range refs {
		if v.Null[i] {
			require.True(t, got[i].Null, "row %d", i)
			continue
		}
		require.Equal(t, all[i].String(), got[i].String(), "row %d", i)
		require.Equal(t, l.value(ref).String(), got[i].String(), "row %d", i)
	}
	require.NoError(t, l.failed.get())
}
