package clickhouse

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/exec"
	"logq/exec/golden"
	"logq/logstore"
)

// BigQuery's semantics where ClickHouse's differ (three-valued logic, NULL
// and NaN order and comparison, aggregates over NULLs and NaN, regexes and
// LIKE, the nearest-rank quantiles, time buckets before 1970): each query
// runs over both engines on the same events and must give the same rows.
// The events have NULLs, absent fields and a timestamp before the epoch.
var semanticsEvents = []string{
	`{"timestamp":"2024-05-01T10:00:00Z","id":"a","g":"x","b":true,"c":true,"n":1,"x":1.5,"s":"abc"}`,
	`{"timestamp":"2024-05-01T10:00:30Z","id":"b","g":"x","b":true,"c":false,"n":2,"x":-2.25,"s":"ABC"}`,
	`{"timestamp":"2024-05-01T10:01:00Z","id":"c","g":"x","b":false,"c":null,"n":3,"x":null,"s":"xAbCx"}`,
	`{"timestamp":"2024-05-01T10:02:00Z","id":"d","g":"y","b":null,"c":true,"n":4,"x":0.1,"s":"a\nc"}`,
	`{"timestamp":"2024-05-01T10:03:00Z","id":"e","g":"y","c":false,"n":5,"s":"héllo wörld"}`,
	`{"timestamp":"2024-05-01T10:04:00Z","id":"f","g":"y","b":false,"c":false,"x":7,"s":""}`,
	`{"timestamp":"1969-12-31T23:59:59.5Z","id":"g","g":"z","b":true,"n":-9,"x":1e300,"s":"K"}`,
	`{"timestamp":"2024-05-01T10:05:00Z","id":"h","b":null,"c":null,"n":2,"x":-0.0,"s":"ERROR: x"}`,
}

var semanticsQueries = []string{
	// three-valued AND, OR, NOT outside and inside filters
	`select id, b and c as a, b or c as o, not (b and c) as na, (b or c) is null as onull from src order by id`,
	`select id from src where not (b and c) order by id`,
	`select id from src where not (b or c) order by id`,
	`select id from src where (b or c) and not (b and c) order by id`,
	`select id, if(b, 'yes', 'no') as i, case when c then 1 when b then 2 else 3 end as k, case when b and c then 'both' end as bc from src order by id`,
	`select count(case when not (b or c) then 1 end) as n1, countif(b and c) as n2, countif(not c) as n3, count(b) as n4 from src`,
	// NULL and NaN order, ties broken by id
	`select id, x from src order by x, id`,
	`select id, x from src order by x desc, id`,
	`select id, x from src order by x asc nulls last, id limit 5`,
	`select id, x from src order by x desc nulls first, id limit 4 offset 1`,
	`select id, if(n = 2, cast('nan' as float64), x) as y from src order by y, id`,
	`select id, if(n = 2, cast('nan' as float64), x) as y from src order by y desc, id`,
	`select id from src where x < cast('nan' as float64) or x = cast('nan' as float64) order by id`,
	`select id from src where if(n = 2, cast('nan' as float64), x) != cast('nan' as float64) order by id`,
	`select id from src where n > 1.5 and x <= 7 order by id`,
	// aggregates over NULLs and NaN
	`select g, count(*) as c, count(x) as cx, count(distinct n) as dn, sum(n) as sn, sum(x) as sx, avg(n) as an, min(x) as mn, max(x) as mx, min(s) as ms, max(b) as mb from src group by g order by g`,
	`select g, min(if(n = 2, cast('nan' as float64), x)) as mn, max(if(n = 2, cast('nan' as float64), x)) as mx from src group by g order by g`,
	`select g, logical_and(b) as la, logical_or(c) as lo from src group by g order by g`,
	`select count(*) as c, sum(n) as s, max(x) as m, count(distinct g) as d from src where n > 100`,
	`select g, approx_quantiles(n, 4)[offset(1)] as q1, approx_quantiles(n, 4)[offset(2)] as q2, approx_quantiles(n, 4)[ordinal(5)] as q4 from src group by g order by g`,
	`select approx_quantiles(x, 10)[offset(5)] as med, approx_quantiles(x, 10)[offset(9)] as p90 from src`,
	// regexes and LIKE
	`select id from src where regexp_contains(s, '(?i)abc') order by id`,
	`select id from src where regexp_contains(s, '^a') order by id`,
	`select id from src where regexp_contains(s, 'b|w') order by id`,
	`select id from src where regexp_contains(s, '(?i)error') order by id`,
	`select id from src where regexp_contains(s, 'h.llo') order by id`,
	`select id from src where regexp_contains(s, '(?i)k') order by id`,
	`select id from src where s like 'a%c' order by id`,
	`select id from src where s like '%b%' order by id`,
	`select id from src where s like 'h_llo%' order by id`,
	`select id from src where starts_with(s, 'x') or ends_with(s, 'd') order by id`,
	`select id, length(s) as l, s || '!' as t from src order by id`,
	// time buckets, before the epoch too
	`select timestamp_trunc(timestamp, minute) as m, timestamp_trunc(timestamp, hour) as h, timestamp_trunc(timestamp, day) as d, count(*) as n from src group by m, h, d order by m`,
	`select timestamp_trunc(timestamp, minute) as m, count(*) as n from src where timestamp >= '1969-12-31 23:00:00' group by m order by m`,
	`select timestamp_trunc(timestamp, minute) as m, timestamp_trunc(timestamp, hour) as h, count(*) as n from src where timestamp >= '1970-01-01' group by m, h order by m`,
	`select datetime(timestamp, 'UTC') as dt, cast(timestamp as datetime) as c from src order by dt`,
	// HAVING over an aggregate, a sort over a projection, limits
	`select g, count(*) as n from src group by g having count(*) > 1 order by n desc, g`,
	`select n * 2 as m, id from src order by m desc, id limit 3`,
	`select coalesce(x, -1) as cx, id from src order by cx, id`,
}

