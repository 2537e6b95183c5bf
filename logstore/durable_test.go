package logstore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/event"
)

// rows renders every row of a source as "field=value …" lines, in storage
// order, over every field the schema knows.
func rows(st *Store, source string) []string {
	snap := st.Snapshot(source)
	var out []string
	for _, seg := range snap.Segments {
		for r := 0; r < seg.Rows(); r++ {
			var b strings.Builder
			for _, f := range snap.Schema.Top {
				fmt.Fprintf(&b, "%s=%s ", f.Name, mustValue(seg, f, r).String())
			}
			out = append(out, b.String())
		}
	}
	return out
}

// column returns one top-level field's values as text, in storage order.
func column(st *Store, source, name string) []string {
	snap := st.Snapshot(source)
	f, ok := snap.Schema.Lookup(name)
	if !ok {
		return nil
	}
	var out []string
	for _, seg := range snap.Segments {
		for r := 0; r < seg.Rows(); r++ {
			out = append(out, mustValue(seg, f, r).String())
		}
	}
	return out
}

func openT(t *testing.T, dir string, opts Options) *Store {
	t.Helper()
	st, err := Open(dir, opts)
	require.NoError(t, err)
	return st
}

// Everything acknowledged comes back after a restart, in the same segments,
// with the same generated ids and arrival timestamps: requests smaller than
// a segment, and requests larger than one.
func TestReopenReplaysEverything(t *testing.T) {
	for _, size := range []int{5, 10} {
		t.Run(fmt.Sprint(size), func(t *testing.T) { reopenReplaysEverything(t, size) })
	}
}

func reopenReplaysEverything(t *testing.T, size int) {
	dir := t.TempDir()
	clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	opts := Options{SegmentRows: 7, Now: func() time.Time { return clock }}
	st := openT(t, dir, opts)
	var want []string // event_message of every valid event, computed from the input
	for b := 0; b < 13; b++ {
		var batch [][]byte
		for i := 0; i < size; i++ {
			msg := fmt.Sprintf("b%d-e%d", b, i)
			switch i {
			case 1: // no id, no timestamp: both are generated
				batch = append(batch, []byte(fmt.Sprintf(`{"event_message":%q,"n":%d}`, msg, b*10+i)))
			case 3: // refused
				batch = append(batch, []byte(`{"event_message":"broken"`))
				continue
			default:
				batch = append(batch, []byte(fmt.Sprintf(`{"id":"id-%d-%d","timestamp":"2026-03-01T10:00:%02dZ","event_message":%q,"meta":{"k":"v%d"}}`, b, i, i, msg, i)))
			}
			want = append(want, msg)
		}
		n, rej, err := st.Ingest("src", batch)
		require.NoError(t, err)
		require.Equal(t, size-1, n)
		require.Len(t, rej, 1)
		require.Equal(t, 3, rej[0].Index, "reject indices count from the start of the request")
		clock = clock.Add(time.Second)
	}
	st.sealer.wait() // sealing sorts a segment's rows: compare after it
	before := rows(st, "src")
	// Sealed segments hold their rows by timestamp, so compare as sets.
	require.ElementsMatch(t, want, column(st, "src", "event_message"))
	require.NoError(t, st.Close())

	st = openT(t, dir, opts)
	defer st.Close()
	require.Equal(t, before, rows(st, "src"))
	rec := st.Recovery()
	require.Equal(t, len(want), rec.Replayed+rec.Loaded)
	// A request goes whole into a segment, which is retired once it holds 7
	// rows or more. Requests of 5 events take 4 (one is refused): segments
	// of 4 + 4, and the 13th request's 4 in the open segment. Requests of
	// 10 take 9: a segment each, and none open.
	require.Equal(t, map[int]int{5: 4, 10: 0}[size], rec.Replayed, "only the open segment is replayed; sealed ones are read from their files")
	require.Equal(t, RecoveryStats{Replayed: rec.Replayed, Loaded: rec.Loaded}, rec)
	// New events go on from where the log ended.
	_, _, err := st.Ingest("src", [][]byte{[]byte(`{"event_message":"after"}`)})
	require.NoError(t, err)
	require.NoError(t, st.Close())
	st = openT(t, dir, opts)
	defer st.Close()
	require.ElementsMatch(t, append(append([]string{}, want...), "after"), column(st, "src", "event_message"))
}

func TestSourceNamesMapToDirectories(t *testing.T) {
	dir := t.TempDir()
	names := []string{"cloudflare.logs.prod", ".hidden", "a/b", "sp ace", "ünï", "%41", "..", "x%"}
	st := openT(t, dir, Options{})
	for _, n := range names {
		_, _, err := st.Ingest(n, [][]byte{[]byte(`{"event_message":` + fmt.Sprintf("%q", n) + `}`)})
		require.NoError(t, err)
	}
	require.NoError(t, st.Close())
	ents, err := os.ReadDir(filepath.Join(dir, "sources"))
	require.NoError(t, err)
	require.Len(t, ents, len(names), "every name its own directory, none outside sources/")
	st = openT(t, dir, Options{})
	defer st.Close()
	sorted := append([]string{}, names...)
	sort.Strings(sorted)
	require.Equal(t, sorted, st.Names())
	for _, n := range names {
		require.Equal(t, []string{n}, column(st, n, "event_message"))
	}
}

func TestSecondOpenIsRefused(t *testing.T) {
	dir := t.TempDir()
	st := openT(t, dir, Options{})
	_, err := Open(dir, Options{})
	require.ErrorIs(t, err, ErrLocked)
	require.ErrorContains(t, err, fmt.Sprintf("pid %d", os.Getpid()))
	require.NoError(t, st.Close())
	st = openT(t, dir, Options{})
	require.NoError(t, st.Close())
}

func walFiles(t *testing.T, dir, source string) []string { return files(t, dir, source, "wal-*.log") }

// recordOffsets returns the offset of every record in a WAL file.
func recordOffsets(t *testing.T, data []byte) []int {
	t.Helper()
	var offs []int
	for off := walHeaderLen(data); off < len(data); {
		offs = append(offs, off)
		off += 8 + int(binary.LittleEndian.Uint32(data[off:]))
	}
	return offs
}

func threeBatches(t *testing.T, dir string) {
	t.Helper()
	st := openT(t, dir, Options{})
	for i := 0; i < 3; i++ {
		_, _, err := st.Ingest("s", [][]byte{[]byte(fmt.Sprintf(`{"event_message":"m%d"}`, i))})
		require.NoError(t, err)
	}
	require.NoError(t, st.Close())
}

func logTo(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// syncBuffer is a log buffer that background goroutines may write to.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestDamagedWAL(t *testing.T) {
	cases := []struct {
		name    string
		damage  func(data []byte, offs []int) []byte
		want    []string
		stats   RecoveryStats
		logLine string
	}{
		{"torn tail", func(d []byte, offs []int) []byte { return d[:len(d)-3] },
			[]string{"m0", "m1"}, RecoveryStats{TornTails: 1, Replayed: 2}, "cut off a damaged tail"},
		{"half a record header", func(d []byte, offs []int) []byte { return d[:offs[2]+5] },
			[]string{"m0", "m1"}, RecoveryStats{TornTails: 1, Replayed: 2}, "cut off a damaged tail"},
		{"garbage appended", func(d []byte, offs []int) []byte { return append(d, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5) },
			[]string{"m0", "m1", "m2"}, RecoveryStats{TornTails: 1, Replayed: 3}, "cut off a damaged tail"},
		{"flipped byte in the middle record", func(d []byte, offs []int) []byte { d[offs[1]+30] ^= 0x40; return d },
			[]string{"m0", "m2"}, RecoveryStats{CorruptRecords: 1, Replayed: 2}, "skipped a damaged record"},
		{"flipped byte in the last record", func(d []byte, offs []int) []byte { d[len(d)-2] ^= 1; return d },
			[]string{"m0", "m1"}, RecoveryStats{TornTails: 1, Replayed: 2}, "cut off a damaged tail"},
		{"flipped length of the first record", func(d []byte, offs []int) []byte { d[offs[0]+1] ^= 0x10; return d },
			nil, RecoveryStats{TornTails: 1}, "cut off a damaged tail"},
		{"torn header", func(d []byte, offs []int) []byte { return d[:4] },
			nil, RecoveryStats{CorruptFiles: 1}, "moved aside"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			threeBatches(t, dir)
			f := walFiles(t, dir, "s")[0]
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(f, c.damage(data, recordOffsets(t, data)), 0o644))
			var logs syncBuffer
			st := openT(t, dir, Options{Logger: logTo(&logs)})
			require.Equal(t, c.want, column(st, "s", "event_message"))
			require.Equal(t, c.stats, st.Recovery())
			require.Contains(t, logs.String(), c.logLine)
			require.Contains(t, logs.String(), filepath.Base(f))
			// The damage is gone for good: what is written now survives the
			// next restart, after the intact records.
			_, _, err = st.Ingest("s", [][]byte{[]byte(`{"event_message":"later"}`)})
			require.NoError(t, err)
			require.NoError(t, st.Close())
			logs.Reset()
			st = openT(t, dir, Options{Logger: logTo(&logs)})
			defer st.Close()
			require.Equal(t, append(append([]string{}, c.want...), "later"), column(st, "s", "event_message"))
			require.Equal(t, len(c.want)+1, st.Recovery().Replayed)
			require.Zero(t, st.Recovery().TornTails, "the cut tail is gone")
			require.Equal(t, c.stats.CorruptRecords, st.Recovery().CorruptRecords, "a skipped record stays, and is reported again")
		})
	}
}

