package types

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// Canonical JSON text, written by hand from the rules in json.go (ZetaSQL's
// JSON library: nlohmann's number printing, keys sorted, first duplicate).
func TestParseJSONCanonical(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"b":1,"a":2,"b":3}`, `{"a":2,"b":1}`},
		{` [ 1 , "x" , null , true ] `, `[1,"x",null,true]`},
		{`1.0`, `1.0`},
		{`-0`, `0`},
		{`-0.0`, `-0.0`},
		{`1e2`, `100.0`},
		{`123456789012345.0`, `123456789012345.0`},
		{`1e15`, `1e+15`},
		{`0.0001`, `0.0001`},
		{`0.00001`, `1e-05`},
		{`1.5e300`, `1.5e+300`},
		{`18446744073709551615`, `18446744073709551615`},
		{`-9223372036854775809`, `-9.223372036854776e+18`},
		{`"a\u0001\u2028/"`, `"a\u0001\u2028/"`},
		{`{"":{}}`, `{"":{}}`},
		{`"\ud83d\ude00 \\ud83d"`, `"😀 \\ud83d"`},
	} {
		v, err := ParseJSON(c.in, true)
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, v.S, c.in)
	}
}

// 'exact' refuses a number a double cannot hold as written; 'round' takes it.
func TestParseJSONExact(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{`0.1`, true}, {`2.5`, true}, {`1e400`, false}, {`2.2412421353246235436`, false},
		{`18446744073709551616`, false}, {`9007199254740993.0`, false}, {`0.10000000000000000555`, false},
	} {
		_, err := ParseJSON(c.in, false)
		require.Equal(t, c.ok, err == nil, "%s: %v", c.in, err)
	}
	_, err := ParseJSON(`1e400`, true)
	require.Error(t, err, "out of a double's range even when rounding")
	for _, bad := range []string{``, `{`, `[1,]`, `{"a"}`, `1 2`, `nul`, `'a'`, `"\ud83d"`, `"\ude00x"`, `"\ud83d\u0041"`} {
		_, err := ParseJSON(bad, true)
		require.ErrorIs(t, err, ErrJSON, bad)
	}
}

func TestFormatFloat(t *testing.T) {
	tenth, fifth := 0.1, 0.2 // variables: constant arithmetic would be exact
	for _, c := range []struct {
		f    float64
		want string
	}{
		{123456789, "123456789"}, {1e20, "1e+20"}, {tenth + fifth, "0.30000000000000004"},
		{1.0 / 3, "0.33333333333333331"}, {1e15, "1e+15"}, {1e-5, "1e-05"}, {-2.5, "-2.5"},
		{math.Inf(-1), "-inf"}, {math.NaN(), "nan"}, {math.MaxFloat64, "1.7976931348623157e+308"},
	} {
		require.Equal(t, c.want, FormatFloat(c.f), c.f)
	}
}

// Whatever text parses, its canonical form is valid JSON and canonical.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1.0,null]}`, `1e2`, `"\u00e9"`, `[[[]]]`, `-0.0`, `18446744073709551615`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseJSON(s, true)
		if err != nil {
			return
		}
		require.True(t, json.Valid([]byte(v.S)), "%q → %q", s, v.S)
		again, err := ParseJSON(v.S, false)
		require.NoError(t, err, "%q → %q", s, v.S)
		require.Equal(t, v.S, again.S, s)
	})
}
