package exec

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/logstore"
	"logq/planner"
)

// Tests for behaviour no golden case pins down: nondeterministic row choice
// (LIMIT without ORDER BY), operators that only show their work past a
// few thousand rows (top-k compaction, parallel aggregation), and budget
// charges. Every expected value is worked out from how the data is made.

// numbered loads n events of source src, event i computed by mk(i).
func numbered(t *testing.T, st *logstore.Store, src string, n int, mk func(i int) string) {
	numberedRange(t, st, src, 0, n, mk)
}

// numberedRange appends events lo..hi-1 of numbered's sequence.
func numberedRange(t *testing.T, st *logstore.Store, src string, lo, hi int, mk func(i int) string) {
	var evs [][]byte
	base := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	for i := lo; i < hi; i++ {
		ts := base.Add(time.Duration(i) * time.Second).Format(time.RFC3339)
		evs = append(evs, []byte(fmt.Sprintf(`{"timestamp":%q,%s}`, ts, mk(i))))
	}
	got, rej := st.Append(src, evs)
	require.Empty(t, rej)
	require.Equal(t, hi-lo, got)
}

func runSQL(t *testing.T, st *logstore.Store, sql string, budget int64) (*Result, error) {
	q, err := Prepare(sql)
	require.NoError(t, err)
	return Run(context.Background(), Local(st), q, Request{Now: goldenNow, MemoryBudget: budget})
}

// LIMIT without ORDER BY returns that many rows, each one a row of the input
// (which rows is unspecified), and OFFSET skips rows.
func TestLimitWithoutOrderBy(t *testing.T) {
	st := logstore.New(logstore.Options{SegmentRows: 3})
	numbered(t, st, "src", 10, func(i int) string { return fmt.Sprintf(`"k":%d`, 100+i) })
	for _, c := range []struct {
		sql  string
		rows int
	}{
		{"select k from src limit 3", 3},
		{"select k from src limit 0", 0},
		{"select k from src limit 3 offset 8", 2}, // 10 rows, 8 skipped
		{"select k from src limit 50", 10},
	} {
		res, err := runSQL(t, st, c.sql, 0)
		require.NoError(t, err, c.sql)
		require.Len(t, res.Rows, c.rows, c.sql)
		seen := map[int64]bool{}
		for _, row := range res.Rows {
			k := row[0].I
			require.True(t, k >= 100 && k <= 109, "%s: %d is no input row", c.sql, k)
			require.False(t, seen[k], "%s: row %d twice", c.sql, k)
			seen[k] = true
		}
	}
}

// ORDER BY … LIMIT over many rows goes through the top-k heap, compacting its
// row store as it goes and giving the dropped rows back to the budget. v is
// a permutation of 0…29999 (7919 is prime to 30000), so the top values are
// known: 29999, 29998, then the five after OFFSET 2.
func TestTopKCompactsAndReleases(t *testing.T) {
	const n = 30000
	st := logstore.New(logstore.Options{SegmentRows: 5000})
	numbered(t, st, "src", n, func(i int) string { return fmt.Sprintf(`"v":%d`, (i*7919)%n) })
	// Each kept row is charged 2 values (the column and its sort key), 48
	// bytes: 30000 rows would be 1.44MB; the top-k never holds more than
	// 2k+BatchSize rows plus one batch (about 8200 rows, 394KB).
	res, err := runSQL(t, st, "select v from src order by v desc limit 5 offset 2", 600<<10)
	require.NoError(t, err)
	var got []int64
	for _, r := range res.Rows {
		got = append(got, r[0].I)
	}
	require.Equal(t, []int64{29997, 29996, 29995, 29994, 29993}, got)
	// A full sort of the same rows keeps them all: past the same budget.
	_, err = runSQL(t, st, "select v from src order by v desc", 600<<10)
	require.ErrorContains(t, err, "(in a sort)")
}

