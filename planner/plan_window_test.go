package planner

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A filter keeping ROW_NUMBER ≤ k right above a Window of that one call
// marks it topN=k, whichever way the comparison is written; anything else
// leaves the Window whole.
func TestWindowTopNRule(t *testing.T) {
	cases := []struct{ sql, want string }{
		{"select id, row_number() over (partition by project order by timestamp desc) as rn from t qualify rn = 1", "topN=1"},
		{"select id from (select id, row_number() over (order by timestamp) as rn from t) where rn <= 5", "topN=5"},
		{"select id from (select id, row_number() over (order by timestamp) as rn from t) where 4 > rn", "topN=3"},
		{"select id from t qualify row_number() over (order by timestamp) < 3 and id != 'x'", "topN=2"},
		{"select id, row_number() over (order by timestamp) as rn from t qualify rn >= 2", ""},
		{"select id, row_number() over (order by timestamp) as rn, rank() over (order by timestamp) as r from t qualify rn = 1", ""},
		{"select id, rank() over (order by timestamp) as r from t qualify r = 1", ""},
		{"select id from t qualify row_number() over (order by timestamp) = 1 or id = 'x'", ""},
	}
	for _, c := range cases {
		plan := planOf(t, c.sql, nil)
		require.Contains(t, plan, "Window [", c.sql)
		if c.want == "" {
			require.NotContains(t, plan, "topN", c.sql)
		} else {
			require.Contains(t, plan, c.want, c.sql)
		}
	}
}
