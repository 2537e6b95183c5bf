package logstore_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/exec"
	"logq/logstore"
)

// A segment file whose column is damaged fails the query that reads it
// with exec.KindUnavailable, whether the scan reads the column or a nested
// record is read late for the rows a top-k kept: no rows come back, nothing
// panics, and the message a client reads names no server path.
func TestDamagedColumnFailsTheQuery(t *testing.T) {
	for _, sql := range []string{
		"select metadata from s order by timestamp desc limit 3", // read late, for the kept rows
		"select m.tag from s cross join unnest(metadata) as m",   // read by the scan
	} {
		dir := t.TempDir()
		opts := logstore.WithoutScrub(logstore.Options{SegmentRows: 4})
		st, err := logstore.Open(dir, opts)
		require.NoError(t, err)
		var evs [][]byte
		for i := 0; i < 8; i++ {
			evs = append(evs, fmt.Appendf(nil, `{"timestamp":%d,"event_message":"m%d","metadata":{"tag":"NEEDLE%04d"}}`, 1767225600000000+int64(i), i, i))
		}
		_, rejects, err := st.Ingest("s", evs)
		require.NoError(t, err)
		require.Empty(t, rejects)
		require.NoError(t, st.Close())
		files, err := filepath.Glob(filepath.Join(dir, "sources", "*", "seg-*"))
		require.NoError(t, err)
		require.NotEmpty(t, files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			i := bytes.Index(data, []byte("NEEDLE"))
			require.GreaterOrEqual(t, i, 0, "the tag is stored as written in %s", f)
			data[i] ^= 0x20
			require.NoError(t, os.WriteFile(f, data, 0o644))
		}

		st, err = logstore.Open(dir, opts)
		require.NoError(t, err)
		q, err := exec.Prepare(sql)
		require.NoError(t, err)
		res, err := exec.Run(context.Background(), exec.Local(st), q, exec.Request{})
		require.Nil(t, res, sql)
		var e *exec.Error
		require.ErrorAs(t, err, &e, sql)
		require.Equal(t, exec.KindUnavailable, e.Kind, "%s: %v", sql, err)
		require.NotContains(t, e.Msg, dir, "no server path in what a client reads")
		require.NoError(t, st.Close())
	}
}
