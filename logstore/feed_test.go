package logstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/storage"
)

// feedEvent is the i-th event of a feed test, identified by its id.
func feedEvent(i int) []byte {
	return []byte(fmt.Sprintf(`{"id":"e%d","timestamp":"2024-05-01T10:00:00Z","event_message":"m%d"}`, i, i))
}

// ingestN ingests events from..to-1 into src, k per request.
func ingestN(t *testing.T, st *Store, src string, from, to, k int) {
	t.Helper()
	for i := from; i < to; i += k {
		var evs [][]byte
		for j := i; j < min(i+k, to); j++ {
			evs = append(evs, feedEvent(j))
		}
		_, rej, err := st.Ingest(src, evs)
		require.NoError(t, err)
		require.Empty(t, rej)
	}
}

// readFeedIDs reads src's feed from pos to its head and returns the events'
// ids in order, the position reached and the events counted lost.
func readFeedIDs(t *testing.T, st *Store, src string, pos storage.Pos) ([]string, storage.Pos, int64) {
	t.Helper()
	var ids []string
	var lost int64
	for i := 0; i < 10000; i++ {
		recs, next, l, err := st.ReadFeed(src, pos, 7)
		require.NoError(t, err)
		lost += l
		for _, r := range recs {
			for _, ev := range r.Events {
				rest := strings.TrimPrefix(string(ev), `{"id":"`)
				ids = append(ids, rest[:strings.IndexByte(rest, '"')])
			}
		}
		if len(recs) == 0 && next == pos {
			return ids, next, lost // at the head
		}
		require.True(t, pos.Less(next), "the position moves forward")
		pos = next
	}
	t.Fatal("the feed never ended")
	return nil, pos, 0
}

func wantIDs(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("e%d", i))
	}
	return out
}

// The durable feed is the WAL: every acknowledged event in order, across
// segments, from any position; without a reader holding them, sealed
// segments' WAL files are deleted as before.
func TestDurableFeedReadsTheWAL(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(dir, Options{SegmentRows: 10, noMerge: true})
	require.NoError(t, err)
	defer st.Close()
	start := st.FeedHead("s")
	require.Equal(t, storage.Pos{}, start, "no source yet")
	ingestN(t, st, "s", 0, 6, 3) // two chunks in segment 1
	head := st.FeedHead("s")
	ids, pos, lost := readFeedIDs(t, st, "s", storage.Pos{Seq: 1})
	require.Equal(t, wantIDs(0, 6), ids)
	require.Equal(t, head, pos)
	require.Zero(t, lost)
	ingestN(t, st, "s", 6, 9, 3)
	ids, pos2, _ := readFeedIDs(t, st, "s", pos)
	require.Equal(t, wantIDs(6, 9), ids, "from where the last read ended")
	// Past the segment size: segment 1 seals, its WAL file goes (nobody
	// holds it), and the feed goes on in the next file.
	ingestN(t, st, "s", 9, 30, 3)
	st.sealer.wait()
	_, err = os.Stat(walPath(filepath.Join(dir, "sources", "s"), 1))
	require.True(t, os.IsNotExist(err), "an unheld WAL file is deleted at its seal")
	// Nobody held segments 1 and 2 (events 0..23): a reader left in them
	// goes on in the open segment's file.
	ids, _, _ = readFeedIDs(t, st, "s", pos2)
	require.Equal(t, wantIDs(24, 30), ids)
}

// A reader's hold keeps the WAL files it still needs in the spool, across
// a restart; once it has passed them they go.
func TestHeldWALFilesAreSpooled(t *testing.T) {
	dir := t.TempDir()
	holds := storage.NewHolds()
	holds.Set("s", "drain-1", storage.Pos{Seq: 1})
	st, err := Open(dir, Options{SegmentRows: 10, noMerge: true, Holds: holds})
	require.NoError(t, err)
	ingestN(t, st, "s", 0, 45, 5)
	st.sealer.wait()
	spooled := st.spooled()
	require.NotEmpty(t, spooled, "the sealed segments' WAL files wait in the spool")
	require.Positive(t, st.spoolBytes.Load())
	require.NoError(t, st.Close())

	st, err = Open(dir, Options{SegmentRows: 10, noMerge: true, Holds: holds})
	require.NoError(t, err)
	defer st.Close()
	require.Len(t, st.spooled(), len(spooled), "a start leaves the spool alone")
	backlog, err := st.FeedBacklog("s", storage.Pos{Seq: 1})
	require.NoError(t, err)
	require.Equal(t, int64(45), backlog)
	ids, pos, lost := readFeedIDs(t, st, "s", storage.Pos{Seq: 1})
	require.Equal(t, wantIDs(0, 45), ids, "every event, from the spool and the live files")
	backlog, err = st.FeedBacklog("s", pos)
	require.NoError(t, err)
	require.Zero(t, backlog)
	require.Zero(t, lost)
	holds.Set("s", "drain-1", pos)
	st.TrimSpool()
	require.Empty(t, st.spooled(), "passed files go")
	require.Zero(t, st.spoolBytes.Load())
}

