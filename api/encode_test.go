package api

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/exec"
	"logq/planner"
	"logq/types"
)

// Each kind of value is written as docs/http.md says; the expected JSON is
// written by hand.
func TestAppendValue(t *testing.T) {
	dec := func(typ types.Type, s string) types.Value {
		v, err := types.ParseDecimal(typ, s)
		require.NoError(t, err)
		return v
	}
	anon := types.StructOf(types.Field{Type: types.Int64}, types.Field{Name: "b", Type: types.String}, types.Field{Type: types.Bool})
	for _, c := range []struct {
		v    types.Value
		want string
	}{
		{types.IntValue(-7), `-7`},
		{types.FloatValue(2.5), `2.5`},
		{types.FloatValue(math.NaN()), `"NaN"`},
		{types.FloatValue(math.Inf(-1)), `"-Infinity"`},
		{types.BoolValue(true), `true`},
		{types.StringValue("a\"b"), `"a\"b"`},
		{types.NullOf(types.String), `null`},
		{types.Value{T: types.Datetime, I: 1714557600_000000}, `"2024-05-01T10:00:00"`},
		{types.DateValue(19844), `"2024-05-01"`},
		{types.Value{T: types.Time, I: 13*3600_000000 + 5*60_000000 + 9_000000}, `"13:05:09"`},
		{types.Value{T: types.Time, I: 500}, `"00:00:00.000500"`},
		{types.ArrayValue(types.Int64, []types.Value{types.IntValue(1), types.IntValue(2)}), `[1,2]`},
		{dec(types.Numeric, "-1.50"), `"-1.5"`},
		{dec(types.BigNumeric, "12345678901234567890.00000000000000000000000000000000000001"), `"12345678901234567890.00000000000000000000000000000000000001"`},
		{types.Value{T: types.JSON, S: `{"a":[1,null]}`}, `{"a":[1,null]}`}, // inline, not a string
		{types.Value{T: types.JSON, S: `null`}, `null`},
		{types.NullOf(types.JSON), `null`},
		{types.StringValue("\u2028\x01\b"), `"\u2028\u0001\b"`},
		{types.StructValue(anon, []types.Value{types.IntValue(1), types.StringValue("x"), types.BoolValue(false)}), `{"_field_1":1,"b":"x","_field_3":false}`},
	} {
		require.Equal(t, c.want, string(appendValue(nil, c.v)), c.v.String())
	}
}

// Rows whose records share a type, with names that need escaping and an
// anonymous field: each row written whole, the names as in the first; the
// expected body is written by hand.
func TestEncodeResultRecords(t *testing.T) {
	rec := types.StructOf(types.Field{Name: "a\"b", Type: types.Int64}, types.Field{Type: types.String})
	inner := types.StructOf(types.Field{Name: "x", Type: types.ArrayOf(rec)})
	row := func(n int64, s string) []types.Value {
		r := types.StructValue(rec, []types.Value{types.IntValue(n), types.StringValue(s)})
		return []types.Value{types.IntValue(n), types.StructValue(inner, []types.Value{types.ArrayValue(rec, []types.Value{r, r})})}
	}
	res := &exec.Result{
		Columns: []planner.Column{{Name: "n", T: types.Int64}, {Name: "m", T: inner}},
		Rows:    [][]types.Value{row(1, "p"), row(2, "q\n"), row(3, "")},
	}
	want := `{"result":[` +
		`{"n":1,"m":{"x":[{"a\"b":1,"_field_2":"p"},{"a\"b":1,"_field_2":"p"}]}},` +
		`{"n":2,"m":{"x":[{"a\"b":2,"_field_2":"q\n"},{"a\"b":2,"_field_2":"q\n"}]}},` +
		`{"n":3,"m":{"x":[{"a\"b":3,"_field_2":""},{"a\"b":3,"_field_2":""}]}}` + "]}\n"
	require.Equal(t, want, string(encodeResult(res, 0)))
	require.Equal(t, `{"result":[{"n":1,"m":{"x":[{"a\"b":1,"_field_2":"p"},{"a\"b":1,"_field_2":"p"}]}}]}`+"\n", string(encodeResult(res, 1)))
}