func TestUnknownWALVersionRefusesToStart(t *testing.T) {
	dir := t.TempDir()
	threeBatches(t, dir)
	f := walFiles(t, dir, "s")[0]
	data, err := os.ReadFile(f)
	require.NoError(t, err)
	data[7] = walVersion + 1
	require.NoError(t, os.WriteFile(f, data, 0o644))
	_, err = Open(dir, Options{})
	require.ErrorIs(t, err, errWALVersion)
	require.ErrorContains(t, err, filepath.Base(f))
	require.ErrorContains(t, err, "refusing to start")
	// The refusal released the lock and left the file as it was.
	after, _ := os.ReadFile(f)
	require.Equal(t, data, after)
	data[7] = walVersion
	require.NoError(t, os.WriteFile(f, data, 0o644))
	st := openT(t, dir, Options{})
	require.Equal(t, []string{"m0", "m1", "m2"}, column(st, "s", "event_message"))
	require.NoError(t, st.Close())
}

// A missing segment file (deleted by hand) loses only its own events, and
// start-up says so.
func TestMissingSegmentFile(t *testing.T) {
	dir := t.TempDir()
	st := openT(t, dir, Options{SegmentRows: 2})
	for i := 0; i < 6; i++ {
		_, _, err := st.Ingest("s", [][]byte{[]byte(fmt.Sprintf(`{"event_message":"m%d"}`, i))})
		require.NoError(t, err)
	}
	require.NoError(t, st.Close())
	segs := files(t, dir, "s", "seg-*.lqs")
	require.Len(t, segs, 3, "three sealed segments")
	require.Len(t, files(t, dir, "s", "wal-*.log"), 1, "the open segment's WAL only")
	require.NoError(t, os.Remove(segs[1]))
	var logs syncBuffer
	st = openT(t, dir, Options{SegmentRows: 2, Logger: logTo(&logs)})
	defer st.Close()
	require.Equal(t, []string{"m0", "m1", "m4", "m5"}, column(st, "s", "event_message"))
	require.Equal(t, 1, st.Recovery().Missing)
	require.Contains(t, logs.String(), "segments missing")
}

// A damaged segment file is moved aside and the server starts; when the
// segment's WAL file is still there (a crash before it was removed), its
// events come back from it.
func TestDamagedSegmentFile(t *testing.T) {
	for _, keepWAL := range []bool{false, true} {
		t.Run(fmt.Sprintf("wal kept %v", keepWAL), func(t *testing.T) {
			dir := t.TempDir()
			st := openT(t, dir, Options{SegmentRows: 2})
			for i := 0; i < 4; i++ {
				_, _, err := st.Ingest("s", [][]byte{[]byte(fmt.Sprintf(`{"event_message":"m%d"}`, i))})
				require.NoError(t, err)
			}
			require.NoError(t, st.Close())
			seg := files(t, dir, "s", "seg-*.lqs")[0]
			data, err := os.ReadFile(seg)
			require.NoError(t, err)
			if keepWAL {
				// Rebuild the WAL file the seal removed, as a crash between
				// the rename and the removal leaves it.
				var b walBatch
				b.events = [][]byte{[]byte(`{"event_message":"m0"}`), []byte(`{"event_message":"m1"}`)}
				wf := append(walHeader(nil), b.encode(nil)...)
				require.NoError(t, os.WriteFile(strings.Replace(strings.Replace(seg, "seg-", "wal-", 1), ".lqs", ".log", 1), wf, 0o644))
			}
			data[columnByte(t, data, "event_message")] ^= 0x20
			require.NoError(t, os.WriteFile(seg, data, 0o644))
			var logs syncBuffer
			st = openT(t, dir, Options{SegmentRows: 2, Logger: logTo(&logs)})
			defer st.Close()
			<-st.scrubbed // without a WAL file to fall back on, the scrub finds it
			require.Equal(t, 1, st.Recovery().CorruptFiles)
			require.Contains(t, logs.String(), "moved aside")
			require.FileExists(t, seg+".corrupt")
			want := []string{"m2", "m3"}
			if keepWAL {
				want = []string{"m0", "m1", "m2", "m3"}
			}
			require.Equal(t, want, column(st, "s", "event_message"))
		})
	}
}

func TestUnknownSegmentVersionRefusesToStart(t *testing.T) {
	dir := t.TempDir()
	st := openT(t, dir, Options{SegmentRows: 1})
	_, _, err := st.Ingest("s", [][]byte{[]byte(`{"event_message":"m0"}`)})
	require.NoError(t, err)
	require.NoError(t, st.Close())
	seg := files(t, dir, "s", "seg-*.lqs")[0]
	data, err := os.ReadFile(seg)
	require.NoError(t, err)
	data[7] = segVersion + 1
	require.NoError(t, os.WriteFile(seg, data, 0o644))
	_, err = Open(dir, Options{SegmentRows: 1})
	require.ErrorIs(t, err, errSegVer)
	require.ErrorContains(t, err, "refusing to start")
}

// columnByte is the offset of a byte inside a column's data in a segment
// file (where a flipped bit is damage its checksum must catch).
func columnByte(t *testing.T, data []byte, path string) int {
	t.Helper()
	m, err := readSegmentMeta(memFile{bytes.NewReader(data)}, int64(len(data)))
	require.NoError(t, err)
	for _, c := range m.cols {
		if c.path != path {
			continue
		}
		for _, p := range c.parts {
			if p.len > 0 {
				return int(p.off + p.len/2)
			}
		}
	}
	t.Fatalf("no column %s with data", path)
	return 0
}

func files(t *testing.T, dir, source, glob string) []string {
	t.Helper()
	out, err := filepath.Glob(filepath.Join(dir, "sources", encodeName(source), glob))
	require.NoError(t, err)
	sort.Strings(out)
	return out
}

// faultFS fails writes or syncs while told to; while failWrite is set,
// the first okWrites writes still succeed. While hold is set, a write
// signals held and waits until hold is closed.
type faultFS struct {
	failWrite, failSync atomic.Bool
	failRead            atomic.Bool
	failTruncate        atomic.Bool
	truncates, reads    atomic.Int64
	okWrites            atomic.Int64
	writes, syncs       atomic.Int64
	hold                atomic.Pointer[chan struct{}]
	held                chan struct{}
}

var errNoSpace = syscall.ENOSPC

func (f *faultFS) write(file *os.File, b []byte) (int, error) {
	f.writes.Add(1)
	if h := f.hold.Swap(nil); h != nil {
		f.held <- struct{}{}
		<-*h
	}
	if f.failWrite.Load() && f.okWrites.Add(-1) < 0 {
		// A full disk takes part of the write before refusing the rest.
		n, _ := file.Write(b[:len(b)/2])
		return n, errNoSpace
	}
	return file.Write(b)
}

// failing is the switch that fails writes ("write") or fsyncs ("fsync").
func (f *faultFS) failing(mode string) *atomic.Bool {
	if mode == "fsync" {
		return &f.failSync
	}
	return &f.failWrite
}

func (f *faultFS) truncate(file *os.File, n int64) error {
	f.truncates.Add(1)
	if f.failTruncate.Load() {
		return syscall.EIO
	}
	return file.Truncate(n)
}

func (f *faultFS) read(file *os.File) ([]byte, error) {
	f.reads.Add(1)
	if f.failRead.Load() {
		return nil, syscall.EIO
	}
	return readAll(file)
}

func (f *faultFS) sync(file *os.File) error {
	f.syncs.Add(1)
	if f.failSync.Load() {
		return errNoSpace
	}
	return file.Sync()
}

