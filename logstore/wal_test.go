package logstore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A record taken back (retract) is gone from the file, whether or not an
// fsync covered it, and what is appended next takes its place; the synced
// mark never claims bytes that are no longer there.
func TestWALRetractTakesBackTheLastRecord(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wal")
	w := &wal{dir: dir, fs: osFS{}, genEnd: map[uint64]int64{}, seq: 1}
	defer w.close()
	batch := func(evs ...string) *walBatch {
		b := &walBatch{arrival: 7}
		for _, e := range evs {
			b.events = append(b.events, []byte(e))
		}
		return b
	}
	a, err := w.append(batch(`{"a":1}`, `{"a":2}`))
	require.NoError(t, err)
	require.NoError(t, w.sync(a))
	for _, syncFirst := range []bool{false, true} {
		b, err := w.append(batch(`{"b":1}`, `{"b":2}`, `{"b":3}`))
		require.NoError(t, err)
		if syncFirst {
			require.NoError(t, w.sync(b)) // as the fsync started beside the apply does
		}
		require.NoError(t, w.retract(b))
		require.LessOrEqual(t, w.synced.Load(), b.start)
		require.Equal(t, a.end, b.start)
	}
	// Only the last record can be taken back.
	c, err := w.append(batch(`{"c":1}`))
	require.NoError(t, err)
	d, err := w.append(batch(`{"d":1}`))
	require.NoError(t, err)
	require.Error(t, w.retract(c))
	require.NoError(t, w.sync(d))

	data, err := os.ReadFile(walPath(dir, 1))
	require.NoError(t, err)
	scan, err := scanWAL(data)
	require.NoError(t, err)
	require.Empty(t, scan.tail)
	var got []string
	for _, b := range scan.batches {
		for _, e := range b.events {
			got = append(got, string(e))
		}
	}
	require.Equal(t, []string{`{"a":1}`, `{"a":2}`, `{"c":1}`, `{"d":1}`}, got)
}
