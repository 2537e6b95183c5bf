package logstore

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// walBatchOf is a record of the given events.
func walBatchOf(evs ...string) *walBatch {
	b := &walBatch{arrival: 7}
	for _, e := range evs {
		b.events = append(b.events, []byte(e))
	}
	return b
}

// writeWAL writes a source's WAL file seq, as a crash would leave it, with
// one record of the given events, and returns the source's directory.
func writeWAL(t *testing.T, dir, source string, seq uint64, evs ...string) string {
	sdir := filepath.Join(dir, "sources", encodeName(source))
	require.NoError(t, os.MkdirAll(sdir, 0o755))
	b := walBatchOf(evs...)
	b.arrival = 1_700_000_000_000_000 // events without a timestamp get this one
	require.NoError(t, os.WriteFile(walPath(sdir, seq), b.encode(walHeader(nil)), 0o644))
	return sdir
}

// walHeaderLen is the length of a WAL file's header, of either version.
func walHeaderLen(data []byte) int {
	if data[7] < 2 {
		return len(walMagic)
	}
	return 16 + int(binary.LittleEndian.Uint32(data[8:]))
}

// writeWALOfAnotherVersion writes a WAL file header of a version this build
// does not read.
func writeWALOfAnotherVersion(t *testing.T, dir, source string, seq uint64) {
	sdir := filepath.Join(dir, "sources", encodeName(source))
	require.NoError(t, os.MkdirAll(sdir, 0o755))
	header := append([]byte(nil), walMagic[:]...)
	header[7] = walVersion + 1
	require.NoError(t, os.WriteFile(walPath(sdir, seq), header, 0o644))
}

// walEvents reads back every event of a WAL file, and what stopped reading.
func walEvents(t *testing.T, name string) ([]string, string) {
	data, err := os.ReadFile(name)
	require.NoError(t, err)
	scan, err := scanWAL(data)
	require.NoError(t, err)
	var got []string
	for _, b := range scan.batches {
		for _, e := range b.events {
			got = append(got, string(e))
		}
	}
	return got, scan.tail
}

// After a failed fsync cut the file back, later records still land where
// the file ends: every acknowledged event reads back once, and nothing else.
// The record the failed fsync dropped is shorter, then longer, than the ones
// after it (found by review: the logical end was left past the cut).
func TestWALRecordsAfterAFailedFsync(t *testing.T) {
	for _, dropped := range [][]string{{`{"b":1}`}, {`{"b":1}`, `{"b":2,"pad":"` + strings.Repeat("x", 80) + `"}`}} {
		dir := filepath.Join(t.TempDir(), "wal")
		ffs := &faultFS{}
		w := &wal{dir: dir, fs: ffs, genEnd: map[uint64]int64{}, seq: 1}
		a, err := w.append(walBatchOf(`{"a":1}`))
		require.NoError(t, err)
		require.NoError(t, w.sync(a))
		b, err := w.append(walBatchOf(dropped...))
		require.NoError(t, err)
		ffs.failSync.Store(true)
		require.Error(t, w.sync(b))
		ffs.failSync.Store(false)
		require.Error(t, w.sync(b), "a record cut by a failed fsync is never reported durable")
		c, err := w.append(walBatchOf(`{"c":1}`))
		require.NoError(t, err)
		require.NoError(t, w.sync(c))
		d1, err := w.append(walBatchOf(`{"d":1}`))
		require.NoError(t, err)
		require.NoError(t, w.sync(d1))
		require.NoError(t, w.close())
		got, tail := walEvents(t, walPath(dir, 1))
		require.Empty(t, tail)
		require.Equal(t, []string{`{"a":1}`, `{"c":1}`, `{"d":1}`}, got, "dropped %d events", len(dropped))
	}
}