// COUNT(DISTINCT) large enough to be split across workers and merged. Event
// i has g = i mod 3 and k = i mod 37; 3 and 37 are coprime and each group has
// at least 333 consecutive multiples, so every group sees all 37 values of
// k. Group sizes: i = 0…999 gives 334 with g = 0, 333 with g = 1 and 2.
func TestParallelCountDistinctMerge(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))        // two workers, whatever the machine
	st := logstore.New(logstore.Options{SegmentRows: 100}) // 10 segments
	numbered(t, st, "src", 1000, func(i int) string { return fmt.Sprintf(`"g":%d,"k":%d`, i%3, i%37) })
	sql := "select g, count(distinct k) as d, count(*) as n from src group by g order by g"
	q, err := Prepare(sql)
	require.NoError(t, err)
	plan, cat, err := prepare(Local(st), q, Request{Now: goldenNow})
	require.NoError(t, err)
	var agg *planner.Aggregate
	var find func(n planner.Node)
	find = func(n planner.Node) {
		if a, ok := n.(*planner.Aggregate); ok && agg == nil {
			agg = a
		}
		for _, c := range n.Children() {
			find(c)
		}
	}
	find(plan)
	require.NotNil(t, agg)
	op, err := build(agg, &Env{view: cat, ev: newEvaluator()})
	require.NoError(t, err)
	require.IsType(t, &parallelAgg{}, op, "the aggregate must take the parallel path")
	op.Close()

	res, err := runSQL(t, st, sql, 0)
	require.NoError(t, err)
	var got []string
	for _, r := range res.Rows {
		got = append(got, fmt.Sprintf("%d %d %d", r[0].I, r[1].I, r[2].I))
	}
	require.Equal(t, []string{"0 37 334", "1 37 333", "2 37 333"}, got)
	res, err = runSQL(t, st, "select count(distinct k) as d from src", 0)
	require.NoError(t, err)
	require.Equal(t, int64(37), res.Rows[0][0].I)

	// Without GROUP BY only COUNT(DISTINCT) charges. Each of the W workers
	// reads whole segments of 100 consecutive events, so each holds all 37
	// values (37 × 24 = 888 bytes); the merge adds 37 to the final state
	// before the first partial gives its 888 back: the peak is (W+1) × 888.
	w := int64(runtime.GOMAXPROCS(0))
	one := "select count(distinct k) as d from src"
	res, err = runSQL(t, st, one, (w+1)*888)
	require.NoError(t, err)
	require.Equal(t, int64(37), res.Rows[0][0].I)
	_, err = runSQL(t, st, one, w*888+100) // the partials fit, the merge does not
	require.ErrorContains(t, err, "(in a COUNT(DISTINCT))")
}

// GROUP BY one STRING key (its values are the group map's keys, NULL a
// group of its own) over parallel workers whose partial groups are merged:
// counts per key, NULL included, worked out from how the data is made.
func TestParallelGroupByString(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	st := logstore.New(logstore.Options{SegmentRows: 100})
	numbered(t, st, "src", 1000, func(i int) string {
		if i%10 == 0 {
			return `"x":1` // no s: NULL
		}
		return fmt.Sprintf(`"s":"k%d"`, i%4)
	})
	res, err := runSQL(t, st, "select s, count(*) as n from src group by s order by s", 0)
	require.NoError(t, err)
	want := map[string]int{}
	for i := 0; i < 1000; i++ {
		if i%10 == 0 {
			want["NULL"]++
		} else {
			want[fmt.Sprintf("k%d", i%4)]++
		}
	}
	var got []string
	for _, r := range res.Rows {
		k := r[0].S
		if r[0].Null {
			k = "NULL"
		}
		got = append(got, fmt.Sprintf("%s=%d", k, r[1].I))
	}
	require.Equal(t, []string{
		fmt.Sprint("NULL=", want["NULL"]), fmt.Sprint("k0=", want["k0"]), fmt.Sprint("k1=", want["k1"]),
		fmt.Sprint("k2=", want["k2"]), fmt.Sprint("k3=", want["k3"]),
	}, got)
}