// A full disk refuses ingest with an error (never an acknowledgement), and
// the store recovers by itself once space returns: exactly the acknowledged
// events survive a restart.
func TestFullDisk(t *testing.T) {
	for _, mode := range []string{"write", "fsync"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			st := openT(t, dir, Options{SegmentRows: 4})
			ffs := &faultFS{}
			st.fs = ffs
			var acked []string
			for i := 0; i < 20; i++ {
				fail := i >= 5 && i < 9
				ffs.failing(mode).Store(fail)
				msg := fmt.Sprintf("m%d", i)
				_, _, err := st.Ingest("s", [][]byte{[]byte(`{"event_message":"` + msg + `"}`)})
				if fail {
					require.Error(t, err, i)
					require.True(t, errors.Is(err, syscall.ENOSPC), err)
				} else {
					require.NoError(t, err, i)
					acked = append(acked, msg)
				}
				// What queries see is what was acknowledged: a refused
				// event is not there for a retry to double.
				require.Equal(t, acked, column(st, "s", "event_message"), "after event %d", i)
			}
			require.NoError(t, st.Close())
			st = openT(t, dir, Options{SegmentRows: 4})
			defer st.Close()
			require.Equal(t, acked, column(st, "s", "event_message"))
		})
	}
}

// A failed WAL write leaves nothing applied (the chunk, applied beside the
// write, is taken back by a rebuild). The refused request here brings new
// fields, widens a field's type, holds an invalid event and spans more time
// than the others: afterwards the store, its schema and counts included,
// reads as one that never had it, before and after a restart.
func TestFailedWriteAppliesNothing(t *testing.T) {
	evs := variedEvents(300, 7) // "shifty" is an INT64 in a, widened in b and c
	a, b, c := evs[:100], slices.Clone(evs[100:250]), evs[250:]
	b[3] = []byte(`{"id":"bad",`)
	b[7] = []byte(`{"id":"b7","timestamp":1,"only_in_b":{"x":[1,2]}}`)
	b[9] = []byte(`{"id":"b9","timestamp":9000000000000000,"only_in_b":"s"}`)

	dir := t.TempDir()
	st := openT(t, dir, Options{SegmentRows: 1000})
	ffs := &faultFS{}
	st.fs = ffs
	_, _, err := st.Ingest("s", a)
	require.NoError(t, err)
	ffs.failWrite.Store(true)
	_, _, err = st.Ingest("s", b)
	require.ErrorIs(t, err, syscall.ENOSPC)
	ffs.failWrite.Store(false)
	_, _, err = st.Ingest("s", c)
	require.NoError(t, err)

	acked := New(Options{SegmentRows: 1000}) // never had b
	acked.Append("s", a)
	acked.Append("s", c)
	require.Equal(t, rows(acked, "s"), rows(st, "s"))
	require.Equal(t, acked.Stats()[0].Events, st.Stats()[0].Events)
	require.Equal(t, acked.Stats()[0].Ingested, st.Stats()[0].Ingested)
	lo, hi := acked.Snapshot("s").Segments[0].TimeRange()
	gotLo, gotHi := st.Snapshot("s").Segments[0].TimeRange()
	require.Equal(t, []int64{lo, hi}, []int64{gotLo, gotHi})

	require.NoError(t, st.Close())
	st = openT(t, dir, Options{SegmentRows: 1000})
	defer st.Close()
	require.Equal(t, rows(acked, "s"), rows(st, "s"))
}

// messages returns n events whose messages are prefix0, prefix1, ….
func messages(prefix string, n int) [][]byte {
	evs := make([][]byte, n)
	for i := range evs {
		evs[i] = []byte(fmt.Sprintf(`{"event_message":"%s%d"}`, prefix, i))
	}
	return evs
}

// A refused request leaves nothing behind, whatever its size: it goes whole
// into one segment, as one WAL record, so none of its events stays in a
// segment for a retry to store twice (a request larger than a segment used
// to be cut, and kept its earlier parts when a later one failed).
func TestRefusedRequestLeavesNothingBehind(t *testing.T) {
	// Within the open segment's room (no rotation), past it and larger than
	// a segment (a rotation's new file is written first).
	for n, rotations := range map[int]int64{2: 0, 10: 1, 40: 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dir := t.TempDir()
			st := openT(t, dir, Options{SegmentRows: 16})
			ffs := &faultFS{}
			st.fs = ffs
			_, _, err := st.Ingest("s", messages("a", 15))
			require.NoError(t, err)
			want := column(st, "s", "event_message")
			ffs.okWrites.Store(rotations) // a rotation's new file is written; the request is not
			ffs.failWrite.Store(true)
			_, _, err = st.Ingest("s", messages("b", n))
			require.ErrorIs(t, err, syscall.ENOSPC)
			require.Equal(t, want, column(st, "s", "event_message"))
			ffs.failWrite.Store(false)
			_, _, err = st.Ingest("s", messages("c", n))
			require.NoError(t, err)
			for i := 0; i < n; i++ {
				want = append(want, fmt.Sprintf("c%d", i))
			}
			require.Equal(t, want, column(st, "s", "event_message"))
			require.NoError(t, st.Close())
			st = openT(t, dir, Options{SegmentRows: 16})
			defer st.Close()
			require.Equal(t, want, column(st, "s", "event_message"))
		})
	}
}

// A request goes whole into one segment: into the open one while that
// stays within half again SegmentRows, else into the next; a segment is
// retired once it holds SegmentRows.
func TestRequestsGoWholeIntoOneSegment(t *testing.T) {
	st := openT(t, t.TempDir(), Options{SegmentRows: 16, noMerge: true})
	defer st.Close()
	// 15 | 15+3 = 18 (within 24): retired at 18 | 5 | 5+20 > 24: 5 retired
	// first, then 20 | 40, larger than a segment, alone.
	for _, n := range []int{15, 3, 5, 20, 40} {
		_, _, err := st.Ingest("s", messages("m", n))
		require.NoError(t, err)
	}
	require.NoError(t, st.Flush())
	var sizes []int
	for _, seg := range st.Snapshot("s").Segments {
		sizes = append(sizes, seg.Rows())
	}
	require.Equal(t, []int{18, 5, 20, 40}, sizes)
}

// An ingest after Close fails and touches nothing: not the data directory,
// which another store may have opened meanwhile and acknowledged events in.
func TestIngestAfterCloseTouchesNothing(t *testing.T) {
	dir := t.TempDir()
	opts := Options{SegmentRows: 16}
	st := openT(t, dir, opts)
	_, _, err := st.Ingest("s", messages("a", 15))
	require.NoError(t, err)
	want := column(st, "s", "event_message")
	require.NoError(t, st.Close())
	next := openT(t, dir, opts)
	before := files(t, dir, "s", "*")
	// It does not fit in the open segment's room: were it let in, it would
	// retire that segment and seal it into the other store's directory.
	_, _, err = st.Ingest("s", messages("x", 2))
	require.ErrorIs(t, err, errClosed)
	st.sealer.wait()
	st.bg.Wait()
	require.Equal(t, before, files(t, dir, "s", "*"))
	_, _, err = next.Ingest("s", messages("c", 1))
	require.NoError(t, err)
	require.NoError(t, next.Close())
	again := openT(t, dir, opts)
	defer again.Close()
	require.Equal(t, append(want, "c0"), column(again, "s", "event_message"))
}

// Close waits for an ingest under way, and for the seal it starts, so that
// nothing touches the directory once Close has returned.
func TestCloseWaitsForAnIngestUnderWay(t *testing.T) {
	dir := t.TempDir()
	st := openT(t, dir, Options{SegmentRows: 4})
	ffs := &faultFS{held: make(chan struct{})}
	st.fs = ffs
	src, _ := st.source("s", true)
	src.wal.fs = ffs
	_, _, err := st.Ingest("s", [][]byte{[]byte(`{"event_message":"a0"}`), []byte(`{"event_message":"a1"}`), []byte(`{"event_message":"a2"}`)})
	require.NoError(t, err)
	release := make(chan struct{})
	ffs.hold.Store(&release)
	ingested := make(chan error)
	go func() { // fills the segment, retires it and starts its seal
		_, _, err := st.Ingest("s", [][]byte{[]byte(`{"event_message":"b0"}`), []byte(`{"event_message":"b1"}`)})
		ingested <- err
	}()
	<-ffs.held // the ingest is under way, past the closing check
	closed := make(chan error)
	go func() { closed <- st.Close() }()
	time.Sleep(100 * time.Millisecond) // let Close get as far as it can
	close(release)
	require.NoError(t, <-ingested)
	require.NoError(t, <-closed)
	after := files(t, dir, "s", "*")
	st.sealer.wait()
	st.bg.Wait()
	require.Equal(t, after, files(t, dir, "s", "*"), "nothing changed after Close returned")
	st = openT(t, dir, Options{SegmentRows: 4})
	defer st.Close()
	require.Equal(t, []string{"a0", "a1", "a2", "b0", "b1"}, column(st, "s", "event_message"))
}

