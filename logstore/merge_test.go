package logstore

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// smallSegments ingests batches with a flush after each, so that every batch
// is a small sealed segment; a field changes type on the way (INT64, then
// FLOAT64, then STRING) and another appears late.
func smallSegments(t *testing.T, st *Store) {
	for b := 0; b < 12; b++ {
		var batch [][]byte
		for i := 0; i < 20; i++ {
			x := fmt.Sprint(b*100 + i)
			switch {
			case b >= 8:
				x = fmt.Sprintf("%q", "s"+x)
			case b >= 4:
				x += ".5"
			}
			ev := fmt.Sprintf(`{"id":"i%d-%d","timestamp":%d,"event_message":"b%d-%d","x":%s,"meta":{"k":"v%d"}`, b, i, 1_700_000_000_000_000+int64((b*20+i)*7%240)*1000, b, i, x, i%3)
			if b >= 6 {
				ev += fmt.Sprintf(`,"late":[%d]`, i)
			}
			batch = append(batch, []byte(ev+"}"))
		}
		_, _, err := st.Ingest("s", batch)
		require.NoError(t, err)
		require.NoError(t, st.Flush())
	}
}

func sortedRows(st *Store) []string {
	r := rows(st, "s")
	sort.Strings(r)
	return r
}

func TestMergeKeepsEveryRow(t *testing.T) {
	mem := New(Options{SegmentRows: 100})
	smallSegments(t, mem)
	want := sortedRows(mem)
	require.Len(t, want, 240)

	dir := t.TempDir()
	st := openT(t, dir, Options{SegmentRows: 100})
	smallSegments(t, st)
	st.bg.Wait()
	segs := st.Snapshot("s").Segments
	require.Less(t, len(segs), 12, "small segments were merged")
	require.Positive(t, st.MergeStats().Merges)
	require.Equal(t, want, sortedRows(st))
	ms := st.MergeStats()
	t.Logf("%d merges; write amplification %.2f (bytes merged / bytes sealed)", ms.Merges, float64(ms.BytesMerged)/float64(ms.BytesSealed))
	require.NoError(t, st.Close())

	st = openT(t, dir, Options{SegmentRows: 100})
	defer st.Close()
	st.bg.Wait()
	require.Equal(t, want, sortedRows(st))
	require.Zero(t, st.Recovery().Missing, "merged numbers are covered, not missing")
	files, _ := filepath.Glob(filepath.Join(dir, "sources", "s", "seg-*"))
	require.Len(t, files, len(st.Snapshot("s").Segments), "no file outlives its segment")
}

// A crash between a merged file's rename and the removal of the files it
// replaces leaves both on disk: start-up keeps the merged one only.
func TestMergeCrashLeavesNoDuplicates(t *testing.T) {
	dir := t.TempDir()
	st := openT(t, dir, Options{SegmentRows: 100, noMerge: true})
	smallSegments(t, st)
	want := sortedRows(st)
	require.NoError(t, st.Close())
	srcDir := filepath.Join(dir, "sources", "s")
	before, _ := filepath.Glob(filepath.Join(srcDir, "seg-*.lqs"))
	require.Len(t, before, 12)
	saved := map[string][]byte{}
	for _, f := range before {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		saved[f] = b
	}

	st = openT(t, dir, Options{SegmentRows: 100}) // merges what it finds
	st.bg.Wait()
	require.Positive(t, st.MergeStats().Merges)
	require.NoError(t, st.Close())
	// Put back every replaced file, as if the crash came before removals.
	restored := 0
	for f, b := range saved {
		if _, err := os.Stat(f); os.IsNotExist(err) {
			require.NoError(t, os.WriteFile(f, b, 0o644))
			restored++
		}
	}
	require.Positive(t, restored)
	st = openT(t, dir, Options{SegmentRows: 100, noMerge: true})
	defer st.Close()
	require.Equal(t, want, sortedRows(st), "no row twice")
	for f := range saved {
		if _, err := os.Stat(f); err == nil {
			continue
		}
		restored--
	}
	require.Zero(t, restored, "the replaced files are deleted again")
}

