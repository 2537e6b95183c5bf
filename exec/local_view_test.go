package exec

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/logstore"
)

// A view's snapshots may be asked for at once (the plans of two per-row
// subqueries built by parallel workers): each source still gets one
// snapshot, the same for every caller (run under -race).
func TestViewSnapshotsConcurrently(t *testing.T) {
	store := logstore.New(logstore.Options{})
	for _, src := range []string{"a", "b"} {
		numbered(t, store, src, 1, func(int) string { return `"event_message":"x"` })
	}
	v := Local(store).View().(*localView)
	got := make([][]snapshot, 8)
	var wg sync.WaitGroup
	for w := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, src := range []string{"a", "b", "a", "b"} {
				got[w] = append(got[w], v.snapshot(src))
			}
		}()
	}
	wg.Wait()
	for _, g := range got {
		for i, s := range g {
			require.Same(t, got[0][i].failed, s.failed)
			require.Equal(t, len(got[0][i].Segments), len(s.Segments))
			require.Same(t, &got[0][i].Segments[0], &s.Segments[0], "one snapshot per source")
		}
	}
}