func TestSemanticsAgree(t *testing.T) {
	cl := needCluster(t)
	local := logstore.New(logstore.Options{SegmentRows: 3})
	ch := cl.engine(t, Config{})
	c := &golden.Case{Inputs: map[string][][]byte{}, Sources: []string{"src"}}
	for _, e := range semanticsEvents {
		c.Inputs["src"] = append(c.Inputs["src"], []byte(e))
	}
	loadGolden(t, c, local, ch)
	for _, q := range semanticsQueries {
		t.Run(q, func(t *testing.T) {
			before := ch.RowsMoved()
			rows := compareEnginesOrdered(t, q, nil, goldenNow, local, ch)
			// Translated whole, a query moves its result's rows only.
			moved := ch.RowsMoved() - before
			if inExec[q] {
				require.Greater(t, moved, int64(rows), "rows moved")
			} else {
				require.Equal(t, int64(rows), moved, "rows moved: not translated whole")
			}
		})
	}
}

// inExec are the queries of which exec computes a part: a regex or LIKE
// that tells bytes from runes, INT64 arithmetic (it errors on overflow in
// BigQuery and wraps in ClickHouse).
var inExec = map[string]bool{
	`select id from src where regexp_contains(s, 'h.llo') order by id`: true,
	`select id from src where regexp_contains(s, '(?i)k') order by id`: true,
	`select id from src where s like 'h_llo%' order by id`:             true,
	`select n * 2 as m, id from src order by m desc, id limit 3`:       true,
}

// APPROX_QUANTILES at the nearest rank, for every group size from 1 to 150
// (sizes where r·N/n is whole and where it is not, for each rank), at ranks
// ClickHouse's quantileExact reads and past them (the sorted values).
func TestQuantileRanksAgree(t *testing.T) {
	cl := needCluster(t)
	local := logstore.New(logstore.Options{SegmentRows: 500})
	ch := cl.engine(t, Config{})
	for size := 1; size <= 150; size++ {
		var evs [][]byte
		for i := 0; i < size; i++ {
			v := (i*7919 + size) % (size + 3) // the values in no order, some repeated
			evs = append(evs, []byte(fmt.Sprintf(`{"timestamp":"2024-05-01T10:%02d:%02dZ","id":"%d-%d","g":%d,"v":%d}`, i/60%60, i%60, size, i, size, v)))
		}
		local.Append("src", evs)
		_, _, err := ch.Ingest("src", evs)
		require.NoError(t, err)
	}
	// A group whose values are all NULL.
	nulls := [][]byte{[]byte(`{"timestamp":"2024-05-01T11:00:00Z","id":"n1","g":999}`), []byte(`{"timestamp":"2024-05-01T11:00:01Z","id":"n2","g":999,"v":null}`)}
	local.Append("src", nulls)
	_, _, err := ch.Ingest("src", nulls)
	require.NoError(t, err)
	for _, q := range []string{
		`select g, approx_quantiles(v, 100)[offset(0)] as p0, approx_quantiles(v, 100)[offset(1)] as p1, approx_quantiles(v, 100)[offset(5)] as p5,
			approx_quantiles(v, 100)[offset(50)] as p50, approx_quantiles(v, 100)[offset(95)] as p95, approx_quantiles(v, 100)[offset(99)] as p99,
			approx_quantiles(v, 100)[offset(100)] as p100 from src group by g order by g`,
		`select g, approx_quantiles(v, 7)[offset(3)] as a, approx_quantiles(v, 3)[ordinal(2)] as b, approx_quantiles(v, 6000)[offset(4500)] as c from src group by g order by g`,
		`select g, approx_quantiles(v, 100)[offset(95)] as p95, approx_quantiles(v, 100)[offset(99)] as p99 from src group by g order by g`,
		`select approx_quantiles(v, 1000)[offset(999)] as a from src where g > 1000`,
		`select approx_quantiles(v, 4)[offset(1)] as a, approx_quantiles(v, 4)[offset(2)] as b, approx_quantiles(v, 4)[offset(3)] as c from src where g > 1000`,
	} {
		t.Run(q, func(t *testing.T) {
			before := ch.RowsMoved()
			rows := compareEnginesOrdered(t, q, nil, goldenNow, local, ch)
			require.Equal(t, int64(rows), ch.RowsMoved()-before, "rows moved: not translated whole")
		})
	}
}

