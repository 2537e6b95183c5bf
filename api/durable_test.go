package api

import (
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/logstore"
)

// At the memory limit, ingest answers 429 with Retry-After and stores
// nothing; once memory is back, the same request is stored.
func TestIngestAtMemoryLimit(t *testing.T) {
	var over atomic.Bool
	h := newHarness(t, func(c *Config) { c.Overloaded = over.Load })
	over.Store(true)
	r := h.ingest("s", []byte(`[{"event_message":"a"}]`), nil)
	requireError(t, r, 429, "RESOURCE_EXHAUSTED", "")
	require.Contains(t, string(r.body), "memory limit")
	require.Equal(t, "2", r.header.Get("Retry-After"), "the memory limit's own delay, not writeError's default")
	require.Empty(t, h.store.Names())
	over.Store(false)
	r = h.ingest("s", []byte(`[{"event_message":"a"}]`), nil)
	require.Equal(t, 200, r.code, string(r.body))
	require.Equal(t, 1, h.store.Snapshot("s").Segments[0].Rows())
}

// When events cannot be made durable, the reply is 503 with Retry-After,
// never 200.
func TestIngestNotDurableIs503(t *testing.T) {
	dir := t.TempDir()
	st, err := logstore.Open(dir, logstore.Options{})
	require.NoError(t, err)
	h := newHarness(t, func(c *Config) { c.Backend = Local(st) })
	r := h.ingest("s", []byte(`[{"event_message":"a"}]`), nil)
	require.Equal(t, 200, r.code, string(r.body))
	// The WAL is closed under the handler (as at the end of a drain):
	// nothing more can be made durable.
	require.NoError(t, st.Close())
	r = h.ingest("s", []byte(`[{"event_message":"b"}]`), nil)
	requireError(t, r, 503, "UNAVAILABLE", "")
	require.Contains(t, string(r.body), "could not be written durably")
	require.NotContains(t, string(r.body), dir, "no server path in a reply")
	require.NotContains(t, string(r.body), "wal-", "no file name either")
	require.Equal(t, "5", r.header.Get("Retry-After"))
	// Only the acknowledged event is in the directory.
	st, err = logstore.Open(dir, logstore.Options{})
	require.NoError(t, err)
	defer st.Close()
	require.Equal(t, 1, st.Snapshot("s").Segments[0].Rows())
	_, statErr := os.Stat(filepath.Join(dir, "sources", "s"))
	require.False(t, errors.Is(statErr, os.ErrNotExist))
}

// What start-up found damaged, and keys past the field cap, are counted in
// /metrics.
func TestStorageMetrics(t *testing.T) {
	dir := t.TempDir()
	opts := logstore.Options{SegmentRows: 2, MaxFields: 5}
	st, err := logstore.Open(dir, opts)
	require.NoError(t, err)
	// Two requests: a segment file of a and b, c replayed from the WAL.
	st.Append("s", [][]byte{[]byte(`{"event_message":"a"}`), []byte(`{"event_message":"b"}`)})
	st.Append("s", [][]byte{[]byte(`{"event_message":"c"}`)})
	require.NoError(t, st.Close())
	segs, err := filepath.Glob(filepath.Join(dir, "sources", "s", "seg-*.lqs"))
	require.NoError(t, err)
	require.Len(t, segs, 1)
	data, err := os.ReadFile(segs[0])
	require.NoError(t, err)
	data[len(data)-40] ^= 1 // in the meta, which start-up checks (it ends 32 bytes before the end)
	require.NoError(t, os.WriteFile(segs[0], data, 0o644))

	st, err = logstore.Open(dir, opts)
	require.NoError(t, err)
	h := newHarness(t, func(c *Config) { c.Backend = Local(st) })
	t.Cleanup(func() { st.Close() })
	r := h.ingest("s", []byte(`[{"event_message":"d","k1":1,"k2":2,"k3":3}]`), nil)
	require.Equal(t, 200, r.code, string(r.body))
	body := string(h.do("GET", "/metrics", nil, nil).body)
	require.Contains(t, body, `logq_recovery_events{what="corrupt_files"} 1`)
	require.Contains(t, body, `logq_recovery_events{what="replayed"} 1`)
	require.Contains(t, body, `logq_fields_overflowed_total{source="s"} 1`)
	require.Regexp(t, `logq_disk_bytes [1-9]`, body)
}

// Ingest into one source more than the store holds is a 400 that names the
// limit and how to raise it (a retry would fail again); the sources there
// keep taking events.
func TestTooManySourcesIs400(t *testing.T) {
	st := logstore.New(logstore.Options{MaxSources: 2})
	h := newHarness(t, func(c *Config) { c.Backend = Local(st) })
	for _, s := range []string{"a", "b"} {
		require.Equal(t, 200, h.ingest(s, []byte(`[{"event_message":"x"}]`), nil).code)
	}
	r := h.ingest("c", []byte(`[{"event_message":"x"}]`), nil)
	requireError(t, r, 400, "INVALID_ARGUMENT", "source_name")
	require.Contains(t, string(r.body), "limit of 2 sources")
	require.Contains(t, string(r.body), "--max-sources")
	require.Equal(t, 200, h.ingest("a", []byte(`[{"event_message":"y"}]`), nil).code)
}