// COUNT(DISTINCT) on the serial path charges each distinct value: 200
// distinct values are 4800 bytes, past a 2KiB budget; the same query with
// 200 repeats of one value keeps one.
func TestCountDistinctChargesBudget(t *testing.T) {
	st := logstore.New(logstore.Options{SegmentRows: 1000}) // one segment: serial
	numbered(t, st, "src", 200, func(i int) string { return fmt.Sprintf(`"k":%d,"one":7`, i) })
	_, err := runSQL(t, st, "select count(distinct k) as d from src", 2<<10)
	require.ErrorContains(t, err, "memory budget of 2KiB")
	require.ErrorContains(t, err, "(in a COUNT(DISTINCT))")
	res, err := runSQL(t, st, "select count(distinct one) as d from src", 2<<10)
	require.NoError(t, err)
	require.Equal(t, int64(1), res.Rows[0][0].I)
	res, err = runSQL(t, st, "select count(distinct k) as d from src", 0)
	require.NoError(t, err)
	require.Equal(t, int64(200), res.Rows[0][0].I)
}

// INTERSECT/EXCEPT DISTINCT charge the rows they keep.
func TestSetOpChargesBudget(t *testing.T) {
	st := logstore.New(logstore.Options{SegmentRows: 1000})
	numbered(t, st, "src", 200, func(i int) string { return fmt.Sprintf(`"k":%d`, i) })
	_, err := runSQL(t, st, "select k from src except distinct select k from src where k < 10", 2<<10)
	require.ErrorContains(t, err, "(in a EXCEPT DISTINCT)")
	res, err := runSQL(t, st, "select k from src except distinct select k from src where k >= 10", 0)
	require.NoError(t, err)
	require.Len(t, res.Rows, 10)
}

// One integer key whose NULLs appear only in some batches: the batches
// without NULL and those with one must number a key value alike, serially
// (one segment) and through the parallel merge (many).
func TestGroupByIntKeyWithLateNulls(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, segRows := range []int{20000, 300} {
		st := logstore.New(logstore.Options{SegmentRows: segRows})
		numbered(t, st, "src", 10000, func(i int) string {
			if i > 5000 && i%7 == 0 {
				return `"x":1` // no k: NULL, only after the first batches
			}
			return fmt.Sprintf(`"k":%d`, i%3)
		})
		res, err := runSQL(t, st, "select k, count(*) as n from src group by k order by k", 0)
		require.NoError(t, err)
		want := map[string]int{}
		for i := 0; i < 10000; i++ {
			if i > 5000 && i%7 == 0 {
				want["NULL"]++
			} else {
				want[fmt.Sprint(i%3)]++
			}
		}
		var got []string
		for _, r := range res.Rows {
			k := fmt.Sprint(r[0].I)
			if r[0].Null {
				k = "NULL"
			}
			got = append(got, fmt.Sprintf("%s=%d", k, r[1].I))
		}
		require.Equal(t, []string{
			fmt.Sprint("NULL=", want["NULL"]), fmt.Sprint("0=", want["0"]),
			fmt.Sprint("1=", want["1"]), fmt.Sprint("2=", want["2"]),
		}, got, "segment rows %d", segRows)
	}
}

// A STRING key read from dictionary columns is grouped by its codes, per
// segment (grouper.assignCodes): a value has another code in every segment
// here, and one code means another value in the next, with NULLs, through a
// filter (gathered vectors keep their codes), GROUP BY and a window's
// partitions, serially and by parallel workers.
func TestGroupByDictionaryCodes(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	const n = 3000
	key := func(i int) string {
		if i%17 == 0 {
			return ""
		}
		return fmt.Sprintf("k%d", (i*7+i/100)%13)
	}
	mk := func(i int) string {
		if key(i) == "" {
			return fmt.Sprintf(`"n":%d`, i)
		}
		return fmt.Sprintf(`"n":%d,"s":%q`, i, key(i))
	}
	count, newest := map[string]int{}, map[string]int{}
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			count[key(i)]++
			newest[key(i)] = i
		}
	}
	var want, wantNewest []string
	for k, c := range count {
		want = append(want, fmt.Sprintf("%s=%d", k, c))
		wantNewest = append(wantNewest, fmt.Sprintf("%s=%d", k, newest[k]))
	}
	sort.Strings(want)
	sort.Strings(wantNewest)
	for _, segRows := range []int{2 * n, 100} {
		st := logstore.New(logstore.Options{SegmentRows: segRows})
		numbered(t, st, "src", n, mk)
		for sql, w := range map[string][]string{
			"select coalesce(s, '') as s, count(*) as c from src where mod(n, 2) = 0 group by s":                                              want,
			"select coalesce(s, '') as s, n as c from src where mod(n, 2) = 0 qualify row_number() over (partition by s order by n desc) = 1": wantNewest,
		} {
			res, err := runSQL(t, st, sql, 0)
			require.NoError(t, err, sql)
			var got []string
			for _, r := range res.Rows {
				got = append(got, fmt.Sprintf("%s=%d", r[0].S, r[1].I))
			}
			sort.Strings(got)
			require.Equal(t, w, got, "segment rows %d: %s", segRows, sql)
		}
	}
}

