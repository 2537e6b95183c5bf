package exec

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/logstore"
	"logq/planner"
)

// shares deals the segments that meet a scan's time range out to workers in
// turn, and leaves small or single-segment scans to one worker.
func TestShares(t *testing.T) {
	st := logstore.New(logstore.Options{SegmentRows: 1000})
	// 8 sealed segments of 1000 rows, one second apart, then 400 rows in
	// the open segment: segment k holds seconds [1000k, 1000k+999].
	numbered(t, st, "src", 8400, func(i int) string { return `"event_message":"m"` })
	require.NoError(t, st.Flush())
	snap := snapshot{Snapshot: st.Snapshot("src")}
	require.Len(t, snap.Segments, 9)
	base := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	sec := func(i int) int64 { return base + int64(i)*1e6 }
	scan := func(lo, hi int64) *planner.Scan { return &planner.Scan{TimeLo: lo, TimeHi: hi} }
	all := scan(math.MinInt64, math.MaxInt64)

	// At the production threshold 8400 rows are one worker's.
	defer func(v int) { minParallelRows = v }(minParallelRows)
	minParallelRows = 16 * logstore.TimeBlock
	require.Nil(t, shares(all, snap, 2))
	minParallelRows = 8000
	require.NotNil(t, shares(all, snap, 2))
	require.Nil(t, shares(all, snap, 1), "one worker")
	require.Nil(t, shares(scan(sec(2100), sec(2900)), snap, 2), "one segment in range")
	require.Nil(t, shares(&planner.Scan{TimeLo: math.MinInt64, TimeHi: math.MaxInt64, Empty: true}, snap, 2))

	minParallelRows = 0
	// Every segment once, each worker's in snapshot order, loads within
	// one segment of each other.
	parts := shares(all, snap, 2)
	require.Len(t, parts, 2)
	var got []int
	load := make([]int, 2)
	for w, p := range parts {
		require.True(t, slices.IsSorted(p))
		got = append(got, p...)
		for _, i := range p {
			load[w] += snap.Segments[i].Rows()
		}
	}
	slices.Sort(got)
	require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, got)
	require.InDelta(t, load[0], load[1], 1000)

	// A window over seconds 2500–4100 meets segments 2, 3 and 4 only, and
	// gives each worker some of them.
	parts = shares(scan(sec(2500), sec(4100)), snap, 2)
	require.Len(t, parts, 2)
	got = append(append([]int(nil), parts[0]...), parts[1]...)
	slices.Sort(got)
	require.Equal(t, []int{2, 3, 4}, got)

	// More workers than segments in range: one worker per segment.
	parts = shares(scan(sec(2500), sec(3500)), snap, 4)
	require.Equal(t, [][]int{{2}, {3}}, sortedParts(parts))
}

func sortedParts(parts [][]int) [][]int {
	slices.SortFunc(parts, func(a, b []int) int { return a[0] - b[0] })
	return parts
}
