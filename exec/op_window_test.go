package exec

import (
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/logstore"
	"logq/planner"
	"logq/types"
)

// Window frames against a naive reference: for every row, the frame's rows
// are found by scanning the whole partition with the frame's definition,
// and the aggregate is taken over them. The data has many peers (v repeats)
// and NULLs, spans several segments and partitions of uneven sizes.
func TestWindowFramesMatchNaiveReference(t *testing.T) {
	type row struct {
		i    int // also the timestamp order
		g    string
		v    int64
		null bool
	}
	rng := rand.New(rand.NewSource(7))
	var rows []row
	st := logstore.New(logstore.Options{SegmentRows: 64})
	numbered(t, st, "src", 700, func(i int) string {
		r := row{i: i, g: string(rune('a' + rng.Intn(4))), v: int64(rng.Intn(25)), null: rng.Intn(8) == 0}
		if r.null {
			r.v = 0 // only the flag counts: NULLs are peers
		}
		if i%97 == 0 {
			r.g = "z" // a few rows alone in their partition
			r.g += fmt.Sprint(i)
		}
		rows = append(rows, r)
		if r.null {
			return fmt.Sprintf(`"g":%q,"i":%d`, r.g, i)
		}
		return fmt.Sprintf(`"g":%q,"i":%d,"v":%d`, r.g, i, r.v)
	})

	type bound struct {
		kind string // up, p (preceding), c, f (following), uf
		n    int64
	}
	sqlBound := func(b bound) string {
		switch b.kind {
		case "up":
			return "unbounded preceding"
		case "uf":
			return "unbounded following"
		case "c":
			return "current row"
		case "p":
			return fmt.Sprintf("%d preceding", b.n)
		}
		return fmt.Sprintf("%d following", b.n)
	}
	frames := [][2]bound{
		{{"up", 0}, {"c", 0}}, {{"p", 3}, {"c", 0}}, {{"p", 2}, {"f", 2}}, {{"c", 0}, {"uf", 0}},
		{{"f", 1}, {"f", 4}}, {{"p", 5}, {"p", 1}}, {{"up", 0}, {"p", 2}}, {{"p", 0}, {"f", 0}},
		{{"up", 0}, {"uf", 0}},
	}
	// pos is a row's position in the partition's order (v NULLS FIRST,
	// then i: ROWS frames need a total order); key its v.
	for _, rowsMode := range []bool{true, false} {
		for _, fr := range frames {
			unit := "range"
			if rowsMode {
				unit = "rows"
			}
			order := "v"
			if rowsMode {
				order = "v, i" // unique: ROWS frames are then deterministic
			}
			sql := fmt.Sprintf(`select i, sum(v) over w as s, count(*) over w as c, min(v) over w as mn, max(v) over w as mx,
				first_value(v ignore nulls) over w as fv
				from src window w as (partition by g order by %s %s between %s and %s) order by i`,
				order, unit, sqlBound(fr[0]), sqlBound(fr[1]))
			res, err := runSQL(t, st, sql, 0)
			require.NoError(t, err, sql)
			require.Len(t, res.Rows, len(rows))

			for _, r := range rows {
				var part []row
				for _, o := range rows {
					if o.g == r.g {
						part = append(part, o)
					}
				}
				sort.Slice(part, func(a, b int) bool {
					x, y := part[a], part[b]
					if x.null != y.null {
						return x.null
					}
					if x.v != y.v {
						return x.v < y.v
					}
					return x.i < y.i
				})
				me := 0
				for k, o := range part {
					if o.i == r.i {
						me = k
					}
				}
				// A bound's signed distance from the current row (its
				// position for ROWS, its key for RANGE); unbounded ends
				// take in everything.
				dist := func(b bound) int64 {
					switch b.kind {
					case "p":
						return -b.n
					case "f":
						return b.n
					}
					return 0
				}
				in := func(k int, o row) bool {
					start, end := fr[0], fr[1]
					if rowsMode {
						return (start.kind == "up" || int64(k) >= int64(me)+dist(start)) &&
							(end.kind == "uf" || int64(k) <= int64(me)+dist(end))
					}
					// RANGE, as positions in the order (NULLs first): the
					// frame of a NULL key's offsets is its NULL peers.
					okStart := start.kind == "up" || r.null || !o.null && o.v >= r.v+dist(start)
					okEnd := end.kind == "uf" || (r.null && o.null) || (!r.null && (o.null || o.v <= r.v+dist(end)))
					return okStart && okEnd
				}
				var sum, cnt, mn, mx, fv int64
				var any, fvSet bool
				for k, o := range part {
					if !in(k, o) {
						continue
					}
					cnt++
					if o.null {
						continue
					}
					if !fvSet {
						fv, fvSet = o.v, true
					}
					if !any || o.v < mn {
						mn = o.v
					}
					if !any || o.v > mx {
						mx = o.v
					}
					sum += o.v
					any = true
				}
				got := res.Rows[r.i]
				require.Equal(t, int64(r.i), got[0].I)
				ctx := fmt.Sprintf("%s %s..%s row %d (g=%s v=%d null=%v)", unit, sqlBound(fr[0]), sqlBound(fr[1]), r.i, r.g, r.v, r.null)
				require.Equal(t, cnt, got[2].I, "count: "+ctx)
				if !any {
					require.True(t, got[1].Null && got[3].Null && got[4].Null && got[5].Null, "empty: "+ctx)
					continue
				}
				require.Equal(t, sum, got[1].I, "sum: "+ctx)
				require.Equal(t, mn, got[3].I, "min: "+ctx)
				require.Equal(t, mx, got[4].I, "max: "+ctx)
				require.Equal(t, fv, got[5].I, "first_value: "+ctx)
			}
		}
	}
}