// Integer keys on both sides of grouper's small-integer table (negative,
// small, at its bound, large) and NULL, in every batch, serially and in
// parallel: one group per value.
func TestGroupByIntKeysSmallAndLarge(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	vals := []int64{-5, 0, 7, 4095, 4096, 1 << 40, 7}
	for _, segRows := range []int{20000, 700} {
		st := logstore.New(logstore.Options{SegmentRows: segRows})
		want := map[string]int{}
		numbered(t, st, "src", 9000, func(i int) string {
			if i%13 == 0 {
				want["NULL"]++
				return `"x":1`
			}
			v := vals[i%len(vals)]
			want[fmt.Sprint(v)]++
			return fmt.Sprintf(`"k":%d`, v)
		})
		res, err := runSQL(t, st, "select k, count(*) as n from src group by k", 0)
		require.NoError(t, err)
		got := map[string]int{}
		for _, r := range res.Rows {
			k := fmt.Sprint(r[0].I)
			if r[0].Null {
				k = "NULL"
			}
			require.NotContains(t, got, k, "one group per value")
			got[k] = int(r[1].I)
		}
		require.Equal(t, want, got, "segment rows %d", segRows)
	}
}

// A CTE merged into the query that reads it (planner/bind_view.go) gives
// the rows the same CTE gives as a plan of its own (a LIMIT keeps it from
// merging), on either side of every kind of join, and for the plain join
// kinds the rows a plain-Go join of the same data gives.
func TestMergedCTEsMatchPlannedOnes(t *testing.T) {
	st := logstore.New(logstore.Options{SegmentRows: 40})
	numbered(t, st, "a", 120, func(i int) string {
		return fmt.Sprintf(`"k":%d,"p":"p%d","metadata":{"tag":"t%d"}`, i%9, i%3, i%4)
	})
	numbered(t, st, "b", 60, func(i int) string { return fmt.Sprintf(`"k":%d,"q":%d`, i%12, i) })
	// The join kinds computed in plain Go, rows printed as the engine's
	// rows print ([k p q], NULL as NULL), so that merged and planned CTEs
	// are not only equal to each other.
	type arow struct {
		k int
		p string
	}
	var ca []arow
	for i := 0; i < 120; i++ {
		if p, tag := fmt.Sprintf("p%d", i%3), fmt.Sprintf("t%d", i%4); p != "p1" && tag != "t2" {
			ca = append(ca, arow{i % 9, p})
		}
	}
	var cb [][2]int // k, q
	for i := 0; i < 50; i++ {
		cb = append(cb, [2]int{i % 12, i})
	}
	row := func(k, p, q string) string { return "[" + k + " " + p + " " + q + "]" }
	var left, right, unmatchedB []string
	matchedB := map[int]bool{}
	for _, a := range ca {
		found := false
		for j, b := range cb {
			if a.k == b[0] {
				found, matchedB[j] = true, true
				left = append(left, row(fmt.Sprint(a.k), a.p, fmt.Sprint(b[1])))
				right = append(right, row(fmt.Sprint(a.k), a.p, fmt.Sprint(b[1])))
			}
		}
		if !found {
			left = append(left, row(fmt.Sprint(a.k), a.p, "NULL"))
		}
	}
	for j, b := range cb {
		if !matchedB[j] {
			unmatchedB = append(unmatchedB, row("NULL", "NULL", fmt.Sprint(b[1])))
		}
	}
	right = append(right, unmatchedB...)
	full := append(slices.Clone(left), unmatchedB...)
	want := map[string][]string{}
	sorted := func(rs []string) []string { rs = slices.Clone(rs); sort.Strings(rs); return rs }
	want["select ca.k, ca.p, cb.q from ca left join cb on ca.k = cb.k"] = sorted(left)
	want["select ca.k, ca.p, cb.q from ca right join cb on ca.k = cb.k"] = sorted(right)
	want["select ca.k, ca.p, cb.q from ca full join cb on ca.k = cb.k"] = sorted(full)
	want["select ca.k, ca.p, cb.q from cb left join ca on ca.k = cb.k"] = sorted(right)
	cte := func(limit string) string {
		return `with ca as (select t.k, t.p, t.metadata from a as t cross join unnest(t.metadata) as m where t.p != 'p1' and m.tag != 't2'` + limit + `),
  cb as (select t.k, t.q from b as t where t.q < 50` + limit + `) `
	}
	for _, body := range []string{
		"select ca.k, ca.p, cb.q from ca left join cb on ca.k = cb.k",
		"select ca.k, ca.p, cb.q from ca right join cb on ca.k = cb.k",
		"select ca.k, ca.p, cb.q from ca full join cb on ca.k = cb.k",
		"select ca.k, ca.p, cb.q from cb left join ca on ca.k = cb.k",
		"select ca.k, mm.tag, cb.q from ca cross join unnest(ca.metadata) as mm left join cb on ca.k = cb.k",
		"select x.k, x.n from cb left join (select ca.k, count(*) as n from ca group by ca.k) as x on x.k = cb.k",
	} {
		var got [2][]string
		for i, limit := range []string{"", " limit 100000"} {
			res, err := runSQL(t, st, cte(limit)+body, 0)
			require.NoError(t, err, body)
			for _, r := range res.Rows {
				got[i] = append(got[i], fmt.Sprint(r))
			}
			sort.Strings(got[i])
		}
		require.NotEmpty(t, got[0], body)
		require.Equal(t, got[1], got[0], body)
		if w, ok := want[body]; ok {
			require.Equal(t, w, got[0], "%s: against the plain-Go join", body)
		}
	}
}