// A request whose fsync failed has released the lock but not yet dropped its
// rows when another request finds the open segment full: retiring it first
// undoes the failed write, which leaves the segment empty, and an empty
// segment is not retired (it would be sealed into a file of no rows).
func TestNoEmptySegmentAfterAnUndoneWrite(t *testing.T) {
	dir := t.TempDir()
	opts := Options{SegmentRows: 4}
	st := openT(t, dir, opts)
	ffs := &faultFS{}
	st.fs = ffs
	src, _ := st.source("s", true)
	src.wal.fs = ffs
	// Request X as ingest runs it, up to where it releases the lock.
	src.mu.Lock()
	b := walBatch{arrival: 1, events: [][]byte{[]byte(`{"event_message":"x1"}`), []byte(`{"event_message":"x2"}`), []byte(`{"event_message":"x3"}`), []byte(`{"event_message":"x4"}`)}}
	p, err := src.wal.append(&b)
	require.NoError(t, err)
	src.apply(&b, 0)
	src.mu.Unlock()
	ffs.failSync.Store(true)
	require.Error(t, src.wal.sync(p))
	ffs.failSync.Store(false)
	// Request Y takes the lock before X's dropUndone.
	_, _, err = st.Ingest("s", [][]byte{[]byte(`{"event_message":"y1"}`)})
	require.NoError(t, err)
	src.dropUndone() // X's
	require.NoError(t, st.Flush())
	for _, seg := range st.Snapshot("s").Segments {
		require.Positive(t, seg.Rows())
	}
	require.Equal(t, []string{"y1"}, column(st, "s", "event_message"))
	require.NoError(t, st.Close())
	st = openT(t, dir, opts)
	defer st.Close()
	require.Equal(t, []string{"y1"}, column(st, "s", "event_message"))
	for _, seg := range st.Snapshot("s").Segments {
		require.Positive(t, seg.Rows())
	}
}

func without(list []string, drop ...string) []string {
	var out []string
	for _, s := range list {
		keep := true
		for _, d := range drop {
			keep = keep && s != d
		}
		if keep {
			out = append(out, s)
		}
	}
	return out
}

// Many concurrent writers share fsyncs, and every acknowledged event is back
// after a restart exactly once.
func TestGroupCommit(t *testing.T) {
	dir := t.TempDir()
	st := openT(t, dir, Options{SegmentRows: 100})
	ffs := &faultFS{}
	st.fs = ffs
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				_, _, err := st.Ingest("s", [][]byte{[]byte(fmt.Sprintf(`{"event_message":"w%d-%d"}`, w, i))})
				require.NoError(t, err)
			}
		}()
	}
	wg.Wait()
	t.Logf("%d appends, %d fsyncs", ffs.writes.Load(), ffs.syncs.Load())
	require.NoError(t, st.Close())
	st = openT(t, dir, Options{SegmentRows: 100})
	defer st.Close()
	got := column(st, "s", "event_message")
	sort.Strings(got)
	var want []string
	for w := 0; w < writers; w++ {
		for i := 0; i < each; i++ {
			want = append(want, fmt.Sprintf("w%d-%d", w, i))
		}
	}
	sort.Strings(want)
	require.Equal(t, want, got)
}

func TestRetentionRemovesWALFiles(t *testing.T) {
	dir := t.TempDir()
	// Ingested when they were recent (an event already older than the
	// retention is refused at ingest), then the clock moves on.
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	opts := Options{SegmentRows: 2, Retention: 48 * time.Hour, Now: func() time.Time { return now }}
	st := openT(t, dir, opts)
	for _, day := range []int{1, 2, 3, 4, 8, 9} { // May 1..9: two per segment
		_, _, err := st.Ingest("s", [][]byte{[]byte(fmt.Sprintf(`{"timestamp":"2026-05-%02dT00:00:00Z","event_message":"d%d"}`, day, day))})
		require.NoError(t, err)
	}
	now = time.Date(2026, 5, 10, 0, 0, 0, 0, time.UTC)
	require.NoError(t, st.Flush())
	require.Len(t, files(t, dir, "s", "seg-*.lqs"), 3)
	require.Equal(t, 4, st.EnforceRetention())
	require.Equal(t, []string{"d8", "d9"}, column(st, "s", "event_message"))
	require.Len(t, files(t, dir, "s", "seg-*.lqs"), 1, "the dropped segments' files are gone")
	require.NoError(t, st.Close())
	st = openT(t, dir, opts)
	defer st.Close()
	require.Equal(t, []string{"d8", "d9"}, column(st, "s", "event_message"))
}

func FuzzScanWAL(f *testing.F) {
	var b walBatch
	b.events = [][]byte{[]byte(`{"a":1}`), []byte(`x`)}
	rec := b.encode(walHeader(nil))
	f.Add(rec)
	f.Add(append(rec, rec[8:]...))
	f.Add(rec[:len(rec)-1])
	f.Add([]byte("LQWAL\x00\x00\x01\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := scanWAL(data)
		if err != nil {
			return
		}
		if s.validEnd < 0 || s.validEnd > int64(len(data)) {
			t.Fatalf("validEnd %d outside [0,%d]", s.validEnd, len(data))
		}
		if s.validEnd < int64(len(data)) && s.tail == "" {
			t.Fatalf("bytes past validEnd %d without a reason", s.validEnd)
		}
		// Replaying what was read must not panic either.
		src, _ := New(Options{}).source("s", true)
		src.mu.Lock()
		defer src.mu.Unlock()
		for i := range s.batches {
			src.apply(&s.batches[i], 0)
		}
	})
}

// An open segment past its memory budget is sealed early, in memory and on
// a data directory alike, and nothing is lost by it.
func TestOpenSegmentBudgetSealsEarly(t *testing.T) {
	for _, durable := range []bool{false, true} {
		opts := Options{SegmentRows: 1 << 16, MaxOpenBytes: 64 << 10}
		st := New(opts)
		dir := t.TempDir()
		if durable {
			st = openT(t, dir, opts)
		}
		var want []string
		for b := 0; b < 40; b++ {
			var batch [][]byte
			for i := 0; i < 25; i++ {
				msg := fmt.Sprintf("b%d-%d-%s", b, i, strings.Repeat("x", 100))
				batch = append(batch, []byte(fmt.Sprintf(`{"event_message":%q,"k%d":1}`, msg, i)))
				want = append(want, msg)
			}
			_, _, err := st.Ingest("s", batch)
			require.NoError(t, err)
		}
		require.NoError(t, st.Flush())
		st.bg.Wait()
		segs := st.Snapshot("s").Segments
		if !durable {
			require.Greater(t, len(segs), 5, "sealed early, not at 65536 rows")
			for _, seg := range segs {
				require.Less(t, seg.Rows(), 1000)
			}
		} else {
			// On disk, the small segments sealed early are merged again.
			require.Positive(t, st.MergeStats().Merges)
		}
		require.Equal(t, want, column(st, "s", "event_message"))
		if durable {
			require.NoError(t, st.Close())
			st = openT(t, dir, opts)
			require.Equal(t, want, column(st, "s", "event_message"))
			require.NoError(t, st.Close())
		}
	}
}

// Past --max-disk the oldest data goes first, from any source, and what is
// kept is what queries and a restart see.
func TestMaxDiskDropsOldestFirst(t *testing.T) {
	dir := t.TempDir()
	opts := Options{SegmentRows: 100}
	st := openT(t, dir, opts)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// Two sources interleaved in time: hour h goes to a when even, b when odd.
	for h := 0; h < 40; h++ {
		src := []string{"a", "b"}[h%2]
		var batch [][]byte
		for i := 0; i < 100; i++ {
			batch = append(batch, []byte(fmt.Sprintf(`{"timestamp":%q,"event_message":"h%02d-%03d %s"}`,
				base.Add(time.Duration(h)*time.Hour+time.Duration(i)*time.Second).Format(time.RFC3339), h, i, strings.Repeat("p", 200))))
		}
		_, _, err := st.Ingest(src, batch)
		require.NoError(t, err)
	}
	require.NoError(t, st.Flush())
	full := st.DiskBytes()
	perSeg := full / 40
	require.NoError(t, st.Close())

	// A budget for about a quarter of the segments.
	opts.MaxDiskBytes = full / 4
	st = openT(t, dir, opts)
	dropped := st.EnforceRetention()
	require.LessOrEqual(t, st.DiskBytes(), opts.MaxDiskBytes)
	require.Greater(t, st.DiskBytes(), opts.MaxDiskBytes-2*perSeg, "no more dropped than needed")
	hours := map[string]bool{}
	for _, src := range []string{"a", "b"} {
		for _, m := range column(st, src, "event_message") {
			hours[m[:3]] = true
		}
	}
	kept := len(hours)
	require.Equal(t, 40*100-dropped, kept*100)
	for h := 40 - kept; h < 40; h++ {
		require.True(t, hours[fmt.Sprintf("h%02d", h)], "the newest hours are kept: h%02d", h)
	}
	require.NoError(t, st.Close())
	st = openT(t, dir, opts)
	defer st.Close()
	require.LessOrEqual(t, st.DiskBytes(), opts.MaxDiskBytes)
	require.Equal(t, kept*100, len(column(st, "a", "event_message"))+len(column(st, "b", "event_message")))
}