// A window keeps every row it reads: past the budget the query stops,
// naming it.
func TestWindowChargesBudget(t *testing.T) {
	st := logstore.New(logstore.Options{SegmentRows: 1000})
	numbered(t, st, "src", 500, func(i int) string { return fmt.Sprintf(`"k":%d`, i) })
	_, err := runSQL(t, st, "select k, row_number() over (order by k) as rn from src", 8<<10)
	require.ErrorContains(t, err, "memory budget of 8KiB")
	require.ErrorContains(t, err, "(in a window function)")
	res, err := runSQL(t, st, "select k, row_number() over (order by k desc) as rn from src order by k limit 1", 0)
	require.NoError(t, err)
	require.Equal(t, int64(500), res.Rows[0][1].I)
}

// The first k rows per partition (ROW_NUMBER … <= k in QUALIFY, or = 1 in
// a WHERE over a derived table) are kept while reading: rows that arrive in
// ascending v, ordered DESC, each displace the partition's worst, so the
// stores are compacted many times. The rows must be exactly the k largest
// v per g (ties to the earlier row), computed here from the data.
func TestWindowTopNPerPartition(t *testing.T) {
	st := logstore.New(logstore.Options{SegmentRows: 500})
	const n = 20000
	g := func(i int) int { return i % 7 }
	v := func(i int) int { return i / 3 } // ascending, in runs of 3 equal values
	numbered(t, st, "src", n, func(i int) string { return fmt.Sprintf(`"g":%d,"v":%d,"i":%d`, g(i), v(i), i) })
	for _, k := range []int{1, 3} {
		want := map[int][]int{} // g → i of its k rows, best first
		for gi := 0; gi < 7; gi++ {
			var is []int
			for i := 0; i < n; i++ {
				if g(i) == gi {
					is = append(is, i)
				}
			}
			sort.SliceStable(is, func(a, b int) bool { return v(is[a]) > v(is[b]) })
			want[gi] = is[:k]
		}
		for _, sql := range []string{
			fmt.Sprintf("select g, i, row_number() over (partition by g order by v desc) as rn from src qualify rn <= %d order by g, rn", k),
			fmt.Sprintf("select g, i, rn from (select g, i, row_number() over (partition by g order by v desc) as rn from src) where %d >= rn order by g, rn", k),
		} {
			res, err := runSQL(t, st, sql, 2<<20) // the whole input (20000 rows × 6 values) would not fit
			require.NoError(t, err, sql)
			require.Len(t, res.Rows, 7*k, sql)
			for j, row := range res.Rows {
				gi, rn := j/k, j%k
				require.Equal(t, int64(gi), row[0].I, sql)
				require.Equal(t, int64(want[gi][rn]), row[1].I, "%s: g=%d rn=%d", sql, gi, rn+1)
				require.Equal(t, int64(rn+1), row[2].I, sql)
			}
		}
	}
	// Without the pattern (rn + 0) every row is kept, past that budget.
	_, err := runSQL(t, st, "select g, i, row_number() over (partition by g order by v desc) as rn from src qualify rn + 0 <= 1", 2<<20)
	require.ErrorContains(t, err, "(in a window function)")
}

