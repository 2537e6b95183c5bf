package logstore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// An open segment keeps each block's time range for its rows in arrival
// order; a snapshot's copy does not move as rows arrive; sealing orders the
// rows by time and computes the ranges again.
func TestOpenSegmentBlockTimeRanges(t *testing.T) {
	st := New(Options{SegmentRows: 10_000})
	r := rand.New(rand.NewPCG(3, 4))
	base := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	var ts []int64 // arrival order
	add := func(n int) {
		var evs [][]byte
		for range n {
			// Nearly in time order, with some late arrivals.
			at := base.Add(time.Duration(len(ts)+len(evs)) * time.Second)
			if r.IntN(10) == 0 {
				at = at.Add(-time.Duration(r.IntN(5000)) * time.Second)
			}
			evs = append(evs, []byte(fmt.Sprintf(`{"timestamp":%q,"event_message":"m"}`, at.Format(time.RFC3339))))
			ts = append(ts, at.UnixMicro())
		}
		got, rej := st.Append("s", evs)
		require.Empty(t, rej)
		require.Equal(t, n, got)
	}
	want := func(times []int64, b int) (int64, int64) {
		blk := times[b*TimeBlock : min((b+1)*TimeBlock, len(times))]
		return slices.Min(blk), slices.Max(blk)
	}
	add(2500)
	snap := st.Snapshot("s")
	require.Len(t, snap.Segments, 1)
	open := snap.Segments[0]
	require.False(t, open.Sealed())
	check := func(seg *Segment, times []int64) {
		t.Helper()
		nb := (len(times) + TimeBlock - 1) / TimeBlock
		for b := range nb {
			lo, hi, ok := seg.BlockTimeRange(b)
			require.True(t, ok, "block %d", b)
			wlo, whi := want(times, b)
			require.Equal(t, [2]int64{wlo, whi}, [2]int64{lo, hi}, "block %d", b)
		}
		_, _, ok := seg.BlockTimeRange(nb)
		require.False(t, ok)
	}
	check(open, ts)
	// Rows arriving later (the last block grows, another starts) leave the
	// snapshot's ranges as they were.
	first := slices.Clone(ts)
	add(1000)
	check(open, first)
	check(st.Snapshot("s").Segments[0], ts)

	// Sealed: ranges over the rows in time order.
	require.NoError(t, st.Flush())
	sealed := st.Snapshot("s").Segments[0]
	require.True(t, sealed.Sealed())
	sorted := slices.Clone(ts)
	slices.Sort(sorted)
	check(sealed, sorted)
}