// Queries keep reading while merges replace and delete files.
func TestMergeWhileReading(t *testing.T) {
	st := openT(t, t.TempDir(), Options{SegmentRows: 100, CacheBytes: 1})
	defer st.Close()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, line := range rows(st, "s") {
					if !strings.Contains(line, "event_message=b") {
						t.Errorf("bad row %q", line)
						return
					}
				}
			}
		}()
	}
	smallSegments(t, st)
	st.bg.Wait()
	close(stop)
	wg.Wait()
	require.Len(t, rows(st, "s"), 240)
}

// Merging two small segments, one of which holds a late wide event, stores
// only the wide event's own values for its columns (found by review: the
// merge filled every row of every late column before sealing trimmed it).
func TestMergeOfALateWideEventIsBounded(t *testing.T) {
	dir := t.TempDir()
	st := openT(t, dir, Options{})
	defer st.Close()
	part := func(from int) [][]byte {
		var b [][]byte
		for i := from; i < from+12000; i++ {
			b = append(b, []byte(fmt.Sprintf(`{"event_message":"m%d","timestamp":%d}`, i, 1_700_000_000_000_000+int64(i))))
		}
		return b
	}
	st.Append("s", part(0))
	require.NoError(t, st.Flush())
	st.sealer.wait()
	var wide strings.Builder
	wide.WriteString(`{"event_message":"wide","timestamp":1700000000030000`)
	for k := 0; k < 400; k++ {
		fmt.Fprintf(&wide, `,"k%03d":%d.5`, k, k)
	}
	wide.WriteString(`}`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	st.Append("s", append(part(12000), []byte(wide.String())))
	require.NoError(t, st.Flush())
	st.sealer.wait()
	st.bg.Wait() // the merge the seal started
	runtime.ReadMemStats(&after)
	require.Equal(t, int64(1), st.MergeStats().Merges, "the two small segments were merged")
	segs := st.Snapshot("s").Segments
	require.Len(t, segs, 1)
	require.Equal(t, 24001, segs[0].Rows())
	// 24,001 rows × 400 float columns would be 77 MB of placeholders.
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(32<<20))
	snap := st.Snapshot("s")
	f, ok := snap.Schema.Lookup("k007")
	require.True(t, ok)
	require.Equal(t, "7.5", mustValue(segs[0], f, 24000).String())
	require.True(t, mustValue(segs[0], f, 23999).Null)
}

// A merge asked for while a pass is ending (it found nothing to do, but
// has not let go of the source yet) is not lost: the pass runs once more.
func TestMergeRequestDuringAPassIsKept(t *testing.T) {
	dir := t.TempDir()
	var st *Store
	asked := false
	returned := make(chan struct{}, 16)
	opts := Options{SegmentRows: 100}
	opts.onMergeReturn = func() { returned <- struct{}{} }
	opts.onMergePassEnd = func() {
		if asked {
			return
		}
		asked = true
		// A second small segment is sealed, and its merge asked for (by the
		// seal, on a goroutine of its own), while this pass still holds the
		// source; the request has been turned away before the pass ends.
		if _, _, err := st.Ingest("s", [][]byte{[]byte(`{"event_message":"b"}`)}); err != nil {
			t.Error(err)
		}
		if err := st.Flush(); err != nil {
			t.Error(err)
		}
		<-returned
	}
	st = openT(t, dir, opts)
	defer st.Close()
	_, _, err := st.Ingest("s", [][]byte{[]byte(`{"event_message":"a"}`)})
	require.NoError(t, err)
	require.NoError(t, st.Flush()) // one small segment: its pass finds nothing
	st.bg.Wait()
	require.True(t, asked)
	require.Eventually(t, func() bool { return len(st.Snapshot("s").Segments) == 1 }, 5*time.Second, time.Millisecond,
		"the two small segments were merged")
	require.Equal(t, []string{"a", "b"}, sortedColumn(st, "event_message"))
}

func sortedColumn(st *Store, name string) []string {
	c := column(st, "s", name)
	sort.Strings(c)
	return c
}