// The first rows per partition, read serially (one segment) and by parallel
// workers (many), with NULL order keys placed by each direction's default
// and by NULLS FIRST/LAST, and a STRING column only carried to the output
// (read late: planner.ScanField.Late), against a plain sort.
func TestWindowTopNNullsAndLateStrings(t *testing.T) {
	const n = 6000
	g := func(i int) int { return i % 7 }
	null := func(i int) bool { return i%50 == 0 && i <= 300 } // one per partition
	mk := func(i int) string {
		if null(i) {
			return fmt.Sprintf(`"g":%d,"s":"id-%d","i":%d`, g(i), i, i)
		}
		return fmt.Sprintf(`"g":%d,"s":"id-%d","i":%d,"v":%d`, g(i), i, i, (i*7919)%n)
	}
	serial := logstore.New(logstore.Options{SegmentRows: 2 * n})
	numbered(t, serial, "src", n, mk)
	parallel := logstore.New(logstore.Options{SegmentRows: 300})
	numbered(t, parallel, "src", n, mk)
	for _, order := range []struct {
		sql        string
		desc       bool
		nullsFirst bool
	}{
		{"v desc", true, false},
		{"v", false, true},
		{"v desc nulls first", true, true},
		{"v asc nulls last", false, false},
	} {
		before := func(a, b int) bool {
			if null(a) != null(b) {
				return null(a) == order.nullsFirst
			}
			va, vb := (a*7919)%n, (b*7919)%n
			return va > vb == order.desc
		}
		for _, k := range []int{1, 4} {
			var want []string
			for gi := 0; gi < 7; gi++ {
				var is []int
				for i := 0; i < n; i++ {
					if g(i) == gi {
						is = append(is, i)
					}
				}
				sort.Slice(is, func(a, b int) bool { return before(is[a], is[b]) })
				for rn, i := range is[:k] {
					want = append(want, fmt.Sprintf("%d id-%d %d", gi, i, rn+1))
				}
			}
			sql := fmt.Sprintf("select g, s, row_number() over (partition by g order by %s) as rn from src qualify rn <= %d order by g, rn", order.sql, k)
			for name, st := range map[string]*logstore.Store{"serial": serial, "parallel": parallel} {
				res, err := runSQL(t, st, sql, 0)
				require.NoError(t, err, sql)
				var got []string
				for _, r := range res.Rows {
					got = append(got, fmt.Sprintf("%d %s %d", r[0].I, r[1].S, r[2].I))
				}
				require.Equal(t, want, got, "%s: %s", name, sql)
			}
		}
	}
}

