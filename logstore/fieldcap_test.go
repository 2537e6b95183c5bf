package logstore

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/event"
)

// fieldValue reads one row's value of a field path as text.
func fieldValue(st *Store, source, path string, row int) (string, bool) {
	snap := st.Snapshot(source)
	f, ok := snap.Schema.Lookup(path)
	if !ok {
		return "", false
	}
	for _, seg := range snap.Segments {
		if row < seg.Rows() {
			v := mustValue(seg, f, row)
			return v.S, !v.Null
		}
		row -= seg.Rows()
	}
	return "", false
}

func TestFieldCapKeepsEveryKeyInOverflow(t *testing.T) {
	for _, durable := range []bool{false, true} {
		dir := t.TempDir()
		opts := Options{MaxFields: 12, SegmentRows: 2}
		st := New(opts)
		if durable {
			st = openT(t, dir, opts)
		}
		// Event 0 makes a, b, metadata, metadata.x, metadata.y, then the
		// fixed timestamp, id, event_message: 8 fields. Event 1 makes c, d,
		// metadata.z and metadata.w (12, the cap); metadata.v, e, f and the
		// whole object g overflow, while a, b and metadata.x still take
		// values.
		evs := [][]byte{
			[]byte(`{"event_message":"e0","a":1,"b":"x","metadata":{"x":1,"y":"q"}}`),
			[]byte(`{"event_message":"e1","a":2,"c":true,"d":1.5,"metadata":{"x":2,"z":"zz","w":[1,2],"v":{"deep":"yes"}},"e":"ok","f":"late","g":{"h":1},"b":"y"}`),
			[]byte(`{"event_message":"e2","f":"again","a":3,"metadata":{"w":[3],"u":"s\"q"}}`),
		}
		_, rej := st.Append("s", evs)
		require.Empty(t, rej)
		check := func() {
			paths := st.Snapshot("s").Schema.Paths()
			for _, p := range []string{"e", "f", "g", "g.h", "metadata.v", "metadata.u"} {
				require.NotContains(t, paths, p)
			}
			require.Contains(t, paths, "metadata.w")
			require.Contains(t, paths, event.OverflowField)
			require.Contains(t, paths, "metadata."+event.OverflowField)
			// Existing fields keep taking values.
			require.Equal(t, []string{"1", "2", "3"}, column(st, "s", "a"))
			// What overflowed is exactly the keys and values sent.
			want := []map[string]any{nil, {"e": "ok", "f": "late", "g": map[string]any{"h": 1.0}}, {"f": "again"}}
			wantMeta := []map[string]any{nil, {"v": map[string]any{"deep": "yes"}}, {"u": `s"q`}}
			for row := range evs {
				for _, c := range []struct {
					path string
					want map[string]any
				}{{event.OverflowField, want[row]}, {"metadata." + event.OverflowField, wantMeta[row]}} {
					text, ok := fieldValue(st, "s", c.path, row)
					if c.want == nil {
						require.False(t, ok, "row %d %s: %s", row, c.path, text)
						continue
					}
					require.True(t, ok, "row %d %s", row, c.path)
					var got map[string]any
					require.NoError(t, json.Unmarshal([]byte(text), &got), text)
					require.Equal(t, c.want, got, "row %d %s", row, c.path)
				}
			}
		}
		check()
		require.Equal(t, int64(6), st.Stats()[0].Overflowed)
		if durable {
			require.NoError(t, st.Close())
			st = openT(t, dir, opts)
			check()
			require.NoError(t, st.Close())
		}
	}
}

// One event with 10,000 new keys, into a source whose open segment holds
// 25,000 rows, makes at most the cap's worth of columns; the rest of its keys
// are kept in its __overflow column. It starts a new segment rather than
// fill 25,000 NULLs into each new column of the old one, so it costs about
// its own bytes.
func TestWideEventIsBounded(t *testing.T) {
	st := New(Options{})
	var batch [][]byte
	for i := 0; i < 25000; i++ {
		batch = append(batch, []byte(fmt.Sprintf(`{"event_message":"m%d","metadata":{"n":%d}}`, i, i)))
	}
	st.Append("s", batch)
	var b strings.Builder
	b.WriteString(`{"event_message":"wide","metadata":{`)
	for k := 0; k < 10000; k++ {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%05d":%d`, k, k)
	}
	b.WriteString(`}}`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n, rej := st.Append("s", [][]byte{[]byte(b.String())})
	runtime.ReadMemStats(&after)
	require.Equal(t, 1, n, rej)
	paths := st.Snapshot("s").Schema.Paths()
	require.LessOrEqual(t, len(paths), event.DefaultMaxFields+2)
	text, ok := fieldValue(st, "s", "metadata."+event.OverflowField, 25000)
	require.True(t, ok)
	var got map[string]int
	require.NoError(t, json.Unmarshal([]byte(text), &got))
	made := 0
	for _, p := range paths {
		if strings.HasPrefix(p, "metadata.k") {
			made++
		}
	}
	require.Equal(t, 10000, len(got)+made, "every key is a column or in the overflow")
	segs := st.Snapshot("s").Segments
	require.Len(t, segs, 1, "the wide event joined the open segment")
	seg := segs[0]
	require.Equal(t, 25001, seg.Rows())
	// Its columns store nothing for the 25,000 rows before it.
	c := mustColumn(seg, "metadata.k00007")
	require.NotNil(t, c)
	require.Equal(t, 25001, c.Len())
	require.Equal(t, 25000, c.lo)
	for _, r := range []int{0, 24999} {
		require.True(t, c.IsNull(r))
	}
	require.False(t, c.IsNull(25000))
	require.Equal(t, int64(7), c.Int(25000))
	// 25,000 NULLs in each of ~500 columns was 137 MiB; the event and its
	// columns take a few MiB.
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8<<20))
	t.Logf("wide event: %d columns made, %d keys in overflow, %d KiB allocated", made, len(got), (after.TotalAlloc-before.TotalAlloc)>>10)
}

