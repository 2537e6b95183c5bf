package exec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/expr"
	"logq/planner"
	"logq/sqlparse"
	"logq/types"
)

// Every vectorised kernel computes what its function's one definition
// (expr.Func.Eval, through expr.Eval) computes row by row: both
// run on the same random batches, NULLs, empty strings and extremes
// included, and must agree on every value, and on failing or not.

// kernelFields are the columns the expressions below read, by name.
var kernelFields = []struct {
	name string
	t    types.Type
}{
	{"a", types.Int64}, {"b", types.Int64}, {"x", types.Float64}, {"y", types.Float64},
	{"s", types.String}, {"t", types.String}, {"ts", types.Timestamp}, {"u", types.Timestamp},
	{"p", types.Bool}, {"q", types.Bool}, {"d", types.Date}, {"e", types.Datetime},
}

type kernelCatalog struct{}

func (kernelCatalog) Table(string) planner.TableSchema { return kernelSchema{} }

type kernelSchema struct{}

func (kernelSchema) Field(path string) (types.Type, bool, bool) {
	for _, f := range kernelFields {
		if f.name == path {
			return f.t, false, true
		}
	}
	return planner.EmptyCatalog{}.Table("").Field(path)
}

func (kernelSchema) Children(string) []string {
	var out []string
	for _, f := range kernelFields {
		out = append(out, f.name)
	}
	return out
}

// kernelCases call every function that has a kernel, in the shapes its
// kernel handles (constant patterns, units, zones) and some it leaves to
// the row path.
var kernelCases = map[string][]string{
	"=":               {"a = b", "x = y", "s = t", "ts = u", "a = x", "p = q", "d = d"},
	"!=":              {"a != b", "x != y", "s != t", "a <> 3"},
	"<":               {"a < b", "x < y", "s < t", "ts < u", "a < x"},
	"<=":              {"a <= b", "x <= y", "s <= t", "e <= e"},
	">":               {"a > b", "x > y", "s > t", "ts > u"},
	">=":              {"a >= b", "x >= y", "s >= t", "x >= 0.5"},
	"and":             {"p and q", "p and a > b"},
	"or":              {"p or q", "p or s = t"},
	"not":             {"not p", "not (a < b)"},
	"is_null":         {"a is null", "s is null", "x is not null"},
	"timestamp_trunc": {"timestamp_trunc(ts, second)", "timestamp_trunc(ts, minute)", "timestamp_trunc(ts, hour)", "timestamp_trunc(ts, day)", "timestamp_trunc(ts, week)", "timestamp_trunc(ts, month)", "timestamp_trunc(ts, year)", "timestamp_trunc(ts, day, 'Asia/Kolkata')", "timestamp_trunc(ts, hour, s)"},
	"regexp_contains": {"regexp_contains(s, 'a')", "regexp_contains(s, '^a.c$')", "regexp_contains(s, '(?i)É')", "regexp_contains(s, t)"},
	"like":            {"s like '%a%'", "s like 'a%'", "s like '%c'", "s like 'a_c'", "s like ''", "s like '%'", "s like t", "s like '\\\\%%'"},
	"cast":            {"cast(a as float64)", "cast(s as int64)", "cast(a as string)", "cast(null as int64)", "safe_cast(s as float64)"},
	"datetime":        {"datetime(ts, 'UTC')", "datetime(ts, 'Europe/Paris')"},
	"coalesce":        {"coalesce(a, b)", "coalesce(s, t, 'z')", "coalesce(x, y, 1.5)"},
}

func TestEveryKernelAgreesWithItsEval(t *testing.T) {
	var names []string
	for name := range kernels {
		names = append(names, name)
	}
	sort.Strings(names)
	r := rand.New(rand.NewPCG(7, 11))
	for _, name := range names {
		exprs := kernelCases[name]
		require.NotEmpty(t, exprs, "kernel %s has no case here", name)
		for _, sql := range exprs {
			call, paths := kernelCall(t, sql)
			for round := 0; round < 20; round++ {
				b := randomBatch(r, 64, paths)
				compareKernel(t, name, sql, call, b, false)
				if c, ok := call.(*expr.Call); ok && c.Fn == name {
					safe := *c
					safe.Safe = true
					compareKernel(t, name, "SAFE."+sql, &safe, b, true)
				}
			}
		}
	}
	for name := range kernelCases {
		require.NotNil(t, kernels[name], "case for %s, which has no kernel", name)
	}
}

