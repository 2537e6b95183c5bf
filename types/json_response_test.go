package types

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// Each kind of value is written as docs/http.md says; the expected JSON is
// written by hand.
func TestResponseEncoder(t *testing.T) {
	dec := func(typ Type, s string) Value {
		v, err := ParseDecimal(typ, s)
		require.NoError(t, err)
		return v
	}
	anon := StructOf(Field{Type: Int64}, Field{Name: "b", Type: String}, Field{Type: Bool})
	for _, c := range []struct {
		v    Value
		want string
	}{
		{IntValue(-7), `-7`},
		{FloatValue(2.5), `2.5`},
		{FloatValue(math.NaN()), `"NaN"`},
		{FloatValue(math.Inf(-1)), `"-Infinity"`},
		{BoolValue(true), `true`},
		{StringValue("a\"b"), `"a\"b"`},
		{NullOf(String), `null`},
		{Value{T: Datetime, I: 1714557600_000000}, `"2024-05-01T10:00:00"`},
		{DateValue(19844), `"2024-05-01"`},
		{Value{T: Time, I: 13*3600_000000 + 5*60_000000 + 9_000000}, `"13:05:09"`},
		{Value{T: Time, I: 500}, `"00:00:00.000500"`},
		{ArrayValue(Int64, []Value{IntValue(1), IntValue(2)}), `[1,2]`},
		{dec(Numeric, "-1.50"), `"-1.5"`},
		{dec(BigNumeric, "12345678901234567890.00000000000000000000000000000000000001"), `"12345678901234567890.00000000000000000000000000000000000001"`},
		{Value{T: JSON, S: `{"a":[1,null]}`}, `{"a":[1,null]}`}, // inline, not a string
		{Value{T: JSON, S: `null`}, `null`},
		{NullOf(JSON), `null`},
		{StringValue("\u2028\x01\b"), `"\u2028\u0001\b"`},
		{StructValue(anon, []Value{IntValue(1), StringValue("x"), BoolValue(false)}), `{"_field_1":1,"b":"x","_field_3":false}`},
	} {
		require.Equal(t, c.want, string((&ResponseEncoder{}).Append(nil, &c.v)), c.v.String())
	}
}