// A wide event late in an open segment, and the rows after it, come back
// the same after a crash (no seal, no close) and a restart, and after the
// segment is sealed into its file.
func TestWideEventSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	st := openT(t, dir, Options{})
	var batch [][]byte
	for i := 0; i < 20000; i++ {
		batch = append(batch, []byte(fmt.Sprintf(`{"event_message":"m%d","timestamp":%d}`, i, 1_700_000_000_000_000+int64(i))))
	}
	var wide strings.Builder
	wide.WriteString(`{"event_message":"wide","timestamp":1700000000020000,"metadata":{`)
	for k := 0; k < 40; k++ {
		if k > 0 {
			wide.WriteByte(',')
		}
		fmt.Fprintf(&wide, `"k%02d":%d`, k, k)
	}
	wide.WriteString(`}}`)
	batch = append(batch, []byte(wide.String()), []byte(`{"event_message":"after","timestamp":1700000000020001}`))
	n, rej := st.Append("s", batch)
	require.Equal(t, len(batch), n, rej)
	want := rows(st, "s")
	require.Len(t, want, 20002)
	// As a crash leaves it: WAL files only, nothing sealed to a file yet
	// for the open segment.
	st.sealer.wait()
	st.bg.Wait()
	st.lock.Close()
	reopened := openT(t, dir, Options{})
	require.Equal(t, want, rows(reopened, "s"))
	require.NoError(t, reopened.Flush())
	reopened.sealer.wait()
	require.Equal(t, want, rows(reopened, "s"))
	require.NoError(t, reopened.Close())
	again := openT(t, dir, Options{})
	defer again.Close()
	require.Equal(t, want, rows(again, "s"))
}

// A wide event late in a segment stays cheap once the segment is sealed and
// written: its columns keep only the rows that hold their values, whatever
// their kind (found by review: sealing once stored a placeholder for every
// earlier row, 8 bytes a row for floats and a boxed value for arrays).
func TestWideEventStaysBoundedWhenSealed(t *testing.T) {
	value := map[string]func(k int) string{
		"int":    func(k int) string { return fmt.Sprint(k) },
		"float":  func(k int) string { return fmt.Sprintf("%d.5", k) },
		"string": func(k int) string { return fmt.Sprintf(`"v%d"`, k) },
		"array":  func(k int) string { return fmt.Sprintf("[%d]", k) },
	}
	for kind, val := range value {
		for _, durable := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s durable=%v", kind, durable), func(t *testing.T) {
				dir := t.TempDir()
				st := New(Options{})
				if durable {
					st = openT(t, dir, Options{})
				}
				defer st.Close()
				var batch [][]byte
				for i := 0; i < 25000; i++ {
					batch = append(batch, []byte(fmt.Sprintf(`{"event_message":"m%d","timestamp":%d}`, i, 1_700_000_000_000_000+int64(i))))
				}
				st.Append("s", batch)
				var wide strings.Builder
				wide.WriteString(`{"event_message":"wide","timestamp":1700000000012345`)
				for k := 0; k < 400; k++ {
					fmt.Fprintf(&wide, `,"k%03d":%s`, k, val(k))
				}
				wide.WriteString(`}`)
				n, rej := st.Append("s", [][]byte{[]byte(wide.String())})
				require.Equal(t, 1, n, rej)
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				require.NoError(t, st.Flush())
				st.sealer.wait()
				runtime.ReadMemStats(&after)
				segs := st.Snapshot("s").Segments
				require.Len(t, segs, 1)
				// 25,001 rows × 400 columns would be 10M placeholders.
				require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(16<<20), "allocated by the seal")
				if durable {
					var files int64
					ents, err := os.ReadDir(filepath.Join(dir, "sources", "s"))
					require.NoError(t, err)
					for _, e := range ents {
						info, err := e.Info()
						require.NoError(t, err)
						files += info.Size()
					}
					require.Less(t, files, int64(1<<20), "bytes on disk")
				} else {
					require.Less(t, segs[0].Bytes(), int64(2<<20), "bytes the sealed segment holds")
				}
				// The wide row sorts into the middle (after the row of its
				// time); its values read back, and its neighbours' are NULL.
				snap := st.Snapshot("s")
				f, ok := snap.Schema.Lookup("k007")
				require.True(t, ok)
				seg := snap.Segments[0]
				require.Equal(t, strings.Trim(val(7), `"`), strings.Trim(mustValue(seg, f, 12346).String(), `"`))
				require.True(t, mustValue(seg, f, 12345).Null)
				require.True(t, mustValue(seg, f, 12347).Null)
			})
		}
	}
}
