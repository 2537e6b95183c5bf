package api

import (
	"testing"

	"github.com/stretchr/testify/require"

	"logq/exec"
	"logq/planner"
	"logq/types"
)

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
