package exec

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/logstore"
)

// A correlated subquery run per outer row over many segments, which the
// scan reads on several workers at once: each row's answer is its own, and
// the runs (which share the parameters' storage) do not race. Event i has
// n = i mod 50; for each event, the count of events with a larger n is
// 40·(49 − n) (40 events of each of the 50 values), so the rows whose count
// is below 200 are those with n ≥ 45: 5 values × 40 events = 200 rows.
func TestCorrelatedSubqueryPerRowOnWorkers(t *testing.T) {
	st := logstore.New(logstore.Options{SegmentRows: 64})
	evs := make([][]byte, 2000)
	for i := range evs {
		evs[i] = []byte(fmt.Sprintf(`{"timestamp":"2024-05-01T10:%02d:%02dZ","n":%d}`, i/60%60, i%60, i%50))
	}
	n, rejected := st.Append("src", evs)
	require.Equal(t, len(evs), n)
	require.Empty(t, rejected)
	q, err := Prepare(`select count(*) as c, min(n) as lo from src as a
	  where (select count(*) from src as b where b.n > a.n) < 200`)
	require.NoError(t, err)
	res, err := Run(context.Background(), Local(st), q, Request{Now: time.Date(2024, 5, 2, 0, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	require.Len(t, res.Rows, 1)
	require.Equal(t, int64(200), res.Rows[0][0].I)
	require.Equal(t, int64(45), res.Rows[0][1].I)
}