// Many partitions, each displaced in every batch: the dropped rows pile up
// past what compact waits for, so the stores are compacted while rows are
// still being read, and the kept rows' store numbers must follow (the
// first-row slots and the heaps alike).
func TestWindowTopNCompactsWhileReading(t *testing.T) {
	const n, parts = 24000, 3000
	for _, segRows := range []int{2 * n, 2000} {
		st := logstore.New(logstore.Options{SegmentRows: segRows})
		numbered(t, st, "src", n, func(i int) string { return fmt.Sprintf(`"g":%d,"v":%d`, i%parts, i) })
		for _, k := range []int{1, 2} {
			res, err := runSQL(t, st, fmt.Sprintf("select g, v, row_number() over (partition by g order by v desc) as rn from src qualify rn <= %d order by g, rn", k), 0)
			require.NoError(t, err)
			require.Len(t, res.Rows, parts*k)
			for j, r := range res.Rows {
				g, rn := j/k, j%k
				last := n - parts + g // the newest i with i % parts == g
				require.Equal(t, []int64{int64(g), int64(last - rn*parts), int64(rn + 1)}, []int64{r[0].I, r[1].I, r[2].I}, "segment rows %d, k %d", segRows, k)
			}
		}
	}
}

// The first row per partition over a UNION of two sources whose nested
// records are references each with its own resolver: a partition's row is
// overwritten by one from the other source (rowStore.setRow keeps values
// then), and each kept record is the newest row's.
func TestWindowFirstRowOverwritesAcrossSources(t *testing.T) {
	st := logstore.New(logstore.Options{SegmentRows: 50})
	for _, src := range []string{"a", "b"} {
		numbered(t, st, src, 400, func(i int) string {
			n := 2 * i
			if src == "b" {
				n++
			}
			return fmt.Sprintf(`"g":%d,"n":%d,"metadata":{"who":%q,"n":%d}`, i%5, n, src, n)
		})
	}
	// The newest of g is i = 395+g in b (n = 2i+1).
	var want []string
	for g := 0; g < 5; g++ {
		want = append(want, fmt.Sprintf("%d b %d", g, 2*(395+g)+1))
	}
	// The references come after the other columns, and before them: a row
	// overwritten from values of one column is still the same row in the
	// columns that follow it.
	for _, inner := range []string{"select g, n, metadata as m", "select metadata as m, g, n"} {
		res, err := runSQL(t, st, `select g, m[offset(0)].who as who, m[offset(0)].n as mn from (
  `+inner+` from a union all `+inner+` from b)
qualify row_number() over (partition by g order by n desc) = 1 order by g`, 0)
		require.NoError(t, err)
		var got []string
		for _, r := range res.Rows {
			got = append(got, fmt.Sprintf("%d %s %d", r[0].I, r[1].S, r[2].I))
		}
		require.Equal(t, want, got, inner)
	}
}

// Read serially, rows that tie in the window's order keep input order: the
// first row per partition is the earliest of the tied ones, NULLs included.
func TestWindowFirstRowTiesKeepInputOrder(t *testing.T) {
	st := logstore.New(logstore.Options{SegmentRows: 10000})
	numbered(t, st, "src", 5000, func(i int) string {
		if i%2 == 1 && i < 10 {
			return fmt.Sprintf(`"g":%d,"i":%d`, i%2, i) // v NULL in g 1 up to i 9
		}
		return fmt.Sprintf(`"g":%d,"i":%d,"v":%d`, i%2, i, i/1000) // ties in runs of 1000
	})
	for order, want := range map[string][]int64{
		"v desc":             {4000, 4001},
		"v":                  {0, 1},
		"v desc nulls first": {4000, 1},
	} {
		res, err := runSQL(t, st, "select g, i from src qualify row_number() over (partition by g order by "+order+") = 1 order by g", 0)
		require.NoError(t, err)
		require.Len(t, res.Rows, 2)
		require.Equal(t, want, []int64{res.Rows[0][1].I, res.Rows[1][1].I}, order)
	}
}

