package exec

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/logstore"
)

// A volatile call (RAND) is drawn once per row wherever it stands: not once
// per dictionary entry of a string field it is combined with, not twice for
// an operand that BETWEEN or a simple CASE reads twice, and once for a WITH
// expression's variable however often the result reads it. Each check
// passes with certainty when the draw is per row and once (up to chances
// below 2^-200), and fails with near certainty otherwise.
func TestVolatileDrawnOncePerRow(t *testing.T) {
	st := logstore.New(logstore.Options{})
	levels := []string{"info", "warn", "error", "debug"}
	numbered(t, st, "src", 4*300, func(i int) string { return fmt.Sprintf(`"level":%q`, levels[i%4]) })

	// Per dictionary entry, every level would be kept whole or not at all.
	for _, sql := range []string{
		"select level, count(*) from src where rand() < 0.5 or level = 'zzz' group by level",
		"select level, count(*) from src where with(r as rand(), r < 0.5 or level = 'zzz') group by level",
	} {
		res, err := runSQL(t, st, sql, 0)
		require.NoError(t, err, sql)
		require.Len(t, res.Rows, 4, sql) // P(a level keeps none of its 300) = 2^-300
		for _, r := range res.Rows {
			require.Less(t, r[1].I, int64(300), "%s: level %s kept whole", sql, r[0].S)
		}
	}

	for _, c := range []struct {
		sql  string
		want int64
	}{
		// Two draws would pass x >= 0.5 and x' <= 0.5 for a quarter of the rows.
		{"select countif(rand() between 0.5 and 0.5) from unnest(generate_array(1, 2000))", 0},
		{"select countif(rand() not between 0.5 and 0.5) from unnest(generate_array(1, 2000))", 2000},
		// Two draws would fall to ELSE for a quarter of the rows.
		{"select countif(case rand() < 0.5 when true then true when false then true else false end) from unnest(generate_array(1, 2000))", 2000},
		{"select countif(with(a as rand(), a = a and a - a = 0)) from unnest(generate_array(1, 2000))", 2000},
		// Two draws would miss both items (or both patterns) for a quarter
		// of the rows.
		{"select countif(cast(rand() < 0.5 as int64) in (0, 1)) from unnest(generate_array(1, 2000))", 2000},
		{"select countif(cast(rand() < 0.5 as int64) not in (0, 1)) from unnest(generate_array(1, 2000))", 0},
		{"select countif(if(rand() < 0.5, 'a', 'b') like any ('a', 'b')) from unnest(generate_array(1, 2000))", 2000},
		{"select countif(if(rand() < 0.5, 'a', 'b') like any unnest(['a', 'b'])) from unnest(generate_array(1, 2000))", 2000},
	} {
		res, err := runSQL(t, st, c.sql, 0)
		require.NoError(t, err, c.sql)
		require.Equal(t, c.want, res.Rows[0][0].I, c.sql)
	}

	// ORDER BY an alias of RAND() with a LIMIT sorts by the value shown: a
	// second draw for the sort key would leave about half the rows out of
	// order.
	res, err := runSQL(t, st, "select rand() as r from src order by r limit 100", 0)
	require.NoError(t, err)
	require.Len(t, res.Rows, 100)
	for i := 1; i < len(res.Rows); i++ {
		require.LessOrEqual(t, res.Rows[i-1][0].F, res.Rows[i][0].F, "row %d", i)
	}
}
