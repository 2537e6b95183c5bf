package logstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/types"
)

func TestAppendSamplesKeepsEveryField(t *testing.T) {
	// One sample record of each of the nine Supabase sources, copied from the
	// spec's samples into the repository so a fresh clone runs this test.
	files, err := filepath.Glob("testdata/samples/*.json")
	require.NoError(t, err)
	require.Len(t, files, 9)
	st := New(Options{})
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		n, rej := st.Append(name, [][]byte{b})
		require.Equal(t, 1, n, rej)
	}
	snap := st.Snapshot("cloudflare.logs.prod")
	require.Len(t, snap.Segments, 1)
	seg := snap.Segments[0]
	f, ok := snap.Schema.Lookup("metadata.request.cf.asn")
	require.True(t, ok)
	require.Equal(t, types.Int64, f.Type)
	require.Equal(t, int64(3209), mustValue(seg, f, 0).I)
	meta, _ := snap.Schema.Lookup("metadata")
	require.True(t, meta.Object)
	v := mustValue(seg, meta, 0)
	require.Equal(t, types.KindArray, v.T.Kind)
	require.Len(t, v.L, 1)
	req := v.L[0].L[v.T.Elem.FieldIndex("request")]
	require.Equal(t, "GET", req.L[0].L[req.T.Elem.FieldIndex("method")].S)
	idf, _ := snap.Schema.Lookup("id")
	require.Len(t, mustValue(seg, idf, 0).S, 36, "a missing id gets a UUID")

	rt := st.Snapshot("realtime.logs.prod")
	dom, ok := rt.Schema.Lookup("metadata.context.domain")
	require.True(t, ok)
	require.Equal(t, types.ArrayOf(types.String), dom.Type)
}

func TestTimestampsAndKeys(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	st := New(Options{Now: func() time.Time { return now }})
	want := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC).UnixMicro()
	evs := []string{
		`{"timestamp":"2024-01-02T03:04:05Z","message":"m"}`,
		`{"timestamp":1704164645}`,
		`{"timestamp":1704164645000}`,
		`{"timestamp":1704164645000000}`,
		`{"timestamp":1704164645000000000}`,
		`{"timestamp":"garbage","a-b.c":1,"9x":2}`,
		`[1,2]`,
		`{"broken": }`,
	}
	raw := make([][]byte, len(evs))
	for i, e := range evs {
		raw[i] = []byte(e)
	}
	n, rej := st.Append("s", raw)
	require.Equal(t, 6, n)
	require.Len(t, rej, 2)
	require.Equal(t, 6, rej[0].Index)
	snap := st.Snapshot("s")
	seg := snap.Segments[0]
	ts, _ := snap.Schema.Lookup("timestamp")
	for i := 0; i < 5; i++ {
		require.Equal(t, want, mustValue(seg, ts, i).I, i)
	}
	require.Equal(t, now.UnixMicro(), mustValue(seg, ts, 5).I)
	em, _ := snap.Schema.Lookup("event_message")
	require.Equal(t, "m", mustValue(seg, em, 0).S)
	_, ok := snap.Schema.Lookup("a_b_c")
	require.True(t, ok)
	_, ok = snap.Schema.Lookup("_9x")
	require.True(t, ok)
}

func TestTypeConflictsWidenWithoutLoss(t *testing.T) {
	st := New(Options{SegmentRows: 2})
	evs := []string{`{"n":1,"o":{"a":1}}`, `{"n":2}`, `{"n":2.5,"o":"flat"}`, `{"n":"x"}`, `{"n":true}`}
	for _, e := range evs {
		n, rej := st.Append("s", [][]byte{[]byte(e)})
		require.Equal(t, 1, n, rej)
	}
	snap := st.Snapshot("s")
	f, _ := snap.Schema.Lookup("n")
	require.Equal(t, types.String, f.Type)
	var got []string
	for _, seg := range snap.Segments {
		for r := 0; r < seg.Rows(); r++ {
			got = append(got, mustValue(seg, f, r).S)
		}
	}
	require.Equal(t, []string{"1", "2", "2.5", "x", "true"}, got)
	side, ok := snap.Schema.Lookup("o__json")
	require.True(t, ok)
	require.Equal(t, `"flat"`, mustValue(snap.Segments[1], side, 0).S)
}