// kernelCall binds `select <sql> from src` over kernelFields and returns the
// expression of its first column, and the fields of the scan under it (the
// columns the expression reads, in order).
func kernelCall(t *testing.T, sql string) (expr.Expr, []string) {
	t.Helper()
	var cols []string
	for _, f := range kernelFields {
		cols = append(cols, f.name)
	}
	// Every field is selected, so that the scan reads them in this order.
	text := "select " + sql + " as v, " + strings.Join(cols, ", ") + " from src"
	ast, err := sqlparse.Parse(text)
	require.NoError(t, err, text)
	plan, err := planner.Plan(ast, text, planner.Options{Catalog: kernelCatalog{}, Now: 1_700_000_000_000_000})
	require.NoError(t, err, text)
	p, ok := plan.(*planner.Project)
	require.True(t, ok, "%s: %s", sql, planner.Explain(plan))
	scan, ok := p.In.(*planner.Scan)
	require.True(t, ok, "%s: %s", sql, planner.Explain(plan))
	require.Nil(t, scan.Filter)
	var paths []string
	for _, f := range scan.Fields {
		paths = append(paths, f.Path)
	}
	return p.Exprs[0], paths
}

// randomBatch makes n rows of the fields paths (of kernelFields): about a
// fifth NULL, and extremes, empty strings and near misses well represented.
func randomBatch(r *rand.Rand, n int, paths []string) *Batch {
	ints := []int64{0, 1, -1, 2, 3, 7, math.MaxInt64, math.MinInt64, 1 << 40}
	floats := []float64{0, math.Copysign(0, -1), 0.5, -1.5, 3, math.NaN(), math.Inf(1), math.Inf(-1), 1e308, 5e-324}
	strs := []string{"", "a", "abc", "aXc", "A", "É", "é", "%", "_", "a%c", "ab", "ba", "123", "-4", "1.5", "true", "x\ny", "ac"}
	times := []int64{0, -1, 1_700_000_000_123_456, 1_700_000_000_000_000, -86_400_000_001, 253_402_300_799_999_999, -62_135_596_800_000_000, 1_699_999_999_999_999}
	b := &Batch{N: n}
	for _, path := range paths {
		t, _, _ := kernelSchema{}.Field(path)
		f := struct{ t types.Type }{t}
		v := newVector(f.t, n)
		null := make([]bool, n)
		for i := 0; i < n; i++ {
			null[i] = r.IntN(5) == 0
			switch f.t.Kind {
			case types.KindInt64:
				v.I[i] = ints[r.IntN(len(ints))]
			case types.KindFloat64:
				v.F[i] = floats[r.IntN(len(floats))]
			case types.KindString:
				v.S[i] = strs[r.IntN(len(strs))]
			case types.KindTimestamp, types.KindDatetime:
				v.I[i] = times[r.IntN(len(times))]
			case types.KindDate:
				v.I[i] = int64(r.IntN(40000) - 20000)
			case types.KindBool:
				v.I[i] = int64(r.IntN(2))
			}
		}
		v.Null = null
		b.Cols = append(b.Cols, v)
	}
	return b
}

// compareKernel evaluates e over b through the evaluator (kernels) and row
// by row through expr.EvalCall, and requires the same values.
func compareKernel(t *testing.T, name, sql string, e expr.Expr, b *Batch, safe bool) {
	t.Helper()
	got, kerr := newEvaluator().eval(e, b)
	want := make([]types.Value, b.N)
	var rerr error
	for row := 0; row < b.N && rerr == nil; row++ {
		want[row], rerr = evalRow(e, b, row)
	}
	if rerr != nil || kerr != nil {
		require.Equal(t, rerr != nil, kerr != nil, "%s (%s): row path error %v, kernel error %v", sql, name, rerr, kerr)
		return
	}
	for row := 0; row < b.N; row++ {
		g := got.Value(row)
		require.True(t, sameValue(want[row], g), "%s (%s) row %d: row path %v, kernel %v (args %s)", sql, name, row, want[row], g, rowArgs(b, row))
	}
}

// evalRow is the row path: each call evaluated by its Func on boxed values.
func evalRow(e expr.Expr, b *Batch, row int) (types.Value, error) {
	switch x := e.(type) {
	case *expr.ColRef:
		return b.Cols[x.Idx].Value(row), nil
	case *expr.Const:
		return x.V, nil
	case *expr.Call:
		args := make([]types.Value, len(x.Args))
		for i, a := range x.Args {
			v, err := evalRow(a, b, row)
			if err != nil {
				return types.Value{}, err
			}
			args[i] = v
		}
		return expr.EvalCall(x, args)
	}
	return types.Value{}, fmt.Errorf("no row path for %T", e)
}

func sameValue(a, b types.Value) bool {
	if a.Null || b.Null {
		return a.Null == b.Null
	}
	if a.T.Kind == types.KindFloat64 && b.T.Kind == types.KindFloat64 {
		return a.F == b.F && math.Signbit(a.F) == math.Signbit(b.F) || math.IsNaN(a.F) && math.IsNaN(b.F)
	}
	c, ok := types.Compare(a, b)
	return ok && c == 0 && a.T.Kind == b.T.Kind
}

func rowArgs(b *Batch, row int) string {
	var parts []string
	for i := range b.Cols {
		parts = append(parts, fmt.Sprintf("#%d=%s", i, b.Cols[i].Value(row)))
	}
	return strings.Join(parts, " ")
}