// The budget holds while ingesting, without anyone calling EnforceRetention.
func TestMaxDiskHoldsDuringIngest(t *testing.T) {
	opts := Options{SegmentRows: 50, MaxDiskBytes: 64 << 10}
	st := openT(t, t.TempDir(), opts)
	defer st.Close()
	for h := 0; h < 60; h++ {
		var batch [][]byte
		for i := 0; i < 50; i++ {
			batch = append(batch, []byte(fmt.Sprintf(`{"timestamp":%d,"event_message":"%d-%d %s"}`, 1_700_000_000+h*100+i, h, i, strings.Repeat("q", 100))))
		}
		_, _, err := st.Ingest("s", batch)
		require.NoError(t, err)
		// Let the seal and the pass it starts finish, in that order: a
		// seal adds to bg, and an Add must not race a Wait at zero.
		st.sealer.wait()
		st.bg.Wait()
		require.LessOrEqual(t, st.segBytes.Load(), opts.MaxDiskBytes+20<<10, "within one segment of the budget")
	}
	require.Less(t, len(column(st, "s", "event_message")), 60*50)
}

// A column whose bytes are damaged is found when a query first reads it:
// the read fails with a *StorageError, the file is moved aside and counted,
// and the source answers without that segment from then on.
func TestDamagedColumnMetByAQuery(t *testing.T) {
	dir := t.TempDir()
	opts := Options{SegmentRows: 2, noMerge: true, noScrub: true}
	st := openT(t, dir, opts)
	for i := 0; i < 5; i++ {
		_, _, err := st.Ingest("s", [][]byte{[]byte(fmt.Sprintf(`{"event_message":"m%d"}`, i))})
		require.NoError(t, err)
	}
	require.NoError(t, st.Close())
	seg := files(t, dir, "s", "seg-*.lqs")[1] // m2, m3
	data, err := os.ReadFile(seg)
	require.NoError(t, err)
	data[columnByte(t, data, "event_message")] ^= 0x20
	require.NoError(t, os.WriteFile(seg, data, 0o644))

	var logs syncBuffer
	st = openT(t, dir, Options{SegmentRows: 2, noMerge: true, noScrub: true, Logger: logTo(&logs)})
	defer st.Close()
	require.Zero(t, st.Recovery().CorruptFiles, "start-up reads only the meta")
	snap := st.Snapshot("s")
	require.Len(t, snap.Segments, 3)
	require.NotNil(t, mustColumn(snap.Segments[0], "event_message"))
	c, err := snap.Segments[1].Column("event_message")
	require.Nil(t, c)
	var se *StorageError
	require.ErrorAs(t, err, &se)
	require.ErrorIs(t, se, errSegFile)
	require.Equal(t, seg, se.File)
	require.Eventually(t, func() bool { return st.Recovery().CorruptFiles == 1 }, 5*time.Second, 5*time.Millisecond)
	require.FileExists(t, seg+".corrupt")
	require.NoFileExists(t, seg)
	require.Contains(t, logs.String(), "moved aside, its events are lost")
	require.Equal(t, []string{"m0", "m1", "m4"}, column(st, "s", "event_message"))
}

// The start-up scrub finds a damaged column that no query has read.
func TestScrubFindsDamage(t *testing.T) {
	dir := t.TempDir()
	st := openT(t, dir, Options{SegmentRows: 2, noMerge: true})
	for i := 0; i < 4; i++ {
		_, _, err := st.Ingest("s", [][]byte{[]byte(fmt.Sprintf(`{"event_message":"m%d","n":%d}`, i, i))})
		require.NoError(t, err)
	}
	require.NoError(t, st.Close())
	seg := files(t, dir, "s", "seg-*.lqs")[0]
	data, err := os.ReadFile(seg)
	require.NoError(t, err)
	data[columnByte(t, data, "n")] ^= 0x01
	require.NoError(t, os.WriteFile(seg, data, 0o644))
	st = openT(t, dir, Options{SegmentRows: 2, noMerge: true})
	defer st.Close()
	<-st.scrubbed
	require.Equal(t, 1, st.Recovery().CorruptFiles)
	require.FileExists(t, seg+".corrupt")
	require.Equal(t, []string{"m2", "m3"}, column(st, "s", "event_message"))
}

func (b *syncBuffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}

// A segment kept alive by one future-dated event gives back its expired
// rows' space: the retention pass rewrites it without them, and a restart
// reads the rewritten file. A segment with only a few expired rows is left
// as it is (they stay hidden from queries).
func TestRetentionTrimsASegmentPinnedByTheFuture(t *testing.T) {
	dir := t.TempDir()
	// Ingested when they were recent (an event already older than the
	// retention is refused at ingest), then the clock moves on.
	now := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	opts := Options{SegmentRows: 100, Retention: 7 * 24 * time.Hour, Now: func() time.Time { return now }, noMerge: true}
	st := openT(t, dir, opts)
	var batch [][]byte
	for i := 0; i < 30; i++ { // April: expired by May 10
		batch = append(batch, []byte(fmt.Sprintf(`{"timestamp":"2026-04-%02dT00:00:00Z","event_message":"old%02d","pad":"%s"}`, 1+i%28, i, strings.Repeat("x", 200))))
	}
	batch = append(batch, []byte(`{"timestamp":"2026-05-09T00:00:00Z","event_message":"fresh"}`),
		[]byte(`{"timestamp":"2027-01-01T00:00:00Z","event_message":"future"}`))
	_, rej := st.Append("s", batch)
	require.Empty(t, rej)
	now = time.Date(2026, 5, 10, 0, 0, 0, 0, time.UTC)
	require.NoError(t, st.Flush())
	segFile := files(t, dir, "s", "seg-*.lqs")
	require.Len(t, segFile, 1)
	before, err := os.Stat(segFile[0])
	require.NoError(t, err)
	require.Len(t, column(st, "s", "event_message"), 32, "stored until the rewrite (queries never see the expired ones: exec/retention_test.go)")

	require.Equal(t, 30, st.EnforceRetention())
	segs := st.Snapshot("s").Segments
	require.Len(t, segs, 1)
	require.Equal(t, 2, segs[0].Rows())
	after, err := os.Stat(segFile[0])
	require.NoError(t, err)
	require.Less(t, after.Size(), before.Size()/2, "the expired rows' bytes are gone from the file")
	require.Nil(t, mustColumn(segs[0], "pad"), "a column only expired rows had is not kept")
	require.Zero(t, st.EnforceRetention(), "nothing left to trim")
	require.NoError(t, st.Close())

	st = openT(t, dir, opts)
	defer st.Close()
	require.Equal(t, []string{"fresh", "future"}, column(st, "s", "event_message"))
	require.Equal(t, 2, st.Snapshot("s").Segments[0].Rows())

	// One expired row among many fresh ones is not worth a rewrite.
	batch = batch[:0]
	batch = append(batch, []byte(`{"timestamp":"2026-04-01T00:00:00Z","event_message":"old"}`))
	for i := 0; i < 10; i++ {
		batch = append(batch, []byte(fmt.Sprintf(`{"timestamp":"2026-05-09T00:00:%02dZ","event_message":"f%d"}`, i, i)))
	}
	now = time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	_, rej = st.Append("s", batch)
	require.Empty(t, rej)
	now = time.Date(2026, 5, 10, 0, 0, 0, 0, time.UTC)
	require.NoError(t, st.Flush())
	require.Zero(t, st.EnforceRetention())
	require.Len(t, column(st, "s", "event_message"), 13)
}