func TestPlainStringsAndSealing(t *testing.T) {
	st := New(Options{SegmentRows: 5000})
	var evs [][]byte
	for i := 0; i < 12000; i++ {
		evs = append(evs, []byte(fmt.Sprintf(`{"u":"unique-%d","c":"v%d"}`, i, i%3)))
	}
	n := appendEach(st, "s", evs, 5000)
	require.Equal(t, 12000, n)
	st.Flush()
	snap := st.Snapshot("s")
	require.Len(t, snap.Segments, 3)
	u, _ := snap.Schema.Lookup("u")
	c, _ := snap.Schema.Lookup("c")
	require.False(t, mustColumn(snap.Segments[0], "u").IsDict())
	require.True(t, mustColumn(snap.Segments[0], "c").IsDict())
	row := 0
	for _, seg := range snap.Segments {
		for r := 0; r < seg.Rows(); r++ {
			require.Equal(t, fmt.Sprintf("unique-%d", row), mustValue(seg, u, r).S)
			require.Equal(t, fmt.Sprintf("v%d", row%3), mustValue(seg, c, r).S)
			row++
		}
	}
}

// A snapshot taken while the open segment is as it was gets the view the
// one before took; a row written, a row rolled back (a refused event) or
// the segment retired makes a new one, which reads what the segment holds.
func TestSnapshotKeepsTheOpenViewUntilItChanges(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	st := New(Options{SegmentRows: 1000, Retention: 48 * time.Hour, Now: func() time.Time { return now }})
	add := func(e string) int {
		n, _ := st.Append("s", [][]byte{[]byte(e)})
		return n
	}
	open := func() (*Segment, []string) {
		snap := st.Snapshot("s")
		seg := snap.Segments[len(snap.Segments)-1]
		f, ok := snap.Schema.Lookup("n")
		require.True(t, ok)
		var got []string
		for r := 0; r < seg.Rows(); r++ {
			v := mustValue(seg, f, r) // the refused event below widens n to STRING
			if v.T.Kind == types.KindString {
				got = append(got, v.S)
			} else {
				got = append(got, fmt.Sprint(v.Float()))
			}
		}
		return seg, got
	}
	for i := 1; i <= 3; i++ {
		require.Equal(t, 1, add(fmt.Sprintf(`{"n":%d}`, i)))
	}
	v1, got := open()
	v2, _ := open()
	require.Same(t, v1, v2, "nothing changed: the same view")
	require.Equal(t, []string{"1", "2", "3"}, got)
	require.Equal(t, 1, add(`{"n":2.5}`)) // widens the column
	v3, got := open()
	require.NotSame(t, v2, v3)
	require.Equal(t, []string{"1", "2", "3", "2.5"}, got)
	require.Equal(t, 0, add(`{"n":"x","timestamp":"2000-01-01T00:00:00Z"}`)) // refused: too old
	v4, got := open()
	require.NotSame(t, v3, v4, "a row rolled back: a new view")
	require.Equal(t, []string{"1", "2", "3", "2.5"}, got)
	require.NoError(t, st.Flush())
	snap := st.Snapshot("s")
	require.True(t, snap.Segments[len(snap.Segments)-1].Sealed(), "no open rows: no open view")
	require.Equal(t, 1, add(`{"n":7}`))
	v5, got := open()
	require.NotSame(t, v4, v5)
	require.Equal(t, []string{"7"}, got)
}

// A query sees every event whose Append returned before its snapshot, even
// while other goroutines keep appending (run with -race).
func TestSnapshotsDuringAppends(t *testing.T) {
	st := New(Options{SegmentRows: 1000})
	var wg sync.WaitGroup
	var done sync.WaitGroup
	const writers, perWriter = 4, 5000
	var mu sync.Mutex
	returned := 0
	done.Add(writers)
	for w := 0; w < writers; w++ {
		go func(w int) {
			defer done.Done()
			for i := 0; i < perWriter; i++ {
				st.Append("s", [][]byte{[]byte(fmt.Sprintf(`{"w":%d,"i":%d,"s":"x%d"}`, w, i, i%50))})
				mu.Lock()
				returned++
				mu.Unlock()
			}
		}(w)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := 0; k < 200; k++ {
			mu.Lock()
			before := returned
			mu.Unlock()
			snap := st.Snapshot("s")
			rows := 0
			f, ok := snap.Schema.Lookup("s")
			for _, seg := range snap.Segments {
				rows += seg.Rows()
				if ok {
					for r := 0; r < seg.Rows(); r += 97 {
						_ = mustValue(seg, f, r)
					}
				}
			}
			if rows < before {
				t.Errorf("snapshot has %d rows, %d appends had returned", rows, before)
				return
			}
		}
	}()
	done.Wait()
	wg.Wait()
	snap := st.Snapshot("s")
	total := 0
	for _, seg := range snap.Segments {
		total += seg.Rows()
	}
	require.Equal(t, writers*perWriter, total)
}

