package sqlfunc

import (
	"encoding/base32"
	"fmt"
	"math/bits"
	"strings"
	"unicode/utf8"

	"logq/expr"
	"logq/types"
)

// Character codes, bit counts, base32 and edit distance: ASCII, UNICODE,
// SAFE_CONVERT_BYTES_TO_STRING, TO_BASE32,
// FROM_BASE32, BIT_COUNT, EDIT_DISTANCE; OCTET_LENGTH and REGEXP_SUBSTR are
// BigQuery's other names for BYTE_LENGTH and REGEXP_EXTRACT.
func registerCodeFuncs() {
	expr.Register("ascii", def(1, 1, stringOrBytes(types.Int64), func(c *expr.Call, a []types.Value) (types.Value, error) {
		s := a[0].S
		if s == "" {
			return types.IntValue(0), nil
		}
		if s[0] >= 0x80 && a[0].T.Kind != types.KindBytes { // of BYTES: the first byte, whatever it is
			return types.Value{}, expr.EvalErr("ASCII: the first character of %q is not ASCII", s)
		}
		return types.IntValue(int64(s[0])), nil
	}, false))
	expr.Register("unicode", def(1, 1, sig(types.KindString, types.KindInt64), func(c *expr.Call, a []types.Value) (types.Value, error) {
		if a[0].S == "" {
			return types.IntValue(0), nil
		}
		r, _ := utf8.DecodeRuneInString(a[0].S)
		return types.IntValue(int64(r)), nil
	}, false))
	expr.Register("safe_convert_bytes_to_string", def(1, 1, sig(types.KindBytes, types.KindString), func(c *expr.Call, a []types.Value) (types.Value, error) {
		// each byte that does not start a valid UTF-8 sequence becomes U+FFFD
		s := a[0].S
		var b strings.Builder
		for len(s) > 0 {
			r, n := utf8.DecodeRuneInString(s)
			b.WriteRune(r) // RuneError (U+FFFD) for an invalid byte
			s = s[n:]
		}
		return types.StringValue(b.String()), nil
	}, false))
	expr.Register("to_base32", def(1, 1, sig(types.KindBytes, types.KindString), func(c *expr.Call, a []types.Value) (types.Value, error) {
		return types.StringValue(base32.StdEncoding.EncodeToString([]byte(a[0].S))), nil
	}, false))
	expr.Register("from_base32", def(1, 1, sig(types.KindString, types.KindBytes), func(c *expr.Call, a []types.Value) (types.Value, error) {
		b, err := base32.StdEncoding.DecodeString(a[0].S)
		if err != nil {
			return types.Value{}, expr.EvalErr("FROM_BASE32: %q is not base32", a[0].S)
		}
		return types.BytesValue(string(b)), nil
	}, false))
	expr.Register("bit_count", def(1, 1, func(c *expr.Call) (types.Type, error) {
		switch t := c.Args[0].Type(); t.Kind {
		case types.KindInt64, types.KindBytes:
		case types.KindNull:
			c.Args[0], _ = expr.CoerceTo(c.Args[0], types.Int64)
		default:
			return types.Int64, fmt.Errorf("BIT_COUNT needs INT64 or BYTES, not %s", t)
		}
		return types.Int64, nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		if a[0].T.Kind == types.KindInt64 {
			return types.IntValue(int64(bits.OnesCount64(uint64(a[0].I)))), nil // two's complement
		}
		n := 0
		for i := 0; i < len(a[0].S); i++ {
			n += bits.OnesCount8(a[0].S[i])
		}
		return types.IntValue(int64(n)), nil
	}, false))
	// EDIT_DISTANCE(a, b[, max_distance => n]): the Levenshtein distance in
	// characters (bytes for BYTES), at most n when n is given.
	expr.Register("edit_distance", def(2, 3, func(c *expr.Call) (types.Type, error) {
		if _, err := unifyText(c, c.Args[:2]); err != nil {
			return types.Int64, err
		}
		if len(c.Args) == 3 {
			m, err := expr.CoerceTo(c.Args[2], types.Int64)
			if err != nil {
				return types.Int64, fmt.Errorf("EDIT_DISTANCE's max_distance: %w", err)
			}
			c.Args[2] = m
		}
		return types.Int64, nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		limit := -1
		if len(a) == 3 {
			if a[2].I < 0 {
				return types.Value{}, expr.EvalErr("EDIT_DISTANCE: max_distance must not be negative, got %d", a[2].I)
			}
			limit = int(min(a[2].I, 1<<30))
		}
		var x, y []rune
		if a[0].T.Kind == types.KindBytes {
			x, y = byteRunes(a[0].S), byteRunes(a[1].S)
		} else {
			x, y = []rune(a[0].S), []rune(a[1].S)
		}
		d := levenshtein(x, y)
		if limit >= 0 && d > limit {
			d = limit
		}
		return types.IntValue(int64(d)), nil
	}, false)) // max_distance by name: namedParams
	expr.Alias("octet_length", "byte_length")
	expr.Alias("regexp_substr", "regexp_extract")
}

// unifyText makes two arguments both STRING or both BYTES.
func unifyText(c *expr.Call, args []expr.Expr) (types.Type, error) {
	t := types.String
	for _, e := range args {
		if e.Type().Kind == types.KindBytes {
			t = types.Bytes
		}
	}
	for i, e := range args {
		if k := e.Type().Kind; k != t.Kind && k != types.KindNull {
			return t, fmt.Errorf("%s needs two STRINGs or two BYTES, not %s and %s", strings.ToUpper(c.Fn), args[0].Type(), args[1].Type())
		}
		ce, err := expr.CoerceTo(e, t)
		if err != nil {
			return t, err
		}
		args[i] = ce
	}
	return t, nil
}

func byteRunes(s string) []rune {
	r := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		r[i] = rune(s[i])
	}
	return r
}

// levenshtein is the least number of single-element insertions, deletions
// and substitutions that turn x into y (two rows of the usual table).
func levenshtein(x, y []rune) int {
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			sub := prev[j-1]
			if x[i-1] != y[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(y)]
}