// In a large segment, expired rows are reclaimed once they fill a time block,
// well before they are a quarter of it; fewer than a block wait.
func TestRetentionTrimsABlockOfExpiredRows(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 5, 10, 0, 0, 0, 0, time.UTC)
	const rows = 8 * TimeBlock
	opts := Options{SegmentRows: rows, Retention: 7 * 24 * time.Hour, Now: func() time.Time { return now }, noMerge: true}
	st := openT(t, dir, opts)
	defer st.Close()
	expired := TimeBlock + TimeBlock/2 // more than a block, less than a quarter
	base := now.Add(-8 * 24 * time.Hour)
	var batch [][]byte
	for i := 0; i < rows; i++ {
		at := base.Add(time.Duration(i) * time.Second) // the first `expired` rows are past the cutoff...
		if i >= expired {
			at = now.Add(-time.Hour).Add(time.Duration(i) * time.Millisecond) // ...the rest fresh
		}
		batch = append(batch, []byte(fmt.Sprintf(`{"timestamp":%q,"event_message":"m%d"}`, at.Format(time.RFC3339Nano), i)))
	}
	// Ingested when the oldest was recent (an event already older than the
	// retention is refused at ingest), then the clock moves on.
	later := now
	now = base
	_, rej := st.Append("s", batch)
	require.Empty(t, rej)
	now = later
	require.NoError(t, st.Flush())
	require.Len(t, st.Snapshot("s").Segments, 1)
	require.Less(t, expired*trimShare, rows, "fewer than a quarter expired")

	require.Equal(t, expired, st.EnforceRetention())
	msgs := column(st, "s", "event_message")
	require.Len(t, msgs, rows-expired)
	require.Equal(t, fmt.Sprintf("m%d", expired), msgs[0])

	// Half a block more expire: not worth a rewrite yet; a block: worth it.
	fresh0 := now.Add(-time.Hour) // row i >= expired is at fresh0 + i ms
	retention := 7 * 24 * time.Hour
	now = fresh0.Add(retention).Add(time.Duration(expired+TimeBlock/2) * time.Millisecond)
	require.Zero(t, st.EnforceRetention())
	require.Len(t, column(st, "s", "event_message"), rows-expired)
	now = fresh0.Add(retention).Add(time.Duration(expired+TimeBlock) * time.Millisecond)
	require.Equal(t, TimeBlock, st.EnforceRetention())
	require.Equal(t, fmt.Sprintf("m%d", expired+TimeBlock), column(st, "s", "event_message")[0])
}

// Concurrent writers while fsyncs (and writes) fail now and then:
// afterwards the store holds exactly the acknowledged events, each once — in
// memory right away and after a restart — so a client that retries a refused
// request does not store it twice.
func TestFailedFsyncsKeepExactlyTheAcknowledged(t *testing.T) {
	for _, failWrites := range []bool{false, true} {
		t.Run(fmt.Sprintf("failed writes too: %v", failWrites), func(t *testing.T) {
			failedIOKeepsTheAcknowledged(t, failWrites)
		})
	}
}

func failedIOKeepsTheAcknowledged(t *testing.T, failWrites bool) {
	dir := t.TempDir()
	st := openT(t, dir, Options{SegmentRows: 64})
	ffs := &faultFS{}
	st.fs = ffs
	const writers, each = 4, 120
	var (
		mu    sync.Mutex
		acked []string
		wg    sync.WaitGroup
	)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				ffs.failSync.Store(w == 0 && i%7 == 3) // one writer breaks fsyncs for everyone now and then
				if failWrites {
					ffs.failWrite.Store(w == 1 && i%5 == 2) // and another writes
				}
				msg := fmt.Sprintf("w%d-%d", w, i)
				_, _, err := st.Ingest("s", [][]byte{[]byte(`{"event_message":"` + msg + `"}`)})
				if err == nil {
					mu.Lock()
					acked = append(acked, msg)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	ffs.failSync.Store(false)
	ffs.failWrite.Store(false)
	sort.Strings(acked)
	sorted := func(st *Store) []string {
		got := column(st, "s", "event_message")
		sort.Strings(got)
		return got
	}
	require.Less(t, len(acked), writers*each, "some requests were refused")
	require.Equal(t, acked, sorted(st))
	require.Equal(t, len(acked), st.Stats()[0].Events, "the source's event count")
	require.NoError(t, st.Close())
	again := openT(t, dir, Options{SegmentRows: 64})
	defer again.Close()
	require.Equal(t, acked, sorted(again))
}

// Refused events leave no trace in the field tree either: fields they
// brought do not count toward the cap, and types and shapes they changed
// are as before, both before a restart and after. A store fed only the
// acknowledged events is the reference.
func TestRefusedEventsLeaveNoFields(t *testing.T) {
	// timestamp, id, event_message, m, m.x and n make 6 of the cap's 8.
	a := [][]byte{[]byte(`{"id":"a0","timestamp":1700000001000000,"event_message":"a0","m":{"x":1},"n":1}`)}
	// p and q would fill the cap; m turns scalar and n a string.
	b := [][]byte{[]byte(`{"id":"b0","timestamp":1700000002000000,"event_message":"b0","m":"flat","n":"str","p":1,"q":[2]}`)}
	// late and later get columns only if b's fields are gone.
	c := [][]byte{[]byte(`{"id":"c0","timestamp":1700000003000000,"event_message":"c0","m":{"x":2},"n":3,"late":true,"later":"s"}`)}
	opts := Options{MaxFields: 8}
	acked := New(opts)
	acked.Append("s", a)
	acked.Append("s", c)
	want, wantPaths := rows(acked, "s"), acked.Snapshot("s").Schema.Paths()
	require.Contains(t, wantPaths, "later")

	for _, mode := range []string{"write", "fsync"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			st := openT(t, dir, opts)
			ffs := &faultFS{}
			st.fs = ffs
			_, _, err := st.Ingest("s", a)
			require.NoError(t, err)
			fail := ffs.failing(mode)
			fail.Store(true)
			_, _, err = st.Ingest("s", b)
			require.ErrorIs(t, err, syscall.ENOSPC)
			fail.Store(false)
			_, _, err = st.Ingest("s", c)
			require.NoError(t, err)
			require.Equal(t, wantPaths, st.Snapshot("s").Schema.Paths())
			require.Equal(t, want, rows(st, "s"))

			require.NoError(t, st.Close())
			st = openT(t, dir, opts)
			defer st.Close()
			require.Equal(t, wantPaths, st.Snapshot("s").Schema.Paths())
			require.Equal(t, want, rows(st, "s"))
		})
	}
}

// Taking a refused chunk back replays the open segment's file, up to a
// segment's events. A disk that refuses every other write rebuilds once,
// not once per refusal: for a while after a failure, chunks are written
// before they are applied, so a refused one has nothing to take back.
func TestFlakyWritesRebuildOnce(t *testing.T) {
	var logs syncBuffer
	st := openT(t, t.TempDir(), Options{Logger: logTo(&logs)})
	defer st.Close()
	ffs := &faultFS{}
	st.fs = ffs
	var acked []string
	for i := 0; i < 12; i++ {
		fail := i%2 == 1
		ffs.failWrite.Store(fail)
		msg := fmt.Sprintf("m%d", i)
		_, _, err := st.Ingest("s", [][]byte{[]byte(`{"event_message":"` + msg + `"}`)})
		if fail {
			require.ErrorIs(t, err, syscall.ENOSPC)
			continue
		}
		require.NoError(t, err)
		acked = append(acked, msg)
	}
	require.Equal(t, acked, column(st, "s", "event_message"))
	require.Equal(t, 1, strings.Count(logs.String(), "dropped refused events"), logs.String())
}

// A rebuild after a restart types the open segment's events as the restart
// did: it replays them over the tree from before them, not over the tree they
// widened (a FLOAT64 widened to STRING keeps "1.5", not the raw "1.50").
func TestRebuildMatchesARestart(t *testing.T) {
	for _, mode := range []string{"write", "fsync"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			st := openT(t, dir, Options{})
			_, _, err := st.Ingest("s", [][]byte{[]byte(`{"event_message":"a","n":1.50}`), []byte(`{"event_message":"b","n":"x"}`)})
			require.NoError(t, err)
			want := column(st, "s", "n")
			require.Equal(t, []string{"1.5", "x"}, want)
			require.NoError(t, st.Close())

			st = openT(t, dir, Options{})
			require.Equal(t, want, column(st, "s", "n"), "after a restart")
			ffs := &faultFS{}
			st.fs = ffs
			st.Source("s").wal.fs = ffs // the WAL took the store's at start
			fail := ffs.failing(mode)
			fail.Store(true)
			_, _, err = st.Ingest("s", [][]byte{[]byte(`{"event_message":"c"}`)})
			require.ErrorIs(t, err, syscall.ENOSPC)
			fail.Store(false)
			require.Equal(t, want, column(st, "s", "n"), "after the rebuild")
			require.NoError(t, st.Close())
			st = openT(t, dir, Options{})
			defer st.Close()
			require.Equal(t, want, column(st, "s", "n"), "after another restart")
		})
	}
}