func TestRetentionDropsWholeSegments(t *testing.T) {
	// Ingested when they were recent (an event already older than the
	// retention is refused at ingest), then the clock moves on.
	now := time.Date(2024, 4, 20, 0, 0, 0, 0, time.UTC)
	st := New(Options{SegmentRows: 2, Retention: 24 * time.Hour, Now: func() time.Time { return now }})
	for _, ts := range []string{"2024-04-20T00:00:00Z", "2024-04-20T01:00:00Z", "2024-04-30T12:00:00Z", "2024-04-30T13:00:00Z"} {
		st.Append("s", [][]byte{[]byte(`{"timestamp":"` + ts + `"}`)})
	}
	now = time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	require.Equal(t, 2, st.EnforceRetention())
	require.Len(t, st.Snapshot("s").Segments, 1)
	require.Equal(t, 2, st.Stats()[0].Events)
}

func TestKeysSanitisedToReservedNames(t *testing.T) {
	st := New(Options{})
	n, rej := st.Append("s", [][]byte{[]byte(`{"event-message":"a","event_message":"b","time stamp":"x","1d":2}`)})
	require.Equal(t, 1, n, rej)
	snap := st.Snapshot("s")
	em, _ := snap.Schema.Lookup("event_message")
	require.Equal(t, "a", mustValue(snap.Segments[0], em, 0).S, "of keys equal after sanitising, the first wins")
	_, ok := snap.Schema.Lookup("time_stamp")
	require.True(t, ok)
	_, ok = snap.Schema.Lookup("_1d")
	require.True(t, ok)
}

func TestCompressedStringsRoundTrip(t *testing.T) {
	st := New(Options{SegmentRows: 5000})
	var evs [][]byte
	want := make([]string, 5000)
	for i := range want {
		switch {
		case i%997 == 0:
			want[i] = "" // empty values, also at block ends
		default:
			want[i] = fmt.Sprintf("GET | %d | https://p%d.supabase.co/rest/v1/t?id=eq.%d", 200+i%5, i%20, i*7919)
		}
		evs = append(evs, []byte(fmt.Sprintf(`{"m":%q,"n":null}`, want[i])))
	}
	evs[1023] = []byte(`{"m":""}`)
	want[1023] = ""
	n, _ := st.Append("s", evs)
	require.Equal(t, 5000, n)
	st.Flush()
	snap := st.Snapshot("s")
	seg := snap.Segments[0]
	col := mustColumn(seg, "m")
	require.IsType(t, &zstrings{}, col.enc, "nearly unique text is compressed when sealed")
	f, _ := snap.Schema.Lookup("m")
	rows := make([]int32, 0, 5000)
	for i := 0; i < 5000; i++ {
		require.Equal(t, want[i], mustValue(seg, f, i).S, i)
		rows = append(rows, int32(i))
	}
	got := make([]string, len(rows))
	col.GatherStrings(rows, got)
	require.Equal(t, want, got)
	require.Less(t, col.bytes(), int64(len(want)*20), "compressed well below the raw size")
}

// MatchCode finds the rows holding a value, in sealed segments (8- and
// 16-bit codes) and the open one (32-bit), skipping NULLs, over any row
// range: the same rows a plain comparison of each row's value finds.
func TestMatchCodeAgreesWithValues(t *testing.T) {
	st, err := Open(t.TempDir(), Options{SegmentRows: 1000, noMerge: true})
	require.NoError(t, err)
	defer st.Close()
	var evs [][]byte
	for i := 0; i < 2600; i++ {
		ev := fmt.Sprintf(`{"event_message":"m","s":"v%d","t":"w%d"}`, i%3, (i*7)%300)
		if i%11 == 0 {
			ev = `{"event_message":"no s or t"}`
		}
		evs = append(evs, []byte(ev))
	}
	require.Equal(t, len(evs), appendEach(st, "src", evs, 1000))
	st.sealer.wait() // the sealed segments are read from their files
	widths := map[string]bool{}
	for _, seg := range st.Snapshot("src").Segments {
		for _, c := range []struct{ path, value string }{{"s", "v1"}, {"t", "w21"}, {"t", "w0"}} {
			col := mustColumn(seg, c.path)
			require.True(t, col.IsDict(), c.path)
			widths[fmt.Sprintf("%T", col.enc)] = true
			code, ok := col.FindCode(c.value)
			require.True(t, ok)
			for _, rng := range [][2]int{{0, seg.Rows()}, {3, seg.Rows() - 5}, {7, 8}} {
				var want []int32
				for r := rng[0]; r < rng[1]; r++ {
					if !col.IsNull(r) && col.Str(r) == c.value {
						want = append(want, int32(r))
					}
				}
				got := append([]int32(nil), col.MatchCode(rng[0], rng[1], code, nil)...)
				require.Equal(t, want, got, "%s=%s rows %v", c.path, c.value, rng)
			}
		}
	}
	require.Len(t, widths, 3, "8-bit, 16-bit and 32-bit codes were all met")
}