// A bare partition key is read late (planner lateFields) and grouped by its
// dictionary codes, or resolved a segment's run at a time where its column
// is plain. Over segments of both encodings, segments without the field
// (a NULL partition) and an open segment, serially and by parallel workers,
// the first row per key is the one a plain-Go pass finds.
func TestWindowLatePartitionKeyMatchesReference(t *testing.T) {
	const n = 4250 // segments of 500 rows: 8 sealed, one open
	st := logstore.New(logstore.Options{SegmentRows: 500})
	keyOf := func(i int) (string, bool) {
		switch seg := i / 500; {
		case seg == 2 || seg == 3: // nearly unique values: a plain column
			if i%50 == 0 {
				return fmt.Sprintf("k%d", i%7), true
			}
			return fmt.Sprintf("unique-key-%06d-padding-to-make-it-long", i), true
		case seg == 4 || seg == 5: // present on odd rows only
			return fmt.Sprintf("k%d", i%7), i%2 == 1
		case seg == 6: // absent from the whole segment
			return "", false
		}
		return fmt.Sprintf("k%d", i%7), true
	}
	vOf := func(i int) int64 { return int64(i*7919) % 4253 } // distinct, unordered
	event := func(i int) string {
		if k, ok := keyOf(i); ok {
			return fmt.Sprintf(`"k":%q,"v":%d,"i":%d`, k, vOf(i), i)
		}
		return fmt.Sprintf(`"v":%d,"i":%d`, vOf(i), i)
	}
	// Segments seal in the background; Flush waits for the eight full ones
	// (a snapshot taken mid-seal sees a segment still in its open form),
	// then the last 250 rows stay in the open segment.
	numberedRange(t, st, "src", 0, 4000, event)
	require.NoError(t, st.Flush())
	numberedRange(t, st, "src", 4000, n, event)
	// The data has what the test is about: dictionary and plain columns,
	// segments without the field, an open segment.
	snap := st.Snapshot("src")
	var dict, plain, absent int
	for _, seg := range snap.Segments {
		c, err := seg.Column("k")
		require.NoError(t, err)
		switch {
		case c == nil:
			absent++
		case c.IsDict():
			dict++
		default:
			plain++
		}
	}
	require.Positive(t, dict)
	require.Positive(t, plain)
	require.Positive(t, absent)
	require.NotNil(t, shares(&planner.Scan{TimeLo: math.MinInt64, TimeHi: math.MaxInt64}, snapshot{Snapshot: snap}, 2))

	best := map[string]int{} // key ("" for NULL) → i with the largest v
	for i := 0; i < n; i++ {
		k, ok := keyOf(i)
		if !ok {
			k = "NULL"
		}
		if b, seen := best[k]; !seen || vOf(i) > vOf(b) {
			best[k] = i
		}
	}
	sql := "select k, i from src qualify row_number() over (partition by k order by v desc) = 1"
	q, err := Prepare(sql)
	require.NoError(t, err)
	plan, err := Explain(Local(st), q, Request{Now: goldenNow})
	require.NoError(t, err)
	require.Contains(t, plan, "late(k)")
	requireKeyRows(t, st, sql, best, func(v types.Value) string { return v.S })
}

// requireKeyRows runs sql, which selects a key and an INT64 i, serially and
// with two workers, and requires the rows of both to be want's (key → i;
// "NULL" for a NULL key), keys written by text.
func requireKeyRows(t *testing.T, st *logstore.Store, sql string, want map[string]int, text func(types.Value) string) {
	var wantRows []string
	for k, i := range want {
		wantRows = append(wantRows, fmt.Sprintf("%s %d", k, i))
	}
	sort.Strings(wantRows)
	for _, procs := range []int{1, 2} {
		prev := runtime.GOMAXPROCS(procs)
		res, err := runSQL(t, st, sql, 0)
		runtime.GOMAXPROCS(prev)
		require.NoError(t, err)
		var got []string
		for _, r := range res.Rows {
			k := "NULL"
			if !r[0].Null {
				k = text(r[0])
			}
			got = append(got, fmt.Sprintf("%s %d", k, r[1].I))
		}
		sort.Strings(got)
		require.Equal(t, wantRows, got, "GOMAXPROCS %d", procs)
	}
}