// A start that fails (here on a WAL file of another version) writes no
// segment file: segments it replayed before the failure would carry a field
// tree it had not finished building, and their WAL files would be deleted.
func TestFailedStartSealsNothing(t *testing.T) {
	dir := t.TempDir()
	sdir := writeWAL(t, dir, "s", 1, `{"event_message":"a","only1":42}`)
	writeWAL(t, dir, "s", 2, `{"event_message":"b"}`)
	writeWALOfAnotherVersion(t, dir, "s", 3)

	_, err := Open(dir, Options{})
	require.ErrorIs(t, err, errWALVersion)
	segs, err := filepath.Glob(filepath.Join(sdir, segPrefix+"*"))
	require.NoError(t, err)
	require.Empty(t, segs)

	// The operator moves the file aside: both events, and only1, are there.
	require.NoError(t, os.Rename(walPath(sdir, 3), filepath.Join(dir, "wal-3.aside")))
	st := openT(t, dir, Options{})
	defer st.Close()
	require.Equal(t, []string{"a", "b"}, column(st, "s", "event_message"))
	require.Equal(t, []string{"42", "NULL"}, column(st, "s", "only1"))
}

// renameOnFail moves the WAL file away when a write fails, so that only its
// open descriptor still reaches it.
type renameOnFail struct {
	faultFS
	moved string
}

func (f *renameOnFail) write(file *os.File, b []byte) (int, error) {
	n, err := f.faultFS.write(file, b)
	if err != nil && f.moved == "" {
		f.moved = file.Name()
		_ = os.Rename(file.Name(), file.Name()+".away")
	}
	return n, err
}

// A failed write's rebuild rereads the WAL file through the descriptor the
// WAL holds: it needs no new one (a process out of descriptors still
// rebuilds) and no path.
func TestRebuildReadsThroughTheOpenFile(t *testing.T) {
	dir := t.TempDir()
	st := openT(t, dir, Options{})
	ffs := &renameOnFail{}
	st.fs = ffs
	_, _, err := st.Ingest("s", [][]byte{[]byte(`{"event_message":"a"}`)})
	require.NoError(t, err)
	ffs.failWrite.Store(true)
	_, _, err = st.Ingest("s", [][]byte{[]byte(`{"event_message":"refused","newfield":1}`)})
	require.ErrorIs(t, err, syscall.ENOSPC)
	ffs.failWrite.Store(false)
	require.Equal(t, []string{"a"}, column(st, "s", "event_message"))
	require.NotContains(t, st.Snapshot("s").Schema.Paths(), "newfield")
	require.NoError(t, os.Rename(ffs.moved+".away", ffs.moved))
	require.NoError(t, st.Flush())
	require.NoError(t, st.Close())
	st = openT(t, dir, Options{})
	defer st.Close()
	require.Equal(t, []string{"a"}, column(st, "s", "event_message"))
}

// When the WAL file cannot be reread at all, the open segment cannot be
// matched to it: the source then takes no event and seals nothing (so no
// refused event reaches a segment file) until a rebuild succeeds.
func TestUnreadableWALStopsTheSourceUntilRebuilt(t *testing.T) {
	dir := t.TempDir()
	clock := newTestClock()
	st := openT(t, dir, Options{Now: clock.now})
	ffs := &faultFS{}
	st.fs = ffs
	_, _, err := st.Ingest("s", [][]byte{[]byte(`{"event_message":"a"}`)})
	require.NoError(t, err)
	ffs.failWrite.Store(true)
	ffs.failRead.Store(true)
	_, _, err = st.Ingest("s", [][]byte{[]byte(`{"event_message":"refused","newfield":1}`)})
	require.ErrorIs(t, err, syscall.ENOSPC)
	ffs.failWrite.Store(false)
	_, _, err = st.Ingest("s", [][]byte{[]byte(`{"event_message":"b"}`)})
	require.ErrorIs(t, err, syscall.EIO, "refused while the rebuild fails")
	require.ErrorIs(t, st.Flush(), syscall.EIO, "nothing sealed")
	segs, err := filepath.Glob(filepath.Join(dir, "sources", encodeName("s"), segPrefix+"*"))
	require.NoError(t, err)
	require.Empty(t, segs)

	ffs.failRead.Store(false)
	_, _, err = st.Ingest("s", [][]byte{[]byte(`{"event_message":"c"}`)})
	require.ErrorIs(t, err, syscall.EIO, "refused until the next attempt is due")
	clock.advance(repairFirst)
	_, _, err = st.Ingest("s", [][]byte{[]byte(`{"event_message":"c"}`)})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "c"}, column(st, "s", "event_message"))
	require.NotContains(t, st.Snapshot("s").Schema.Paths(), "newfield")
	require.EqualValues(t, 2, st.Stats()[0].Ingested)
	require.NoError(t, st.Close())
	st = openT(t, dir, Options{})
	defer st.Close()
	require.Equal(t, []string{"a", "c"}, column(st, "s", "event_message"))
}

// An event nested past event.MaxDepth is rejected before it makes a field
// deeper than segment files hold: the source's next segment file is
// readable, and its tree can be restored by a rebuild.
func TestTooDeepEventMakesNoField(t *testing.T) {
	var logs syncBuffer
	dir := t.TempDir()
	st := openT(t, dir, Options{Logger: logTo(&logs)})
	ffs := &faultFS{}
	st.fs = ffs
	deep := `{"x":1}`
	for i := 0; i < event.MaxDepth; i++ {
		deep = `{"d":` + deep + `}`
	}
	_, rej, err := st.Ingest("s", [][]byte{[]byte(`{"event_message":"a"}`), []byte(deep)})
	require.NoError(t, err)
	require.Len(t, rej, 1)
	require.NoError(t, st.Flush())
	require.NotContains(t, logs.String(), "unreadable")

	ffs.failWrite.Store(true)
	_, _, err = st.Ingest("s", [][]byte{[]byte(`{"event_message":"refused","newfield":1}`)})
	require.ErrorIs(t, err, syscall.ENOSPC)
	require.NotContains(t, st.Snapshot("s").Schema.Paths(), "newfield")
	require.NoError(t, st.Close())
	st = openT(t, dir, Options{})
	defer st.Close()
	require.Zero(t, st.Recovery().CorruptFiles)
	require.Equal(t, []string{"a"}, column(st, "s", "event_message"))
}

// A WAL file replayed at start is typed by the tree it was first written
// with, not by the trees of later segment files: a crash can leave segment
// 1 unsealed (its WAL file) while segment 2, sealed, widened a field.
func TestReplayTypesAsFirstWritten(t *testing.T) {
	dir := t.TempDir()
	wal1 := []string{`{"event_message":"a","n":1.50}`, `{"event_message":"b","n":2.5}`}
	sdir := writeWAL(t, dir, "s", 1, wal1...)
	writeWAL(t, dir, "s", 2, `{"event_message":"c","n":"x"}`, `{"event_message":"d"}`)
	opts := Options{SegmentRows: 2, noMerge: true}
	st := openT(t, dir, opts)
	want := column(st, "s", "n")
	require.Equal(t, []string{"1.5", "2.5", "x", "NULL"}, want)
	require.NoError(t, st.Flush())
	require.NoError(t, st.Close())

	// As if the process had died before sealing segment 1.
	require.NoError(t, os.Remove(segPath(sdir, 1)))
	writeWAL(t, dir, "s", 1, wal1...)
	st = openT(t, dir, opts)
	defer st.Close()
	require.Equal(t, want, column(st, "s", "n"))
}

// An array field whose elements were widened to STRING stays so after a
// restart: segment files carry the trees of their own retires, and merging
// them widens mixed element types as the writer does.
func TestArrayElementWideningSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	opts := Options{SegmentRows: 1, noMerge: true}
	evs := [][]byte{[]byte(`{"event_message":"a","a":[1]}`), []byte(`{"event_message":"b","a":["x"]}`)}
	next := [][]byte{[]byte(`{"event_message":"c","a":[2,3]}`)}
	mem := New(opts)
	st := openT(t, dir, opts)
	for _, ev := range evs {
		mem.Append("s", [][]byte{ev})
		_, _, err := st.Ingest("s", [][]byte{ev})
		require.NoError(t, err)
	}
	mem.Append("s", next)
	require.NoError(t, st.Close())
	st = openT(t, dir, opts)
	defer st.Close()
	_, _, err := st.Ingest("s", next)
	require.NoError(t, err)
	elems := func(st *Store) (types []string) {
		snap := st.Snapshot("s")
		f, ok := snap.Schema.Lookup("a")
		require.True(t, ok)
		types = append(types, f.Type.String())
		for _, seg := range snap.Segments {
			for r := 0; r < seg.Rows(); r++ {
				types = append(types, mustValue(seg, f, r).L[0].T.String())
			}
		}
		return types
	}
	require.Equal(t, elems(mem), elems(st))
}

