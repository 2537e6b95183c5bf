package planner

import (
	"strings"
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

// lateFields: STRING fields that a top-k right above the scan only carries,
// or partitions by as they are, are read late; those its sort keys, its
// other window expressions or the scan's filter read are not.
func TestLateFieldsRule(t *testing.T) {
	cases := []struct {
		sql        string
		late, read []string
	}{
		{"select id, event_message from t order by timestamp desc limit 10", []string{"id", "event_message"}, nil},
		{"select id, event_message from t order by id limit 10", []string{"event_message"}, []string{"id"}},
		{"select id, event_message from t where event_message like '%x%' order by timestamp desc limit 10", []string{"id"}, []string{"event_message"}},
		// A bare partition key is late (grouped by codes); one inside an
		// expression, or also an order key, is read.
		{"select id, project from t qualify row_number() over (partition by project order by timestamp desc) = 1", []string{"id", "project"}, nil},
		{"select id, project from t qualify row_number() over (partition by lower(project) order by timestamp desc) = 1", []string{"id"}, []string{"project"}},
		{"select id, project, event_message from t qualify row_number() over (partition by project order by event_message) <= 2", []string{"id", "project"}, []string{"event_message"}},
		{"select id, project from t qualify row_number() over (partition by project order by project, timestamp) <= 2", []string{"id"}, []string{"project"}},
		{"select id, project from t where project != 'x' qualify row_number() over (partition by project order by timestamp) = 1", []string{"id"}, []string{"project"}},
		{"select id, event_message from t order by timestamp desc", nil, []string{"id", "event_message"}},
		{"select id, row_number() over (partition by project order by timestamp desc) as rn from t", nil, []string{"id"}},
	}
	for _, c := range cases {
		plan := planOf(t, c.sql, nil)
		scan := plan[strings.Index(plan, "Scan "):]
		for _, f := range c.late {
			require.Contains(t, scan, "late("+f+")", "%s\n%s", c.sql, plan)
		}
		for _, f := range c.read {
			require.NotContains(t, scan, "late("+f+")", "%s\n%s", c.sql, plan)
			require.Regexp(t, `[\[ ]`+f+`[,\]]`, scan, "%s\n%s", c.sql, plan)
		}
	}
}
