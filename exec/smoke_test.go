package exec

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/logstore"
)

func TestSmokeRowsAndAggregates(t *testing.T) {
	st := logstore.New(logstore.Options{SegmentRows: 3})
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	evs := [][]byte{
		[]byte(`{"timestamp":"2024-05-01T10:00:00Z","project":"a","metadata":{"n":1,"req":{"path":"/rest/x"}}}`),
		[]byte(`{"timestamp":"2024-05-01T10:30:00Z","project":"a","metadata":{"n":5,"req":{"path":"/auth/y"}}}`),
		[]byte(`{"timestamp":"2024-05-01T11:10:00Z","project":"b","metadata":{"n":7}}`),
		[]byte(`{"timestamp":"2024-05-01T11:20:00Z","project":"a","metadata":{"n":2}}`),
	}
	n, _ := st.Append("src", evs)
	require.Equal(t, 4, n)
	q, err := Prepare(`select timestamp_trunc(t.timestamp, hour) as h, count(*) as c, sum(m.n) as s,
	  approx_quantiles(m.n, 2)[offset(1)] as med
	  from src as t cross join unnest(t.metadata) as m where t.project = @p group by h order by h`)
	require.NoError(t, err)
	res, err := Run(context.Background(), Local(st), q, Request{Params: map[string]string{"p": "a"}, Now: now})
	require.NoError(t, err)
	require.Len(t, res.Rows, 2)
	require.Equal(t, int64(2), res.Rows[0][1].I)
	require.Equal(t, int64(6), res.Rows[0][2].I)
	require.Equal(t, int64(1), res.Rows[0][3].I)
	require.Equal(t, int64(1), res.Rows[1][1].I)

	q, err = Prepare(`select id, timestamp, metadata from src order by timestamp desc limit 2`)
	require.NoError(t, err)
	res, err = Run(context.Background(), Local(st), q, Request{Now: now})
	require.NoError(t, err)
	require.Len(t, res.Rows, 2)
	require.Equal(t, "2024-05-01 11:20:00 UTC", res.Rows[0][1].String())
	require.Equal(t, "[{n: 2, req: NULL}]", res.Rows[0][2].String())
}

// A row store fed references from two scans keeps values, NULL records too.
func TestRowStoreMixesLazySources(t *testing.T) {
	st := logstore.New(logstore.Options{SegmentRows: 2})
	st.Append("a", [][]byte{[]byte(`{"timestamp":"2024-05-01T10:00:00Z","metadata":{"n":1}}`), []byte(`{"timestamp":"2024-05-01T10:01:00Z"}`)})
	st.Append("b", [][]byte{[]byte(`{"timestamp":"2024-05-01T10:02:00Z","metadata":{"n":2}}`)})
	q, err := Prepare(`select metadata from (select timestamp, metadata from a union all select timestamp, metadata from b) order by timestamp`)
	require.NoError(t, err)
	res, err := Run(context.Background(), Local(st), q, Request{})
	require.NoError(t, err)
	require.Len(t, res.Rows, 3)
	require.Equal(t, "[{n: 1}]", res.Rows[0][0].String())
	require.True(t, res.Rows[1][0].Null)
	require.Equal(t, "[{n: 2}]", res.Rows[2][0].String())
}