// A FLOAT64 SUM whose partial sums leave FLOAT64 but whose total does not:
// the local engine adds on in a wide float and gives the total (as
// BigQuery does); ClickHouse adds in FLOAT64, so logq's SQL makes it fail
// with the overflow error rather than answer an infinity (translate_agg.go).
// By hand: 1.79769e308 + 1.79769e307 - 1.79769e308 = 1.79769e307; these
// three timestamps put the two positive values on one shard, whose partial
// sum is past FLOAT64.
func TestFloatSumPastFloat64OverClickHouse(t *testing.T) {
	cl := needCluster(t)
	local := logstore.New(logstore.Options{SegmentRows: 3})
	ch := cl.engine(t, Config{})
	c := &golden.Case{Sources: []string{"src"}, Inputs: map[string][][]byte{"src": {
		[]byte(`{"timestamp":"2024-05-01T10:00:00Z","x":1.79769e308}`),
		[]byte(`{"timestamp":"2024-05-01T10:00:01Z","x":1.79769e307}`),
		[]byte(`{"timestamp":"2024-05-01T10:00:02Z","x":-1.79769e308}`),
	}}}
	loadGolden(t, c, local, ch)
	q, err := exec.Prepare("select sum(x) as s, avg(x) as a from src")
	require.NoError(t, err)
	req := exec.Request{Now: goldenNow, MaxRows: 10}
	want, err := exec.Run(context.Background(), exec.Local(local), q, req)
	require.NoError(t, err)
	require.Equal(t, 1.79769e307, want.Rows[0][0].F)
	_, err = exec.Run(context.Background(), ch, q, req)
	var xe *exec.Error
	require.ErrorAs(t, err, &xe)
	require.Equal(t, exec.KindEvaluation, xe.Kind)
	require.Equal(t, "floating point overflow: SUM is outside FLOAT64", xe.Msg)
}

// A top-k by time reads its rows' times first (translate.go, lateRows):
// with times shared by many events on both shards, filters, offsets, both
// directions, and more rows than the limit at the cut, the rows are the
// local engine's, and every such query was narrowed.
func TestLateRowsAgree(t *testing.T) {
	cl := needCluster(t)
	local := logstore.New(logstore.Options{SegmentRows: 50})
	ch := cl.engine(t, Config{})
	c := &golden.Case{Inputs: map[string][][]byte{}, Sources: []string{"src"}}
	for i := 0; i < 600; i++ { // 600 events over 60 distinct seconds
		c.Inputs["src"] = append(c.Inputs["src"], []byte(fmt.Sprintf(
			`{"timestamp":"2024-05-01T10:00:%02dZ","id":"e%03d","k":%d,"s":"v%d","m":{"s":"w%d"}}`, (i*7)%60, i, i%5, i%3, i%4)))
	}
	loadGolden(t, c, local, ch)
	for _, q := range []string{
		`select id, k, m from src order by timestamp desc, id limit 7`,
		`select id, k, m from src order by timestamp, id desc limit 15 offset 4`,
		`select id, s, m from src where k = 2 order by timestamp desc, id limit 12`,
		`select id from src where s = 'v1' and k > 0 order by timestamp desc, k, id limit 3 offset 9`,
		`select timestamp, id from src where timestamp >= '2024-05-01 10:00:30' order by timestamp, id limit 25`,
	} {
		t.Run(q, func(t *testing.T) {
			before := ch.narrowed.Load()
			compareEnginesOrdered(t, q, nil, goldenNow, local, ch)
			require.Greater(t, ch.narrowed.Load(), before, "the query read its rows' times first")
		})
	}
	// A limit and offset whose sum wraps: not narrowed, and no 500.
	compareEnginesOrdered(t, `select id from src order by timestamp desc limit 10 offset 9223372036854775800`, nil, goldenNow, local, ch)
}