// A CTE that unnests its source's object and names a field of it
// unqualified is not merged as a view (a view column is read from the
// source's top level): it gives the field's values, as a plan does.
func TestCTEWithUnqualifiedUnnestField(t *testing.T) {
	st := logstore.New(logstore.Options{})
	numbered(t, st, "src", 6, func(i int) string {
		return fmt.Sprintf(`"id":"a%d","metadata":{"project_ref":"p%d"}`, i, i%2)
	})
	res, err := runSQL(t, st, "with e as (select t.id, project_ref from `src` t cross join unnest(t.metadata) as m) select id, project_ref from e order by id", 0)
	require.NoError(t, err)
	var got []string
	for _, r := range res.Rows {
		got = append(got, r[0].S+"="+r[1].S)
	}
	require.Equal(t, []string{"a0=p0", "a1=p1", "a2=p0", "a3=p1", "a4=p0", "a5=p1"}, got)
}

// One STRING key whose rows come as late references from one side of a
// UNION (under a top-k: planner lateFields) and as plain strings from the
// other is one group per value, for GROUP BY, DISTINCT and a window.
func TestGroupByLateAndPlainStrings(t *testing.T) {
	st := logstore.New(logstore.Options{})
	numbered(t, st, "a", 10, func(i int) string { return fmt.Sprintf(`"s":"k%d","n":%d`, i%2, i) })
	numbered(t, st, "b", 10, func(i int) string { return fmt.Sprintf(`"s":"k%d","n":%d`, i%2, 100+i) })
	in := "(select s, n from (select s, n from a order by n limit 4) union all select s, n from b)"
	for sql, want := range map[string][]string{
		"select s, count(*) as c from " + in + " group by s order by s":                                         {"k0 7", "k1 7"},
		"select distinct s, 0 as c from " + in + " order by s":                                                  {"k0 0", "k1 0"},
		"select s, n as c from " + in + " qualify row_number() over (partition by s order by n) = 1 order by s": {"k0 0", "k1 1"},
	} {
		res, err := runSQL(t, st, sql, 0)
		require.NoError(t, err, sql)
		var got []string
		for _, r := range res.Rows {
			got = append(got, fmt.Sprintf("%s %d", r[0].S, r[1].I))
		}
		require.Equal(t, want, got, sql)
	}
}

