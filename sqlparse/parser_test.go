package sqlparse

import (
	"io/fs"
	"logq/exec/golden"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every query that parses must print to text that parses to the same tree:
// Print(Parse(Print(Parse(q)))) == Print(Parse(q)).
func requireFixedPoint(t testing.TB, src string) {
	q, err := Parse(src)
	if err != nil {
		return
	}
	once := Print(q)
	q2, err := Parse(once)
	require.NoError(t, err, "printed form does not parse: %s", once)
	require.Equal(t, once, Print(q2))
}

var dialect = []struct{ in, want string }{
	{"select 1", "SELECT 1"},
	{"select struct<>(), cast(null as struct<>), array<struct<>>[]", "SELECT STRUCT<>(), CAST(NULL AS STRUCT<>), ARRAY<STRUCT<>>[]"},
	{"select array(select as struct a, b as c from t), (select as value x from t)", "SELECT ARRAY(SELECT AS STRUCT a, b AS c FROM t), (SELECT AS VALUE x FROM t)"},
	{"select array<struct<a int64, string>>[], cast(x as array<float64>) from t",
		"SELECT ARRAY<STRUCT<a INT64, STRING>>[], CAST(x AS ARRAY<FLOAT64>) FROM t"},
	{"select struct<x int64>(1), a is not distinct from b, a not in unnest(c), s like any ('a%', b), s not like all unnest(d) from t",
		"SELECT STRUCT<x INT64>(1), a IS NOT DISTINCT FROM b, a NOT IN UNNEST(c), s LIKE ANY ('a%', b), s NOT LIKE ALL UNNEST(d) FROM t"},
	{"select a from t group by grouping sets (a * b + c, (a * b) + c, (a), (a, b)), rollup(a, (b, c))",
		"SELECT a FROM t GROUP BY GROUPING SETS ((a * b) + c, (a * b) + c, a, (a, b)), rollup(a, (b, c))"},
	{"select a, sum(n) from t group by rollup(a, b), cube(c), grouping sets ((a, b), (), a, rollup(b))",
		"SELECT a, sum(n) FROM t GROUP BY rollup(a, b), cube(c), GROUPING SETS ((a, b), (), a, rollup(b))"},
	{"SELECT a, b, FROM t;", "SELECT a, b FROM t"},
	{"select `cloudflare.logs.prod`.x from `cloudflare.logs.prod`", "SELECT `cloudflare.logs.prod`.x FROM cloudflare.logs.prod"},
	{"select a || b || c from t", "SELECT (a || b) || c FROM t"},
	{"select 1 + 2 * 3 - -4", "SELECT (1 + (2 * 3)) - (-4)"},
	{"select x from t -- comment\n where y /* c */ = 'a''", ""},
	{"select x from t --x\nwhere a = 1", "SELECT x FROM t WHERE a = 1"},
	{"select a.b.c, a[offset(1)], a[SAFE_OFFSET(0)], a[ordinal(2)], a[0] from t", "SELECT a.b.c, a[OFFSET(1)], a[SAFE_OFFSET(0)], a[ORDINAL(2)], a[0] FROM t"},
	{"select * from a, b cross join unnest(b.x) as y left join unnest(y.z) z on true", "SELECT * FROM a, b CROSS JOIN UNNEST(b.x) AS y LEFT JOIN UNNEST(y.z) AS z ON TRUE"},
	{"select case when a then 1 when b then 2 else 3 end, case x when 1 then 'a' end from t", "SELECT CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END, CASE x WHEN 1 THEN 'a' END FROM t"},
	{"select cast(x as int64), safe_cast(y as timestamp), if(a, b, c), coalesce(a, b) from t", "SELECT CAST(x AS INT64), SAFE_CAST(y AS TIMESTAMP), IF(a, b, c), coalesce(a, b) FROM t"},
	{"select x from t where a in (1, 2) and b not like 'x%' and c between 1 and 2 and d is not null and not e", "SELECT x FROM t WHERE ((((a IN (1, 2)) AND (b NOT LIKE 'x%')) AND (c BETWEEN 1 AND 2)) AND (d IS NOT NULL)) AND (NOT e)"},
	{"select timestamp_trunc(ts, hour), timestamp_sub(current_timestamp(), interval 1 day) from t", "SELECT timestamp_trunc(ts, HOUR), timestamp_sub(current_timestamp(), INTERVAL 1 DAY) FROM t"},
	{"select `a-b.c.func`(1, 'day_hour')", "SELECT `a-b.c.func`(1, 'day_hour')"},
	{"with a as (select 1 as x), b as (select x from a) select * from b order by x desc limit 10", "WITH a AS (SELECT 1 AS x), b AS (SELECT x FROM a) SELECT * FROM b ORDER BY x DESC LIMIT 10"},
	{"select a from t order by a collate 'und:ci' desc, b collate \"\" nulls last", "SELECT a FROM t ORDER BY a COLLATE 'und:ci' DESC, b COLLATE '' NULLS LAST"},
	{"select x from a union all select y from b", "SELECT x FROM a UNION ALL SELECT y FROM b"},
	{"select count(*), countif(a >= 400), approx_quantiles(x, 100)[offset(95)] from t group by 1", "SELECT count(*), countif(a >= 400), approx_quantiles(x, 100)[OFFSET(95)] FROM t GROUP BY 1"},
	{`select "double", 'it\'s', r'\d+' from t`, `SELECT 'double', 'it\'s', '\\d+' FROM t`},
	{"select t from t", "SELECT t FROM t"},
	{"select @param, @`odd name` from t", "SELECT @param, @`odd name` FROM t"},
	{"SeLeCt X FrOm T", "SELECT X FROM T"},
	// Postgres' `::` reads as CAST, with the Postgres type name mapped.
	{"select event_message::text, a::int, b::bigint, c::float, d::double precision, e::bool, f::timestamp from t",
		"SELECT CAST(event_message AS STRING), CAST(a AS INT64), CAST(b AS INT64), CAST(c AS FLOAT64), CAST(d AS FLOAT64), CAST(e AS BOOL), CAST(f AS TIMESTAMP) FROM t"},
	{"select -x::int, m.a.b::text || 'z', f(x)::int8 from t", "SELECT -CAST(x AS INT64), CAST(m.a.b AS STRING) || 'z', CAST(f(x) AS INT64) FROM t"},
	{"select x::text::int from t", "SELECT CAST(CAST(x AS STRING) AS INT64) FROM t"},
	{"select extract(hour from ts at time zone 'Asia/Kolkata'), extract(day from ts) from t", "SELECT EXTRACT(HOUR FROM ts AT TIME ZONE 'Asia/Kolkata'), EXTRACT(DAY FROM ts) FROM t"},
	{"select extract(hour from ts at zone 'x') from t", ""},
	{"select array_agg(x ignore nulls order by y desc, z limit 3), string_agg(s, ',' order by s), array_agg(x respect nulls) from t",
		"SELECT array_agg(x IGNORE NULLS ORDER BY y DESC, z LIMIT 3), string_agg(s, ',' ORDER BY s), array_agg(x RESPECT NULLS) FROM t"},
	{"select array_agg(x ignore order by y) from t", ""},
	// Subqueries in expressions.
	{"select x from t where a in (select b from u) and c not in (with w as (select 1 as d) select d from w)",
		"SELECT x FROM t WHERE (a IN (SELECT b FROM u)) AND (c NOT IN (WITH w AS (SELECT 1 AS d) SELECT d FROM w))"},
	{"select exists (select 1 from u), not exists(select * from v where y), (select max(z) from w) + 1, array(select q from r order by q)",
		"SELECT EXISTS(SELECT 1 FROM u), NOT EXISTS(SELECT * FROM v WHERE y), (SELECT max(z) FROM w) + 1, ARRAY(SELECT q FROM r ORDER BY q)"},
	{"select a in ((select 1), 2), (a, b) in (select 1, 2) from t", "SELECT a IN ((SELECT 1), 2), (a, b) IN (SELECT 1, 2) FROM t"},
	{"select a in (select 1 union all select 2) from t", "SELECT a IN (SELECT 1 UNION ALL SELECT 2) FROM t"},
	{"select row_number() over (partition by a, b order by c desc) as rn from t qualify rn = 1",
		"SELECT row_number() OVER (PARTITION BY a, b ORDER BY c DESC) AS rn FROM t QUALIFY rn = 1"},
	{"select sum(x) over w, avg(x) over (w rows 2 preceding), lag(x, 1, 0) over () from t window w as (order by y)",
		"SELECT sum(x) OVER w, avg(x) OVER (w ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), lag(x, 1, 0) OVER () FROM t WINDOW w AS (ORDER BY y)"},
	{"select count(*) over (order by ts range between unbounded preceding and 3 following), first_value(x ignore nulls) over (order by y rows between current row and unbounded following) from t",
		"SELECT count(*) OVER (ORDER BY ts RANGE BETWEEN UNBOUNDED PRECEDING AND 3 FOLLOWING), first_value(x IGNORE NULLS) OVER (ORDER BY y ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM t"},
	{"select x from t where x > 1 qualify sum(x) over (partition by y) > 2", "SELECT x FROM t WHERE x > 1 QUALIFY sum(x) OVER (PARTITION BY y) > 2"},
	// Set operations pairing columns by name, with their modes.
	{"select a, b from t full outer union all by name select b from u left join v using (x) left union all corresponding select 1 as a",
		"SELECT a, b FROM t FULL UNION ALL BY NAME SELECT b FROM u LEFT JOIN v USING (x) LEFT UNION ALL CORRESPONDING SELECT 1 AS a"},
	{"select 1 as a outer union distinct corresponding by (a) select 2 as a inner except distinct by name on (a, `b c`) (select 3 as a) union all strict corresponding select 4 as a",
		"SELECT 1 AS a FULL UNION DISTINCT CORRESPONDING BY (a) SELECT 2 AS a INNER EXCEPT DISTINCT BY NAME ON (a, `b c`) (SELECT 3 AS a) UNION ALL STRICT CORRESPONDING SELECT 4 AS a"},
	{"select a, count(*) from t group by all having count(*) > 1", "SELECT a, count(*) FROM t GROUP BY ALL HAVING count(*) > 1"},
	{"select count(* having min f) from t", "SELECT count(* HAVING MIN f) FROM t"},
	{"select make_interval(1, day => 3, `hour`=>x+1) from t", "SELECT make_interval(1, day => 3, hour => x + 1) FROM t"},
	{"select date_trunc(d, week(monday)), extract(week(sunday) from d), last_day(d, isoyear) from t",
		"SELECT date_trunc(d, WEEK(MONDAY)), EXTRACT(WEEK(SUNDAY) FROM d), last_day(d, ISOYEAR) FROM t"},
	{"select any_value(x having max y), array_agg(x ignore nulls having min y + 1 order by z limit 2) from t",
		"SELECT any_value(x HAVING MAX y), array_agg(x IGNORE NULLS HAVING MIN y + 1 ORDER BY z LIMIT 2) FROM t"},
	// Hints for other engines are read and dropped.
	{"with u as (select 1 as i) @{ e.h = 1 } select @{ e.h = 2 } i from t @{ e.h = 3 } join @{ e.h = 4 } u using (i) group @{ e.h = 5 } by i order @{ e.h = 6 } by i",
		"WITH u AS (SELECT 1 AS i) SELECT i FROM t JOIN u USING (i) GROUP BY i ORDER BY i"},
	{"select * except (a) replace (b + 1 as b) from t limit all offset 2",
		"SELECT * EXCEPT (a) REPLACE (b + 1 AS b) FROM t LIMIT ALL OFFSET 2"},
	{"select * from unnest([1] as a, t.b, mode => 'PAD') with offset",
		"SELECT * FROM UNNEST([1] AS a, t.b, mode => 'PAD') WITH OFFSET"},
	{"select current_date, current_timestamp as t, current_time, `current_date` from t",
		"SELECT current_date(), current_timestamp() AS t, current_time(), `current_date` FROM t"},
	// PIVOT, with aliases; FOR's expression stops before IN.
	{"select * from t pivot(sum(x) as s, count(*) c for y + 1 in (1, 2 as two)) as p",
		"SELECT * FROM t PIVOT (sum(x) AS s, count(*) AS c FOR (y + 1) IN (1, 2 AS two)) AS p"},
	// UNPIVOT, single and multi-column, with labels and aliases.
	{"select * from t unpivot(v for k in (a, b as 'bee')) as u, (select 1 as x, 2 as y) unpivot include nulls ((p, q) for n in ((x, y) as 1, (y, x) 2))",
		"SELECT * FROM t UNPIVOT (v FOR k IN (a, b AS 'bee')) AS u, (SELECT 1 AS x, 2 AS y) UNPIVOT INCLUDE NULLS ((p, q) FOR n IN ((x, y) AS 1, (y, x) AS 2))"},
	// TABLESAMPLE after a table (its alias before it), a subquery or a
	// PIVOT, with every part.
	{"select * from t as x tablesample system (10 percent), (select 1) tablesample reservoir (5 rows partition by a, b + 1) repeatable (7) with weight w",
		"SELECT * FROM t AS x TABLESAMPLE SYSTEM (10 PERCENT), (SELECT 1) TABLESAMPLE RESERVOIR (5 ROWS PARTITION BY a, b + 1) REPEATABLE (7) WITH WEIGHT AS w"},
	{"select * from t pivot(sum(x) for y in (1)) tablesample bernoulli (0.5 percent) with weight",
		"SELECT * FROM t PIVOT (sum(x) FOR y IN (1)) TABLESAMPLE BERNOULLI (0.5 PERCENT) WITH WEIGHT"},
	// A parenthesized join whose first item is a subquery; a subquery of a
	// parenthesized query; a parenthesized join of tables.
	{"select * from ((select 1 as a) x cross join (select 2 as b) as y), (((select 3) union all (select 4))), ((t join u using (k)))",
		"SELECT * FROM (SELECT 1 AS a) AS x CROSS JOIN (SELECT 2 AS b) AS y, (((SELECT 3) UNION ALL (SELECT 4))), (t JOIN u USING (k))"},
	// Exact decimals: typed literals and types, with their aliases.
	{"select numeric '1.5', bignumeric '-2', decimal '3', bigdecimal '4', cast(x as numeric), cast(y as bigdecimal) from t",
		"SELECT NUMERIC '1.5', BIGNUMERIC '-2', DECIMAL '3', BIGDECIMAL '4', CAST(x AS NUMERIC), CAST(y AS BIGDECIMAL) FROM t"},
	// JSON: the literal, the type, field access and subscripts.
	{"select json '{\"a\": [1]}', cast(null as array<json>), j.a, j['b'][0] from t",
		"SELECT JSON '{\"a\": [1]}', CAST(NULL AS ARRAY<JSON>), j.a, j['b'][0] FROM t"},
	// Escapes in quoted identifiers, as in string literals.
	{"select 1 as `a\\\"b\\`c` from t", "SELECT 1 AS `a\"b\\`c` FROM t"},
	// WITH RECURSIVE.
	{"with recursive r as (select 1 as n union all select n + 1 from r where n < 3) select n from r",
		"WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r"},
	// The WITH expression beside a WITH clause, in parentheses and in IN.
	{"with w as (select 1 as b) select with(a as 1, `b c` as a + b, (with(x as `b c`, x))), b in (with(y as 1, y), 2) from w",
		"WITH w AS (SELECT 1 AS b) SELECT WITH(a AS 1, `b c` AS a + b, WITH(x AS `b c`, x)), b IN (WITH(y AS 1, y), 2) FROM w"},
	{"select with(a as 1, A as 2, a)", ""},
	// A correlated join of an array path without ON; a named window
	// defined as another's name.
	{"select item from t left join t.items as item, u join u.v window a as (order by x), b as a",
		"SELECT item FROM t LEFT JOIN t.items AS item, u JOIN u.v WINDOW a AS (ORDER BY x), b AS (a)"},
	{"select 1 from t join u", ""},
	// LIKE ANY (subquery), and a list whose element is a scalar subquery.
	{"select a like any (select p from t), a not like all ((select 'x'), 'y') from t",
		"SELECT a LIKE ANY (SELECT p FROM t), a NOT LIKE ALL ((SELECT 'x'), 'y') FROM t"},
	// expression.* of an expression that is not a path.
	{"select a[offset(0)].*, (select as struct 1 as x).* except (x), with(s as b, s).* replace (1 as y) from t",
		"SELECT (a[OFFSET(0)]).*, ((SELECT AS STRUCT 1 AS x)).* EXCEPT (x), (WITH(s AS b, s)).* REPLACE (1 AS y) FROM t"},
	{"select with(1)", ""},
	// CAST … FORMAT, with a time zone.
	{"select cast(b as string format 'base64'), safe_cast(s as timestamp format 'yyyy' || 'mm' at time zone 'UTC') from t",
		"SELECT CAST(b AS STRING FORMAT 'base64'), SAFE_CAST(s AS TIMESTAMP FORMAT 'yyyy' || 'mm' AT TIME ZONE 'UTC') FROM t"},
	// RANGE: the literal, the type and the constructor.
	{"select range<date> '[2024-01-01, unbounded)', cast(x as range<timestamp>), range(a, b) from t",
		"SELECT RANGE<DATE> '[2024-01-01, unbounded)', CAST(x AS RANGE<TIMESTAMP>), range(a, b) FROM t"},
}

func TestDialect(t *testing.T) {
	for _, c := range dialect {
		q, err := Parse(c.in)
		if c.want == "" {
			require.Error(t, err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, Print(q), c.in)
		requireFixedPoint(t, c.in)
	}
}

// Error cases carry an inline /* ERROR "regexp" */ marker at the offending
// position, as Go's parser tests do.
var errorCases = []string{
	`select /* ERROR "expected an expression, found .from." */ from t`,
	`select a from t where /* ERROR "expected an expression, found end of input" */`,
	`select a from t x /* ERROR "expected end of query, found identifier" */ garbage`,
	`select a = b /* ERROR "comparisons do not chain" */ = c`,
	`select /* ERROR "unterminated string" */ 'abc`,
	"select 'a', '/* ERROR \"not valid UTF-8 .byte 0xd1.\" */\xd1_'",
	`select a from t join u /* ERROR "expected ON or USING" */ where x`,
	`select x from /* ERROR "expected a table name" */ 1`,
	`select cast(x as /* ERROR "expected a type name" */ 1)`,
	`select /* ERROR "unexpected character" */ ? from t`,
	`select x:: /* ERROR "unknown type JSONB after ::" */ jsonb from t`,
	`select x:: /* ERROR "expected a type name" */ 1 from t`,
	`select a in (select 1 from t x /* ERROR "expected .\)., found identifier garbage" */ garbage) from t`,
	`select sum(x) over (order by y rows between 1 /* ERROR "expected PRECEDING or FOLLOWING" */ and 2 following) from t`,
	`select sum(x) over (order by y rows unbounded /* ERROR "expected PRECEDING or FOLLOWING" */ current row) from t`,
	`select sum(x) over (partition /* ERROR "expected BY" */ y) from t`,
	`select sum(x) over /* ERROR "expected a window name or ...." */ 1 from t`,
	`select (x) over /* ERROR "expected end of query" */ (order by y) from t`,
	`select array_agg(x ignore /* ERROR "expected NULLS" */ order by y) from t`,
	`select array_agg(x limit 1 /* ERROR "expected .\)., found .order." */ order by y) from t`,
	`select * from t tablesample system (10 /* ERROR "expected PERCENT or ROWS" */ )`,
	`select * from t tablesample /* ERROR "expected a sampling method" */ (10 percent)`,
	`select /* ERROR "expected an expression, found .tablesample." */ tablesample from t`,
	// BigQuery constructs logq does not have are refused by name.
	`select * from t pivot (sum(x) for y in ('a' /* ERROR "expected .\)., found" */ 'c'))`,
	`select * from t pivot ( /* ERROR "PIVOT needs an aggregate function call here" */ x for y in (1))`,
	`select * from t unpivot (v for k in (a, b as 1 /* ERROR "expected .\)., found .\+." */ + 1))`,
	`select a from t full union all /* ERROR "expected BY NAME or CORRESPONDING after FULL UNION, found .select." */ select a from t`,
	`select a /* ERROR "STRICT CORRESPONDING takes no LEFT mode" */ left union all strict corresponding select a`,
	`select a union all corresponding by ( /* ERROR "expected a column name" */ ) select a`,
	`select 'a' /* ERROR "COLLATE outside ORDER BY is not supported" */ collate 'und:ci'`,
	`select a from t order by a collate /* ERROR "expected a collation name string after COLLATE" */ und`,
	`select cast(x as int64 /* ERROR "a parameterized type INT64\(…\) is not supported" */ (10))`,
	`select array_filter([1, 2], e -/* ERROR "a lambda \(x -> …\) is not supported" */> e > 1)`,
	`select cast(x as numeric(10, /* ERROR "expected an integer type parameter" */ x))`,
	`select cast(x as string(10 /* ERROR "expected .\)., found .,." */ , 2))`,
	`select range<date /* ERROR "expected .>., found" */ '[2024-01-01, 2024-02-01)'`,
	`select cast('1' as date format 'yyyy' at /* ERROR "expected TIME" */ zone 'x')`,
	`select max(x having /* ERROR "expected MAX or MIN after HAVING" */ y) from t`,
	`select i from t group @{ /* ERROR "unsupported hint: bad" */ bad = 5 } by 1`,
	`select cast(x as array<int64 /* ERROR "expected .>., found .\)." */ ) from t`,
}

// Caller queries of sandboxed endpoints: one statement, a query.
var selectErrorCases = []string{
	`/* ERROR "only a SELECT query is allowed, found INSERT" */ insert into t values (1)`,
	`/* ERROR "only a SELECT query is allowed, found DELETE" */ delete from t where true`,
	`  /* ERROR "the query is empty" */ `,
	`select 1; /* ERROR "only one statement is allowed, found a second one starting with SELECT" */ select 2`,
	`select 1 /* ERROR "expected end of query" */ select 2`,
	`select /* ERROR "expected an expression" */ from t`,
}

var marker = regexp.MustCompile(`/\* ERROR "([^"]*)" \*/ ?`)

func TestErrors(t *testing.T) {
	for _, src := range errorCases {
		m := marker.FindStringSubmatchIndex(src)
		require.NotNil(t, m, src)
		want := src[m[2]:m[3]]
		clean := src[:m[0]] + src[m[1]:]
		line, col := Position(clean, m[0])
		_, err := Parse(clean)
		require.Error(t, err, clean)
		pe := err.(*Error)
		require.Regexp(t, want, pe.Msg, clean)
		require.Equal(t, [2]int{line, col}, [2]int{pe.Line, pe.Col}, "%s: %v", clean, err)
	}
}

func TestParseSelect(t *testing.T) {
	for _, src := range selectErrorCases {
		m := marker.FindStringSubmatchIndex(src)
		require.NotNil(t, m, src)
		want := src[m[2]:m[3]]
		clean := src[:m[0]] + src[m[1]:]
		line, col := Position(clean, m[0])
		_, err := ParseSelect(clean)
		require.Error(t, err, clean)
		pe := err.(*Error)
		require.Regexp(t, want, pe.Msg, clean)
		require.Equal(t, [2]int{line, col}, [2]int{pe.Line, pe.Col}, "%s: %v", clean, err)
	}
	for _, ok := range []string{"select 1;", "with a as (select 1 as x) select x from a", "(select 1) union all (select 2)"} {
		_, err := ParseSelect(ok)
		require.NoError(t, err, ok)
	}
}

// endpointQueries are the saved queries of the built-in endpoints.
func endpointQueries(t testing.TB) []string {
	var out []string
	_ = fs.WalkDir(os.DirFS("../fixtures/endpoints"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(filepath.Join("../fixtures/endpoints", p))
		require.NoError(t, err)
		_, q, _ := strings.Cut(string(b), "query: |\n")
		out = append(out, q)
		return nil
	})
	return out
}

func TestSavedQueriesReachFixedPoint(t *testing.T) {
	qs := endpointQueries(t)
	require.Len(t, qs, 3)
	for _, q := range qs {
		_, err := Parse(q)
		require.NoError(t, err)
		requireFixedPoint(t, q)
	}
}

// Every golden query of the executor that parses prints back to text
// that parses to the same tree.
func TestGoldenQueriesReachFixedPoint(t *testing.T) {
	cases, err := golden.All()
	require.NoError(t, err)
	parsed := 0
	for _, c := range cases {
		if _, err := Parse(c.Query); err != nil {
			continue // a case about a parse error
		}
		parsed++
		t.Run(c.Name, func(t *testing.T) { requireFixedPoint(t, c.Query) })
	}
	require.Greater(t, parsed, len(cases)/2)
}

// FuzzParse is seeded from the saved queries, every golden query of the
// executor and the dialect cases above.
func FuzzParse(f *testing.F) {
	for _, q := range endpointQueries(f) {
		f.Add(q)
	}
	cases, err := golden.All()
	require.NoError(f, err)
	for _, c := range cases {
		f.Add(c.Query)
	}
	for _, c := range dialect {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, src string) {
		requireFixedPoint(t, src) // and, implicitly, no panic
	})
}
