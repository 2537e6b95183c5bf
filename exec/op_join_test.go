package exec

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/logstore"
)

// A left row with more matches than a batch holds has its pairs made a
// batch at a time: the joined rows, and the NULL-extended rows of a LEFT
// JOIN whose residual condition passes none of a row's matches, are those a
// plain-Go nested loop gives, and no output batch is much larger than
// BatchSize (a cross join of 20,000 × 20,000 rows once built one batch of
// 400 million pairs, past any memory budget and the time limit).
func TestJoinPairsABatchAtATime(t *testing.T) {
	st := logstore.New(logstore.Options{})
	const right = 3*BatchSize + 100
	numbered(t, st, "l", 4, func(i int) string { return fmt.Sprintf(`"k":"x","i":%d`, i) })
	numbered(t, st, "r", right, func(i int) string { return fmt.Sprintf(`"k":"x","j":%d`, i) })
	// Every left row matches every right row on k (3 batches and more of
	// matches each); the residual condition keeps those with
	// j % 1000 == 300*i, a dozen per row, spread over its batches.
	cond := "r.j - 300 * l.i = 1000 * div(r.j, 1000)"
	var want []string
	for i := 0; i < 4; i++ {
		n := 0
		for j := 0; j < right; j++ {
			if j-300*i == 1000*(j/1000) {
				want = append(want, fmt.Sprintf("%d %d", i, j))
				n++
			}
		}
		if n == 0 {
			want = append(want, fmt.Sprintf("%d NULL", i))
		}
	}
	// The second query's condition passes none of row 2's matches: it is
	// NULL-extended once, after all its batches.
	for _, c := range []struct{ sql, extra string }{
		{"select l.i, r.j from l left join r on l.k = r.k and " + cond, ""},
		{"select l.i, r.j from l left join r on l.k = r.k and " + cond + " and l.i != 2", "2"},
	} {
		expect := want
		if c.extra != "" {
			expect = nil
			for _, w := range want {
				if w[:1] != c.extra {
					expect = append(expect, w)
				}
			}
			expect = append(expect, c.extra+" NULL")
		}
		q, err := Prepare(c.sql)
		require.NoError(t, err)
		plan, cat, err := prepare(Local(st), q, Request{Now: goldenNow})
		require.NoError(t, err)
		op, err := build(plan, &Env{view: cat, ev: newEvaluator()})
		require.NoError(t, err)
		var got []string
		for {
			b, err := op.Next(context.Background())
			require.NoError(t, err)
			if b == nil {
				break
			}
			require.LessOrEqual(t, b.N, 2*BatchSize)
			for r := 0; r < b.N; r++ {
				j := "NULL"
				if v := b.Cols[1].Value(r); !v.Null {
					j = fmt.Sprint(v.I)
				}
				got = append(got, fmt.Sprintf("%d %s", b.Cols[0].Value(r).I, j))
			}
		}
		op.Close()
		sort.Strings(got)
		sort.Strings(expect)
		require.Equal(t, expect, got, c.sql)
	}
}

// A count over a cross join far larger than memory is counted in batches
// (exact for a size that finishes) and stops at the time limit otherwise.
func TestCrossJoinCountIsBoundedByTheTimeLimit(t *testing.T) {
	st := logstore.New(logstore.Options{})
	numbered(t, st, "a", 3000, func(i int) string { return fmt.Sprintf(`"i":%d`, i) })
	numbered(t, st, "b", 3000, func(i int) string { return fmt.Sprintf(`"j":%d`, i) })
	res, err := runSQL(t, st, "select count(*) as n from a cross join b", 1<<20)
	require.NoError(t, err)
	require.Equal(t, int64(3000*3000), res.Rows[0][0].I)

	q, err := Prepare("select count(*) as n from a cross join b cross join a as c")
	require.NoError(t, err)
	start := time.Now()
	_, err = Run(context.Background(), Local(st), q, Request{Now: goldenNow, Timeout: 50 * time.Millisecond, MemoryBudget: 1 << 20})
	require.Error(t, err)
	var xe *Error
	require.ErrorAs(t, err, &xe)
	require.Equal(t, KindDeadline, xe.Kind, err.Error())
	require.Less(t, time.Since(start), time.Minute) // 27 billion rows would take hours
}