// DISTINCT aggregates other than COUNT merge their workers' distinct rows,
// not their results: every value recurs in every segment, and each counts
// once, grouped, ungrouped and over window partitions; each distinct value
// is charged to the memory budget.
func TestDistinctAggregatesInParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	st := logstore.New(logstore.Options{SegmentRows: 100})
	numbered(t, st, "src", 2000, func(i int) string { return fmt.Sprintf(`"g":%d,"v":%d`, i%2, i%50) })
	// g 0 holds the even v of 0..48, g 1 the odd ones.
	res, err := runSQL(t, st, "select g, sum(distinct v) as s, array_length(array_agg(distinct v)) as n, string_agg(distinct cast(v as string), ',' order by cast(v as string) limit 3) as first3 from src group by g order by g", 0)
	require.NoError(t, err)
	require.Len(t, res.Rows, 2)
	require.Equal(t, []any{int64(600), int64(25), "0,10,12"}, []any{res.Rows[0][1].I, res.Rows[0][2].I, res.Rows[0][3].S})
	require.Equal(t, []any{int64(625), int64(25), "1,11,13"}, []any{res.Rows[1][1].I, res.Rows[1][2].I, res.Rows[1][3].S})
	res, err = runSQL(t, st, "select sum(distinct v) as s, avg(distinct v) as a from src", 0)
	require.NoError(t, err)
	require.Equal(t, int64(1225), res.Rows[0][0].I)
	require.Equal(t, 24.5, res.Rows[0][1].F)
	res, err = runSQL(t, st, "select distinct g, sum(distinct v) over (partition by g) as s from src order by g", 0)
	require.NoError(t, err)
	require.Equal(t, [][2]int64{{0, 600}, {1, 625}}, [][2]int64{{res.Rows[0][0].I, res.Rows[0][1].I}, {res.Rows[1][0].I, res.Rows[1][1].I}})
	_, err = runSQL(t, st, "select sum(distinct i) from (select n * 10000 + v as i from src, unnest([1, 2, 3, 4, 5, 6, 7, 8]) as n)", 1<<10)
	require.ErrorContains(t, err, "(in a SUM(DISTINCT))")
}

// A correlated scalar aggregate (decorrelated into a keyed lookup) against
// a plain-Go reference, over many segments of both sources (parallel
// workers on each side), keys missing on either side and NULL keys.
func TestCorrelatedScalarAggregateMatchesReference(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	st := logstore.New(logstore.Options{SegmentRows: 150})
	user := func(i int) string {
		if i%29 == 0 {
			return ""
		}
		return fmt.Sprintf("u%d", i%37)
	}
	numbered(t, st, "events", 2000, func(i int) string {
		if user(i) == "" {
			return fmt.Sprintf(`"i":%d`, i)
		}
		return fmt.Sprintf(`"i":%d,"user":%q`, i, user(i))
	})
	count, sum := map[string]int64{}, map[string]int64{}
	numbered(t, st, "people", 600, func(i int) string {
		uid := fmt.Sprintf("u%d", i%41)
		count[uid]++
		if i%3 == 0 {
			sum[uid] += int64(i)
		}
		return fmt.Sprintf(`"uid":%q,"score":%d`, uid, i)
	})
	res, err := runSQL(t, st, `select e.i,
  (select count(*) from people p where p.uid = e.user) as n,
  (select sum(p.score) from people p where p.uid = e.user and mod(p.score, 3) = 0) as s
from events e order by e.i`, 0)
	require.NoError(t, err)
	require.Len(t, res.Rows, 2000)
	for i, r := range res.Rows {
		u := user(i)
		require.Equal(t, int64(i), r[0].I)
		require.Equal(t, count[u], r[1].I, "row %d", i)
		if s, ok := sum[u]; ok {
			require.Equal(t, s, r[2].I, "row %d", i)
		} else {
			require.True(t, r[2].Null, "row %d", i)
		}
	}
}