// When one source cannot be started, Open returns only after the seals and
// merges of the sources loaded before it: nothing writes into the directory
// once its lock is released.
func TestFailedStartLeavesNothingWriting(t *testing.T) {
	dir := t.TempDir()
	var adir string
	for q := uint64(1); q <= 3; q++ { // two small segments to seal and merge
		adir = writeWAL(t, dir, "a", q, `{"event_message":"a"}`)
	}
	writeWALOfAnotherVersion(t, dir, "b", 1)
	_, err := Open(dir, Options{})
	require.ErrorIs(t, err, errWALVersion)
	tmps, err := filepath.Glob(filepath.Join(adir, "*.tmp"))
	require.NoError(t, err)
	require.Empty(t, tmps)
}

// testClock is a store clock that tests move by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock { return &testClock{t: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)} }

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// A WAL file that could not be cut back after a failed write refuses
// events (nothing may follow a torn record) until a later attempt cuts it
// back; then the source takes events again by itself, and a restart finds
// exactly the acknowledged ones.
func TestBrokenWALRepairsItself(t *testing.T) {
	dir := t.TempDir()
	clock := newTestClock()
	st := openT(t, dir, Options{Now: clock.now})
	ffs := &faultFS{}
	st.fs = ffs
	ingest := func(msg string) error {
		_, _, err := st.Ingest("s", [][]byte{[]byte(`{"event_message":"` + msg + `"}`)})
		return err
	}
	require.NoError(t, ingest("a"))
	ffs.failWrite.Store(true)
	ffs.failTruncate.Store(true)
	require.ErrorIs(t, ingest("refused"), syscall.ENOSPC)
	require.True(t, st.Source("s").wal.isBroken())
	ffs.failWrite.Store(false)
	require.Error(t, ingest("refused too"), "the torn record is still there")
	clock.advance(time.Minute)
	require.Error(t, ingest("refused again"), "the cut still fails")
	ffs.failTruncate.Store(false)
	require.Error(t, ingest("refused: the next attempt is not due yet"))
	clock.advance(time.Minute)
	require.NoError(t, ingest("b"))
	require.False(t, st.Source("s").wal.isBroken())
	require.NoError(t, ingest("c"))
	require.Equal(t, []string{"a", "b", "c"}, column(st, "s", "event_message"))
	require.NoError(t, st.Close())
	st = openT(t, dir, Options{})
	defer st.Close()
	require.Equal(t, []string{"a", "b", "c"}, column(st, "s", "event_message"))
}

// While the open segment cannot be rebuilt, attempts back off: requests
// meanwhile are refused without rereading the WAL file or logging again,
// and the wait doubles after each failed attempt, up to repairMost.
func TestFailingRebuildBacksOff(t *testing.T) {
	var logs syncBuffer
	dir := t.TempDir()
	clock := newTestClock()
	st := openT(t, dir, Options{Now: clock.now, Logger: logTo(&logs)})
	defer st.Close()
	ffs := &faultFS{}
	st.fs = ffs
	ingest := func() error {
		_, _, err := st.Ingest("s", [][]byte{[]byte(`{"event_message":"x"}`)})
		return err
	}
	require.NoError(t, ingest())
	ffs.failWrite.Store(true)
	ffs.failRead.Store(true)
	require.ErrorIs(t, ingest(), syscall.ENOSPC) // the write fails, its rebuild too
	ffs.failWrite.Store(false)
	attempts := func() int64 { return ffs.reads.Load() }
	require.EqualValues(t, 1, attempts(), "the failed write's own rebuild")
	tries := func() {
		before := attempts()
		for i := 0; i < 10; i++ {
			require.ErrorIs(t, ingest(), syscall.EIO)
		}
		require.EqualValues(t, before+1, attempts(), "one attempt per back-off, not one per request")
	}
	tries()
	for _, wait := range []time.Duration{repairFirst, 2 * repairFirst, 4 * repairFirst, 8 * repairFirst} {
		clock.advance(wait - time.Nanosecond)
		before := attempts()
		require.ErrorIs(t, ingest(), syscall.EIO)
		require.EqualValues(t, before, attempts(), "not due before %v", wait)
		clock.advance(time.Nanosecond)
		tries()
	}
	require.Equal(t, 6, strings.Count(logs.String(), "could not reread"), "one log line per attempt")
	ffs.failRead.Store(false)
	clock.advance(repairMost)
	require.NoError(t, ingest())
}

// Once retention has dropped every sealed segment of a source, memory still
// knows the fields and widened types those segments brought; a restart
// knows them too, from the field tree in the open segment's WAL header
// (it used to read trees only from segment files, and forgot them).
func TestRetentionKeepsFieldsAcrossARestart(t *testing.T) {
	dir := t.TempDir()
	// Ingested when they were recent (an event already older than the
	// retention is refused at ingest), then the clock moves on.
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	opts := Options{SegmentRows: 2, Retention: 48 * time.Hour, Now: func() time.Time { return now }}
	st := openT(t, dir, opts)
	for _, ev := range []string{
		`{"timestamp":"2026-05-01T00:00:00Z","old":1,"o":{"x":"a"}}`,
		`{"timestamp":"2026-05-01T00:00:01Z","old":1.5}`, // a sealed segment: old widened to FLOAT64
		`{"timestamp":"2026-05-09T00:00:00Z","event_message":"fresh"}`,
	} {
		_, _, err := st.Ingest("s", [][]byte{[]byte(ev)})
		require.NoError(t, err)
	}
	now = time.Date(2026, 5, 10, 0, 0, 0, 0, time.UTC)
	st.sealer.wait()
	require.Equal(t, 2, st.EnforceRetention())
	require.Equal(t, []string{"fresh"}, column(st, "s", "event_message"))
	schema := func(st *Store) map[string]string {
		out := map[string]string{}
		for _, p := range st.Snapshot("s").Schema.Paths() {
			f, _ := st.Snapshot("s").Schema.Lookup(p)
			out[p] = f.Type.String()
		}
		return out
	}
	inMemory := schema(st)
	require.Equal(t, "FLOAT64", inMemory["old"])
	require.Contains(t, inMemory, "o.x")
	require.NoError(t, st.Close())
	require.Empty(t, files(t, dir, "s", "seg-*.lqs"), "every segment file is gone")
	st = openT(t, dir, opts)
	defer st.Close()
	require.Equal(t, inMemory, schema(st))
	require.Equal(t, []string{"fresh"}, column(st, "s", "event_message"))
}

// A WAL file of version 1 (no field tree in its header) is still read.
func TestWALVersion1IsRead(t *testing.T) {
	dir := t.TempDir()
	sdir := filepath.Join(dir, "sources", encodeName("s"))
	require.NoError(t, os.MkdirAll(sdir, 0o755))
	b := walBatchOf(`{"event_message":"v1","n":7}`)
	header := append([]byte(nil), walMagic[:]...)
	header[7] = 1
	require.NoError(t, os.WriteFile(walPath(sdir, 1), b.encode(header), 0o644))
	st := openT(t, dir, Options{})
	defer st.Close()
	require.Equal(t, []string{"v1"}, column(st, "s", "event_message"))
	_, _, err := st.Ingest("s", [][]byte{[]byte(`{"event_message":"v2"}`)})
	require.NoError(t, err)
	require.Equal(t, []string{"v1", "v2"}, column(st, "s", "event_message"))
}

// Each segment file carries the field tree as of its own retire, not the
// source's tree when the file is written: a field first seen after the
// segment was retired, while it waited to be sealed, is not in its file.
func TestSegmentFilesCarryTheirOwnTree(t *testing.T) {
	dir := t.TempDir()
	st := openT(t, dir, Options{noMerge: true})
	ingest := func(ev string) {
		_, _, err := st.Ingest("s", [][]byte{[]byte(ev)})
		require.NoError(t, err)
	}
	ingest(`{"a":1}`)
	src := st.Source("s")
	src.mu.Lock()
	full, err := src.retire()
	src.mu.Unlock()
	require.NoError(t, err)
	ingest(`{"b":"x"}`) // after the retire, before the seal
	src.seal(full)
	require.NoError(t, st.Close())
	segs := files(t, dir, "s", "seg-*.lqs")
	require.Len(t, segs, 1)
	f, err := os.Open(segs[0])
	require.NoError(t, err)
	defer f.Close()
	fi, err := f.Stat()
	require.NoError(t, err)
	m, err := readSegmentMeta(f, fi.Size())
	require.NoError(t, err)
	var fields []string
	for _, n := range m.tree.Root().Children {
		fields = append(fields, n.Name)
	}
	require.ElementsMatch(t, []string{"a", "id", "timestamp"}, fields)
}
