package logstore

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/storage"
)

// A limit of n open files: a quarter (at least 16) for segment files, a
// quarter (at least 64) kept for connections, the rest for sources.
func TestDescriptorBudgets(t *testing.T) {
	for _, c := range []struct{ n, seg, sources int }{
		{300, 75, 300 - 75 - 75},
		{1024, 256, 1024 - 256 - 256},
		{100, 25, 100 - 25 - 64},
		{40, 16, 1},
	} {
		seg, src := descriptorBudgets(c.n)
		require.Equal(t, [2]int{c.seg, c.sources}, [2]int{seg, src}, "limit %d", c.n)
	}
	seg, src := descriptorBudgets(0)
	require.Greater(t, seg, 1000)
	require.Greater(t, src, DefaultMaxSources, "an unknown limit bounds nothing")
}

// A new source past the limit is refused with ErrTooManySources, naming the
// limit; sources already there keep taking events; a start loads every
// source it finds, even past a lower limit.
func TestTooManySources(t *testing.T) {
	ingest := func(st *Store, name string) error {
		_, _, err := st.Ingest(name, [][]byte{[]byte(`{"event_message":"x"}`)})
		return err
	}
	mem := New(Options{MaxSources: 3})
	for i := 0; i < 3; i++ {
		require.NoError(t, ingest(mem, fmt.Sprint("s", i)))
	}
	err := ingest(mem, "s3")
	require.True(t, errors.Is(err, storage.ErrTooManySources), "%v", err)
	require.ErrorContains(t, err, "limit of 3 sources")
	require.NoError(t, ingest(mem, "s1"))
	require.Len(t, mem.Names(), 3)

	dir := t.TempDir()
	st := openT(t, dir, Options{MaxSources: 3})
	for i := 0; i < 3; i++ {
		require.NoError(t, ingest(st, fmt.Sprint("s", i)))
	}
	require.ErrorIs(t, ingest(st, "s3"), storage.ErrTooManySources)
	require.NoError(t, st.Close())
	st = openT(t, dir, Options{MaxSources: 2})
	defer st.Close()
	require.Len(t, st.Names(), 3, "a start keeps what it finds")
	require.NoError(t, ingest(st, "s2"))
	require.ErrorIs(t, ingest(st, "s4"), storage.ErrTooManySources)
}

// At most MaxOpenFiles segment files are open at once: reading every
// column of every segment closes the least recently read ones and reopens
// them by path, and every value still reads right.
func TestOpenSegmentFilesStayWithinBudget(t *testing.T) {
	dir := t.TempDir()
	st := openT(t, dir, Options{SegmentRows: 2, MaxOpenFiles: 3, noMerge: true})
	var want []string
	for i := 0; i < 20; i++ {
		msg := fmt.Sprint("m", i)
		_, _, err := st.Ingest("s", [][]byte{[]byte(`{"event_message":"` + msg + `","n":` + fmt.Sprint(i) + `}`)})
		require.NoError(t, err)
		want = append(want, msg)
	}
	st.sealer.wait()
	require.NoError(t, st.Close())
	st = openT(t, dir, Options{SegmentRows: 2, MaxOpenFiles: 3, noMerge: true, noScrub: true})
	defer st.Close()
	open := func() int {
		n := 0
		for _, seg := range st.Snapshot("s").Segments {
			if d := seg.disk; d != nil {
				d.mu.Lock()
				if d.f != nil {
					n++
				}
				d.mu.Unlock()
			}
		}
		return n
	}
	require.LessOrEqual(t, open(), 3, "after a start")
	for round := 0; round < 2; round++ {
		require.ElementsMatch(t, want, column(st, "s", "event_message"))
		require.LessOrEqual(t, open(), 3)
		require.Len(t, column(st, "s", "n"), 20)
	}
}

// A segment whose file retention unlinks stays readable for a query that
// took its snapshot before, even when the budget had closed the file: it
// is reopened and pinned before the unlink.
func TestDroppedSegmentStaysReadableForItsSnapshot(t *testing.T) {
	dir := t.TempDir()
	// Ingested when they were recent (an event already older than the
	// retention is refused at ingest), then the clock moves on.
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	opts := Options{SegmentRows: 2, MaxOpenFiles: 1, Retention: 48 * time.Hour, Now: func() time.Time { return now }, noMerge: true}
	st := openT(t, dir, opts)
	defer st.Close()
	for _, day := range []int{1, 1, 2, 2, 9, 9} {
		_, _, err := st.Ingest("s", [][]byte{[]byte(fmt.Sprintf(`{"timestamp":"2026-05-%02dT00:00:00Z","event_message":"d%d"}`, day, day))})
		require.NoError(t, err)
	}
	now = time.Date(2026, 5, 10, 0, 0, 0, 0, time.UTC)
	st.sealer.wait()
	snap := st.Snapshot("s")
	require.Len(t, snap.Segments, 3)
	// Reading the newest closes the others' files (a budget of one).
	_, err := snap.Segments[2].Column("event_message")
	require.NoError(t, err)
	require.Equal(t, 4, st.EnforceRetention())
	for i, want := range []string{"d1", "d2"} {
		c, err := snap.Segments[i].Column("event_message")
		require.NoError(t, err, "segment %d", i)
		require.Equal(t, want, c.Str(0))
	}
}
