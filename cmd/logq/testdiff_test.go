package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/sqlparse"
)

func TestEqualNumber(t *testing.T) {
	for _, c := range []struct {
		a, b string
		eq   bool
	}{
		{"1", "1", true},
		{"-0", "0", true},
		{"1767265200000000", "1767265200000001", false}, // integers exactly
		{"9007199254740993", "9007199254740992", false}, // past float64's 2^53
		{"150", "150.0", true},
		{"132", "132.00000000001", true}, // 1e-13 relative
		{"132", "132.000001", false},     // 1e-8 relative
		{"1e-300", "1.0000000001e-300", true},
		{"0", "1e-300", false},
		{"0.1", "0.1", true},
		{"2.5", "-2.5", false},
	} {
		require.Equal(t, c.eq, equalNumber(json.Number(c.a), json.Number(c.b)), "%s vs %s", c.a, c.b)
		require.Equal(t, c.eq, equalNumber(json.Number(c.b), json.Number(c.a)), "%s vs %s", c.b, c.a)
	}
}

func TestEqualRow(t *testing.T) {
	row := func(s string) jsonRow {
		r, err := decodeRow([]byte(s))
		require.NoError(t, err)
		return r
	}
	for _, c := range []struct {
		a, b string
		eq   bool
	}{
		{`{"a":1,"b":"x"}`, `{"b":"x","a":1}`, true}, // keys in any order
		{`{"a":1}`, `{"a":1,"b":null}`, false},       // a column more, even null
		{`{"a":null}`, `{"a":0}`, false},
		{`{"a":"1"}`, `{"a":1}`, false},
		{`{"m":[{"r":[{"u":"x","p":1.5}]}]}`, `{"m":[{"r":[{"p":1.5000000000001,"u":"x"}]}]}`, true},
		{`{"m":[1,2]}`, `{"m":[2,1]}`, false},
		{`{"m":{"a":1}}`, `{"m":{"a":1,"b":2}}`, false},
		{`{"t":true}`, `{"t":1}`, false},
	} {
		require.Equal(t, c.eq, equalRow(row(c.a), row(c.b)), "%s vs %s", c.a, c.b)
	}
}

func TestOrderOf(t *testing.T) {
	for _, c := range []struct {
		sql     string
		ordered bool
		by      string
		ties    []string // over the output columns a, b, ts
	}{
		{"select a from t", false, "", nil},
		{"select a, b from t order by a", true, "ORDER BY a", []string{"a"}},
		{"select a, b from t order by b desc, 1", true, "ORDER BY b DESC, 1", []string{"b", "a"}},
		{"with x as (select a from t order by a) select a from x", false, "", nil},
		{"select a from (select a from t order by a)", false, "", nil},
		{"select a from t union all select a from u order by a", true, "ORDER BY a", []string{"a"}},
		{"select a, ts from t order by timestamp_trunc(ts, hour)", true, "", nil},
		{"select a, ts from t as x order by x.ts", true, "", nil}, // a qualified name is an input column
		{"select a from t order by c", true, "ORDER BY c", nil},   // not an output column
		{"select a from t order by 9", true, "ORDER BY 9", nil},
		{"(select a from t order by a)", true, "ORDER BY a", []string{"a"}},
	} {
		q, err := sqlparse.ParseSelect(c.sql)
		require.NoError(t, err, c.sql)
		o := orderOf(q)
		require.Equal(t, c.ordered, o.ordered, c.sql)
		if c.by != "" {
			require.Equal(t, c.by, o.by, c.sql)
		}
		require.Equal(t, c.ties, o.tieColumns([]string{"a", "b", "ts"}), c.sql)
	}
}

// Rows tied on every ORDER BY key may come in any order; rows that are
// not tied may not.
func TestCompareRowsTies(t *testing.T) {
	rows := func(ss ...string) []jsonRow {
		var out []jsonRow
		for _, s := range ss {
			r, err := decodeRow([]byte(s))
			require.NoError(t, err)
			out = append(out, r)
		}
		return out
	}
	ord := rowOrder{ordered: true, by: "ORDER BY ts DESC", keys: []orderKey{{name: "ts"}}}
	want := rows(`{"id":"a","ts":3}`, `{"id":"b","ts":2}`, `{"id":"c","ts":2}`, `{"id":"d","ts":1}`)
	require.Nil(t, compareRows(want, rows(`{"id":"a","ts":3}`, `{"id":"c","ts":2}`, `{"id":"b","ts":2}`, `{"id":"d","ts":1}`), ord))
	diff := compareRows(want, rows(`{"id":"a","ts":3}`, `{"id":"b","ts":2}`, `{"id":"d","ts":1}`, `{"id":"c","ts":2}`), ord)
	require.Equal(t, []string{
		"every wanted row is there, in another order:",
		`~ want row 3 is got row 4: {"id":"c","ts":2}`,
		`~ want row 4 is got row 3: {"id":"d","ts":1}`,
	}, diff)
	// Without keys that name output columns, the order is strict.
	strict := rowOrder{ordered: true, by: "ORDER BY f(ts)"}
	require.NotNil(t, compareRows(want, rows(`{"id":"a","ts":3}`, `{"id":"c","ts":2}`, `{"id":"b","ts":2}`, `{"id":"d","ts":1}`), strict))
	// A multiset does not care.
	require.Nil(t, compareRows(want, rows(`{"id":"d","ts":1}`, `{"id":"c","ts":2}`, `{"id":"a","ts":3}`, `{"id":"b","ts":2}`), rowOrder{}))
}

// The ordered diff matches equal rows as diff matches lines, so one row
// missing in the middle does not show every later row as changed.
func TestOrderedDiffAligns(t *testing.T) {
	var want, got []jsonRow
	for i := 1; i <= 5; i++ {
		r, err := decodeRow([]byte(`{"n":` + strings.Repeat("1", i) + `}`))
		require.NoError(t, err)
		want = append(want, r)
		if i != 2 {
			got = append(got, r)
		}
	}
	require.Equal(t, []string{`- want row 2, missing: {"n":11}`}, compareRows(want, got, rowOrder{ordered: true}))
	require.Equal(t, []string{`+ got row 2, unexpected: {"n":11}`}, compareRows(got, want, rowOrder{ordered: true}))
}
