package endpoint

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/logstore"
	"logq/types"
)

// Records exactly at, just before and just after a window's first bucket.
// refNow is 2026-03-14 15:09:26.535897 UTC.
func TestWindowEdges(t *testing.T) {
	eps := loadBuiltins(t)
	st := logstore.New(logstore.Options{SegmentRows: 2})
	relay := func(ts time.Time, ms int) []byte {
		return []byte(fmt.Sprintf(`{"timestamp":%q,"metadata":{"project_ref":"edge","function_id":"f","execution_time_ms":%d,"response":{"status_code":200}}}`,
			ts.Format(time.RFC3339Nano), ms))
	}
	// 1day: first bucket is TIMESTAMP_TRUNC(now − 1 day, HOUR) = 2026-03-13 15:00.
	first := time.Date(2026, 3, 13, 15, 0, 0, 0, time.UTC)
	st.Append("deno-relay-logs", [][]byte{
		relay(first.Add(-time.Microsecond), 1), // outside
		relay(first, 2),                        // inside, first bucket
		relay(first.Add(59*time.Minute+59*time.Second), 3),
		relay(first.Add(time.Hour), 4), // second bucket
	})
	res := run(t, st, eps["functions.invocation-stats"], map[string]string{"project": "edge", "interval": "1day"})
	require.Len(t, res.Rows, 2)
	require.Equal(t, first.UnixMicro(), res.Rows[0][0].I)
	require.Equal(t, int64(2), res.Rows[0][1].I, "min excludes the record 1µs before the window")
	require.Equal(t, int64(2), res.Rows[0][6].I, "count")
	require.Equal(t, first.Add(time.Hour).UnixMicro(), res.Rows[1][0].I)

	// usage.api-counts hourly: window starts at now − 1 hour exactly.
	start := refNow.Add(-time.Hour)
	edge := func(ts time.Time, path string) []byte {
		return []byte(fmt.Sprintf(`{"timestamp":%q,"metadata":{"request":{"url":"https://edge.supabase.co%s","path":%q}}}`,
			ts.Format(time.RFC3339Nano), path, path))
	}
	st.Append("cloudflare.logs.prod", [][]byte{
		edge(start.Add(-time.Microsecond), "/rest/v1/a"),
		edge(start, "/rest/v1/b"),
		edge(start, "/storage/v1/realtime/auth"),
	})
	res = run(t, st, eps["usage.api-counts"], map[string]string{"project": "edge", "interval": "hourly"})
	require.Len(t, res.Rows, 1)
	require.Equal(t, types.FormatDatetime(types.TruncMicros(start.UnixMicro(), types.PartHour)), types.FormatDatetime(res.Rows[0][0].I))
	var counts []int64
	for _, v := range res.Rows[0][1:] {
		counts = append(counts, v.I)
	}
	require.Equal(t, []int64{1, 1, 1, 1}, counts, "the record at the start counts, the one before does not; a path counts in every column it matches")
}
