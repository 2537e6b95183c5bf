package exec

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/logstore"
)

// UNNEST of an object column read through a simple CTE binds as a stored
// path, as it does straight against the source: no Unnest operator and no
// whole metadata read. The rows are the ones counted by hand: of 40 events,
// project p holds i%2 == 0 (20), of which status 500 is i%4 == 0 (10).
func TestUnnestThroughACTEReadsPaths(t *testing.T) {
	st := logstore.New(logstore.Options{})
	var evs [][]byte
	for i := 0; i < 40; i++ {
		project := map[bool]string{true: "p", false: "q"}[i%2 == 0]
		status := map[bool]int{true: 500, false: 200}[i%4 == 0]
		evs = append(evs, []byte(fmt.Sprintf(`{"project":%q,"metadata":{"response":{"status_code":%d},"other":"x%d"}}`, project, status, i)))
	}
	_, rej := st.Append("src", evs)
	require.Empty(t, rej)
	for _, sql := range []string{
		"with e as (select t.id, t.metadata from `src` t where t.project = 'p') " +
			"select count(*) as n from e cross join unnest(e.metadata) as m cross join unnest(m.response) as r where r.status_code = 500",
		"select count(*) as n from `src` t cross join unnest(t.metadata) as m cross join unnest(m.response) as r where r.status_code = 500 and t.project = 'p'",
	} {
		q, err := Prepare(sql)
		require.NoError(t, err)
		plan, err := Explain(Local(st), q, Request{})
		require.NoError(t, err)
		require.NotContains(t, plan, "Unnest", plan)
		require.Contains(t, plan, "metadata.response.status_code", plan)
		require.False(t, strings.Contains(plan, "metadata]") || strings.Contains(plan, "metadata,"), "the whole object is not read: %s", plan)
		res, err := Run(context.Background(), Local(st), q, Request{})
		require.NoError(t, err)
		require.Equal(t, int64(10), res.Rows[0][0].I, sql)
	}
}
