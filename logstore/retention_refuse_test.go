package logstore

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/event"
	"logq/storage"
)

// An event older than the retention is refused at ingest, stays refused
// when the WAL is replayed after a restart, and a reader of the feed (a
// drain, the tail) refuses it too: it is never stored or delivered. Both
// for a data directory and for a store in memory.
func TestOldEventsStayRefused(t *testing.T) {
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	opts := Options{Retention: 90 * 24 * time.Hour, Now: func() time.Time { return now }}
	evs := [][]byte{
		[]byte(`{"event_message":"old","timestamp":"2026-01-01T00:00:00Z"}`),
		[]byte(`{"event_message":"new","timestamp":"2026-12-05T11:00:00Z"}`),
	}
	check := func(t *testing.T, st *Store) {
		t.Helper()
		require.Equal(t, []string{"new"}, column(st, "s", "event_message"))
		recs, _, _, err := st.ReadFeed("s", storage.Pos{}, 100)
		require.NoError(t, err)
		var delivered []string
		for _, rec := range recs {
			for i, ev := range rec.Events {
				if _, _, msg, err := event.AppendBody(nil, ev, rec.Origin(i)); err == nil {
					delivered = append(delivered, msg)
				} else {
					require.ErrorIs(t, err, event.ErrTooOld)
				}
			}
		}
		require.Equal(t, []string{"new"}, delivered)
	}
	ingest := func(t *testing.T, st *Store) {
		acc, rej, err := st.Ingest("s", evs)
		require.NoError(t, err)
		require.Equal(t, 1, acc)
		require.Len(t, rej, 1)
		require.Equal(t, 0, rej[0].Index)
		require.True(t, rej[0].TooOld)
	}

	t.Run("data directory", func(t *testing.T) {
		dir := t.TempDir()
		st := openT(t, dir, opts)
		ingest(t, st)
		check(t, st)
		require.NoError(t, st.Close())
		// A day later the replay measures from the chunk's arrival, not
		// the clock: the same event is refused, the same one kept.
		now = now.Add(24 * time.Hour)
		st = openT(t, dir, opts)
		defer st.Close()
		check(t, st)
	})
	t.Run("memory", func(t *testing.T) {
		st := New(opts)
		st.FeedHead("s") // a memory feed keeps chunks from its first reader on
		ingest(t, st)
		check(t, st)
	})
}