// APPROX_QUANTILES of STRING and ARRAY_CONCAT_AGG keep every value: 200
// strings (or 200 one-element arrays) are 4800 bytes, past a 2KiB budget;
// without a budget they answer.
func TestStringQuantilesAndConcatChargeBudget(t *testing.T) {
	st := logstore.New(logstore.Options{SegmentRows: 1000})
	numbered(t, st, "src", 200, func(i int) string { return fmt.Sprintf(`"s":"v%03d","a":[%d]`, i, i) })
	_, err := runSQL(t, st, "select approx_quantiles(s, 2) as q from src", 2<<10)
	require.ErrorContains(t, err, "(in a APPROX_QUANTILES)")
	_, err = runSQL(t, st, "select array_concat_agg(a) as c from src", 2<<10)
	require.ErrorContains(t, err, "(in a ARRAY_CONCAT_AGG)")
	res, err := runSQL(t, st, "select approx_quantiles(s, 2)[offset(1)] as m, array_length(array_concat_agg(a)) as n from src", 0)
	require.NoError(t, err)
	require.Equal(t, "v099", res.Rows[0][0].S) // the ⌈200/2⌉ = 100th of v000…v199
	require.Equal(t, int64(200), res.Rows[0][1].I)
}

// The sketch aggregates charge what their sketches hold: two groups of
// 2000 distinct values, a sketch each, are past an 8KiB budget that the
// same GROUP BY with COUNT(*) stays under (serially the error names the
// sketch; through the parallel merge, whichever charge crossed the line).
// Without a budget, serially (one segment) and through the merge of
// partial states (segments of 500 events), group k (the values i < 4000
// with i % 2 = k) counts about 2000 (HLL++, within 2%) and has min k and
// max 3998 + k (KLL is exact under 4096 values).
func TestSketchesChargeBudget(t *testing.T) {
	const hllSQL = "select k, hll_count.extract(hll_count.init(v)) as n from src group by k order by k"
	const kllSQL = "select k, kll_quantiles.extract_int64(kll_quantiles.init_int64(v), 1) as q from src group by k order by k"
	for _, rows := range []int{5000, 500} {
		st := logstore.New(logstore.Options{SegmentRows: rows})
		numbered(t, st, "src", 4000, func(i int) string { return fmt.Sprintf(`"k":%d,"v":%d`, i%2, i) })
		_, err := runSQL(t, st, "select k, count(*) as n from src group by k", 8<<10)
		require.NoError(t, err)
		for sql, name := range map[string]string{hllSQL: "(in a HLL_COUNT sketch)", kllSQL: "(in a KLL_QUANTILES sketch)"} {
			_, err = runSQL(t, st, sql, 8<<10)
			require.ErrorContains(t, err, "memory budget of 8KiB", "segments of %d", rows)
			if rows == 5000 {
				require.ErrorContains(t, err, name)
			}
		}
		res, err := runSQL(t, st, hllSQL, 0)
		require.NoError(t, err)
		require.Len(t, res.Rows, 2)
		for k, r := range res.Rows {
			require.Equal(t, int64(k), r[0].I)
			require.InDelta(t, 2000, r[1].I, 40, "segments of %d", rows)
		}
		res, err = runSQL(t, st, kllSQL, 0)
		require.NoError(t, err)
		require.Len(t, res.Rows, 2)
		for k, r := range res.Rows {
			q := r[1].L
			require.Len(t, q, 2)
			require.Equal(t, []int64{int64(k), int64(3998 + k)}, []int64{q[0].I, q[1].I}, "segments of %d", rows)
		}
	}
}