// A seal moves a held WAL file to the spool while a reader may be about to
// open it in the source's directory: the reader finds it in the spool and
// reads it, rather than taking it as dropped and skipping its events.
func TestFeedFollowsAFileMovedToTheSpool(t *testing.T) {
	dir := t.TempDir()
	holds := storage.NewHolds()
	holds.Set("s", "drain-1", storage.Pos{Seq: 1})
	st, err := Open(dir, Options{SegmentRows: 10, noMerge: true, Holds: holds})
	require.NoError(t, err)
	defer st.Close()
	ingestN(t, st, "s", 0, 15, 5)
	st.sealer.wait()
	// File 1 is sealed and spooled. Put it back where it was before the
	// seal moved it, and have the move happen right before the reader's
	// open, as it can.
	live, spooled := walPath(filepath.Join(dir, "sources", "s"), 1), walPath(st.spoolDir("s"), 1)
	require.NoError(t, os.Rename(spooled, live))
	moved := 0
	testHookWALOpen = func(path string) {
		if path == live && moved == 0 {
			moved++
			require.NoError(t, os.Rename(live, spooled))
		}
	}
	defer func() { testHookWALOpen = func(string) {} }()
	ids, _, lost := readFeedIDs(t, st, "s", storage.Pos{Seq: 1})
	require.Equal(t, 1, moved, "the file moved between the reader's look and its open")
	require.Equal(t, wantIDs(0, 15), ids)
	require.Zero(t, lost)

	// The backlog (a drain's lag) counts it the same way.
	require.NoError(t, os.Rename(spooled, live))
	moved = 0
	backlog, err := st.FeedBacklog("s", storage.Pos{Seq: 1})
	require.NoError(t, err)
	require.Equal(t, 1, moved)
	require.Equal(t, int64(15), backlog)
}

// The disk budget drops spooled files like segments, oldest first, and
// counts their events as lost to the readers that still needed them.
func TestDiskBudgetDropsSpooledFilesCountingTheLoss(t *testing.T) {
	dir := t.TempDir()
	holds := storage.NewHolds()
	holds.Set("s", "behind", storage.Pos{Seq: 1})
	st, err := Open(dir, Options{SegmentRows: 10, noMerge: true, Holds: holds})
	require.NoError(t, err)
	defer st.Close()
	ingestN(t, st, "s", 0, 40, 10) // segments 1..4 sealed, 10 events each
	st.sealer.wait()
	require.Len(t, st.spooled(), 4)
	st.opts.MaxDiskBytes = 1 // everything must go that can
	st.enforceDisk()
	require.Empty(t, st.spooled())
	require.Equal(t, int64(40), holds.TakeLost("s", "behind"), "the events of every dropped file")
	ids, _, _ := readFeedIDs(t, st, "s", storage.Pos{Seq: 1})
	require.Empty(t, ids, "nothing left to read: the open segment is empty")
}

// A reader told of a head that moved wakes up.
func TestFeedChangedWakesReaders(t *testing.T) {
	for _, durable := range []bool{true, false} {
		t.Run(fmt.Sprint("durable=", durable), func(t *testing.T) {
			var st *Store
			if durable {
				var err error
				st, err = Open(t.TempDir(), Options{})
				require.NoError(t, err)
				defer st.Close()
			} else {
				st = New(Options{})
			}
			ch := st.FeedChanged()
			go func() { ingestN(t, st, "s", 0, 1, 1) }()
			select {
			case <-ch:
			case <-time.After(10 * time.Second):
				t.Fatal("no wake-up")
			}
		})
	}
}

// A store in memory feeds from a ring of recent chunks, kept from its
// first ingest (a reader from the start sees what came before it), within
// its budget (older chunks are lost, counted).
func TestMemoryFeedIsARing(t *testing.T) {
	st := New(Options{FeedBytes: 2000})
	ingestN(t, st, "s", 0, 3, 3) // before anyone reads: kept all the same
	ids, _, lost := readFeedIDs(t, st, "s", storage.Pos{})
	require.Equal(t, wantIDs(0, 3), ids)
	require.Zero(t, lost)
	start := st.FeedHead("s")
	ingestN(t, st, "s", 3, 6, 3)
	backlog, err := st.FeedBacklog("s", start)
	require.NoError(t, err)
	require.Equal(t, int64(3), backlog)
	ids, pos, lost := readFeedIDs(t, st, "s", start)
	require.Equal(t, wantIDs(3, 6), ids)
	require.Zero(t, lost)
	ingestN(t, st, "s", 6, 60, 3) // about 70 bytes an event: past the budget
	ids, _, lost = readFeedIDs(t, st, "s", pos)
	require.Equal(t, int64(54), lost+int64(len(ids)), "every event is read or counted lost")
	require.Positive(t, lost)
	require.Equal(t, wantIDs(60-len(ids), 60), ids, "the newest are kept")
}
