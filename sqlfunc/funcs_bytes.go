package sqlfunc

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"unicode/utf8"

	farm "github.com/dgryski/go-farm"

	"logq/expr"
	"logq/types"
)

// Characters, code points, bytes and their encodings, hashes, and small
// array builders. STRING arguments count characters, BYTES ones bytes.
func registerBytesFuncs() {
	expr.Register("chr", def(1, 1, sig(types.KindInt64, types.KindString), evalChr, false))
	expr.Register("reverse", def(1, 1, textSig(), evalReverse, false))
	expr.Register("left", side(true))
	expr.Register("right", side(false))
	expr.Register("to_code_points", def(1, 1, stringOrBytes(types.ArrayOf(types.Int64)), evalToCodePoints, false))
	expr.Register("code_points_to_string", def(1, 1, codePoints(types.String), evalCodePointsToString, false))
	expr.Register("code_points_to_bytes", def(1, 1, codePoints(types.Bytes), evalCodePointsToBytes, false))
	expr.Register("to_hex", def(1, 1, sig(types.KindBytes, types.KindString), evalToHex, false))
	expr.Register("from_hex", def(1, 1, sig(types.KindString, types.KindBytes), evalFromHex, false))
	expr.Register("to_base64", def(1, 1, sig(types.KindBytes, types.KindString), evalToBase64, false))
	expr.Register("from_base64", def(1, 1, sig(types.KindString, types.KindBytes), evalFromBase64, false))
	for name, h := range map[string]func([]byte) []byte{
		"md5":    func(b []byte) []byte { s := md5.Sum(b); return s[:] },
		"sha1":   func(b []byte) []byte { s := sha1.Sum(b); return s[:] },
		"sha256": func(b []byte) []byte { s := sha256.Sum256(b); return s[:] },
		"sha512": func(b []byte) []byte { s := sha512.Sum512(b); return s[:] },
	} {
		h := h
		expr.Register(name, def(1, 1, stringOrBytes(types.Bytes), func(c *expr.Call, a []types.Value) (types.Value, error) {
			return types.BytesValue(string(h([]byte(a[0].S)))), nil
		}, false))
	}
	// FARM_FINGERPRINT: FarmHash's Fingerprint64 of the bytes, as an INT64.
	expr.Register("farm_fingerprint", def(1, 1, stringOrBytes(types.Int64), evalFarmFingerprint, false))
	// TRANSLATE(x, from, to): each character (byte of a BYTES) of x found in
	// from becomes the one at its position in to, or is dropped past to's
	// end; a character repeated in from is an error.
	expr.Register("translate", def(3, 3, textSig(types.KindString), evalTranslate, false))
	// ARRAY_FIRST_N(a, n), ARRAY_LAST_N, ARRAY_REMOVE_FIRST_N and
	// ARRAY_REMOVE_LAST_N (ZetaSQL's): the first (last) n elements, or all
	// but them; n past the length takes (removes) them all, a negative n is
	// an error, a NULL array or n gives NULL.
	for name, first := range map[string]bool{"array_first_n": true, "array_last_n": false, "array_remove_first_n": false, "array_remove_last_n": true} {
		remove := strings.HasPrefix(name, "array_remove")
		expr.Register(name, def(2, 2, arrayArg, func(c *expr.Call, a []types.Value) (types.Value, error) {
			l, n := a[0].L, a[1].I
			if n < 0 {
				return types.Value{}, expr.EvalErr("the n argument to %s must not be negative", strings.ToUpper(c.Fn))
			}
			k := int(min(n, int64(len(l))))
			if remove {
				k = len(l) - k // what is kept
			}
			out := l[len(l)-k:]
			if first {
				out = l[:k]
			}
			return types.ArrayValue(*c.T.Elem, append([]types.Value{}, out...)), nil
		}, false))
	}
	// ARRAY_FIRST and ARRAY_LAST: the end element; an empty array is an error.
	for name, last := range map[string]bool{"array_first": false, "array_last": true} {
		expr.Register(name, def(1, 1, arrayArg, func(c *expr.Call, a []types.Value) (types.Value, error) {
			l := a[0].L
			if len(l) == 0 {
				return types.Value{}, expr.EvalErr("%s of an empty array", strings.ToUpper(c.Fn))
			}
			if last {
				return l[len(l)-1], nil
			}
			return l[0], nil
		}, false))
	}
	// ARRAY_SLICE(a, start, end): the elements from offset start to end,
	// both included, that the array has; a negative offset counts from the
	// end (-1 the last). (ZetaSQL's tests: [1,2,3] from 3 to 4 is [], from
	// -5 to 5 all of it.)
	expr.Register("array_slice", def(3, 3, arrayArg, evalArraySlice, false))
	// ARRAY_IS_DISTINCT(a): whether no two elements are equal as SELECT
	// DISTINCT compares them (NULLs equal each other, NaNs too, 0 and -0
	// are one); NULL for a NULL array. The elements are sorted, so that
	// equal ones meet.
	expr.Register("array_is_distinct", def(1, 1, checkArrayIsDistinct, evalArrayIsDistinct, false))
	expr.Register("array_reverse", def(1, 1, checkArrayReverse, evalArrayReverse, false))
}

// LEFT and RIGHT keep the first or last n characters (bytes of a BYTES).
func side(left bool) *expr.Func {
	return def(2, 2, textSig(types.KindInt64), func(c *expr.Call, a []types.Value) (types.Value, error) {
		n := a[1].I
		if n < 0 {
			return types.Value{}, expr.EvalErr("%s: the length must not be negative, got %d", strings.ToUpper(c.Fn), n)
		}
		if a[0].T.Kind == types.KindBytes {
			s := a[0].S
			k := int(min(n, int64(len(s))))
			if left {
				return types.BytesValue(s[:k]), nil
			}
			return types.BytesValue(s[len(s)-k:]), nil
		}
		r := []rune(a[0].S)
		k := int(min(n, int64(len(r))))
		if left {
			return types.StringValue(string(r[:k])), nil
		}
		return types.StringValue(string(r[len(r)-k:])), nil
	}, false)
}

// CODE_POINTS_TO_STRING and CODE_POINTS_TO_BYTES take an ARRAY<INT64>.
func codePoints(result types.Type) func(c *expr.Call) (types.Type, error) {
	return func(c *expr.Call) (types.Type, error) {
		a, err := expr.CoerceTo(c.Args[0], types.ArrayOf(types.Int64))
		if err != nil {
			return result, fmt.Errorf("%s needs an ARRAY<INT64>: %w", strings.ToUpper(c.Fn), err)
		}
		c.Args[0] = a
		return result, nil
	}
}

func arrayArg(c *expr.Call) (types.Type, error) {
	t := c.Args[0].Type()
	if t.Kind == types.KindNull && arrayOut[c.Fn] {
		t = types.ArrayOf(types.Int64) // ARRAY_FIRST_N(NULL, 2): an untyped NULL array
		c.Args[0] = &expr.Const{V: types.NullOf(t)}
	}
	if t.Kind != types.KindArray {
		return t, fmt.Errorf("%s needs an ARRAY, not %s", strings.ToUpper(c.Fn), t)
	}
	for i := 1; i < len(c.Args); i++ {
		a, err := expr.CoerceTo(c.Args[i], types.Int64)
		if err != nil {
			return t, fmt.Errorf("argument %d of %s: %w", i+1, strings.ToUpper(c.Fn), err)
		}
		c.Args[i] = a
	}
	if arrayOut[c.Fn] {
		return t, nil
	}
	return *t.Elem, nil
}

func evalChr(c *expr.Call, a []types.Value) (types.Value, error) {
	r := a[0].I
	if r == 0 {
		return types.StringValue(""), nil
	}
	if r < 0 || r > utf8.MaxRune || !utf8.ValidRune(rune(r)) {
		return types.Value{}, expr.EvalErr("CHR: %d is not a Unicode code point", r)
	}
	return types.StringValue(string(rune(r))), nil
}

func evalReverse(c *expr.Call, a []types.Value) (types.Value, error) {
	if a[0].T.Kind == types.KindBytes {
		b := []byte(a[0].S)
		for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
		return types.BytesValue(string(b)), nil
	}
	r := []rune(a[0].S)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return types.StringValue(string(r)), nil
}

func evalToCodePoints(c *expr.Call, a []types.Value) (types.Value, error) {
	var out []types.Value
	if a[0].T.Kind == types.KindBytes {
		for i := 0; i < len(a[0].S); i++ {
			out = append(out, types.IntValue(int64(a[0].S[i])))
		}
	} else {
		for _, r := range a[0].S {
			out = append(out, types.IntValue(int64(r)))
		}
	}
	return types.ArrayValue(types.Int64, append([]types.Value{}, out...)), nil
}

func evalCodePointsToString(c *expr.Call, a []types.Value) (types.Value, error) {
	var b strings.Builder
	for _, e := range a[0].L {
		if e.Null {
			return types.NullOf(types.String), nil
		}
		if e.I < 0 || e.I > utf8.MaxRune || !utf8.ValidRune(rune(e.I)) {
			return types.Value{}, expr.EvalErr("CODE_POINTS_TO_STRING: %d is not a Unicode code point", e.I)
		}
		b.WriteRune(rune(e.I))
	}
	return types.StringValue(b.String()), nil
}

func evalCodePointsToBytes(c *expr.Call, a []types.Value) (types.Value, error) {
	out := make([]byte, 0, len(a[0].L))
	for _, e := range a[0].L {
		if e.Null {
			return types.NullOf(types.Bytes), nil
		}
		if e.I < 0 || e.I > 255 {
			return types.Value{}, expr.EvalErr("CODE_POINTS_TO_BYTES: %d is not a byte (0 to 255)", e.I)
		}
		out = append(out, byte(e.I))
	}
	return types.BytesValue(string(out)), nil
}

func evalToHex(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.StringValue(hex.EncodeToString([]byte(a[0].S))), nil
}

func evalFromHex(c *expr.Call, a []types.Value) (types.Value, error) {
	s := a[0].S
	if len(s)%2 == 1 {
		s = "0" + s // an odd count of digits reads with a leading 0
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return types.Value{}, expr.EvalErr("FROM_HEX: %q is not hexadecimal", a[0].S)
	}
	return types.BytesValue(string(b)), nil
}

func evalToBase64(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.StringValue(base64.StdEncoding.EncodeToString([]byte(a[0].S))), nil
}

func evalFromBase64(c *expr.Call, a []types.Value) (types.Value, error) {
	b, err := base64.StdEncoding.DecodeString(a[0].S)
	if err != nil {
		return types.Value{}, expr.EvalErr("FROM_BASE64: %q is not base64", a[0].S)
	}
	return types.BytesValue(string(b)), nil
}

func evalFarmFingerprint(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.IntValue(int64(farm.Fingerprint64([]byte(a[0].S)))), nil
}

func evalTranslate(c *expr.Call, a []types.Value) (types.Value, error) {
	from, to := units(a[1]), units(a[2])
	m := make(map[rune]int, len(from))
	for i, r := range from {
		if _, dup := m[r]; dup {
			return types.Value{}, expr.EvalErr("TRANSLATE: %q appears twice in the characters to replace", string(r))
		}
		m[r] = i
	}
	var out []rune
	for _, r := range units(a[0]) {
		i, ok := m[r]
		switch {
		case !ok:
			out = append(out, r)
		case i < len(to):
			out = append(out, to[i])
		}
	}
	v := fromUnits(a[0], out)
	if len(v.S) > maxStringResult {
		return types.Value{}, expr.EvalErr("TRANSLATE: the result would be longer than %d bytes", maxStringResult)
	}
	return v, nil
}

func evalArraySlice(c *expr.Call, a []types.Value) (types.Value, error) {
	l := a[0].L
	n := int64(len(l))
	at := func(off int64) int64 {
		if off < 0 {
			off += n
		}
		return off
	}
	lo, hi := max(at(a[1].I), 0), min(at(a[2].I), n-1)
	if lo > hi {
		return types.ArrayValue(*c.T.Elem, nil), nil
	}
	return types.ArrayValue(*c.T.Elem, append([]types.Value{}, l[lo:hi+1]...)), nil
}

func checkArrayIsDistinct(c *expr.Call) (types.Type, error) {
	t := c.Args[0].Type()
	switch {
	case t.Kind == types.KindNull:
		return types.Bool, nil
	case t.Kind != types.KindArray:
		return types.Bool, fmt.Errorf("ARRAY_IS_DISTINCT needs an ARRAY, not %s", t)
	case t.Has(types.KindJSON):
		return types.Bool, fmt.Errorf("ARRAY_IS_DISTINCT cannot compare the elements of %s: JSON is not groupable", t)
	case t.Elem.Kind == types.KindString && t.Elem.Collation() != "":
		return types.Bool, fmt.Errorf("ARRAY_IS_DISTINCT of collated strings is not supported")
	}
	return types.Bool, nil
}

func evalArrayIsDistinct(c *expr.Call, a []types.Value) (types.Value, error) {
	l := slices.Clone(a[0].L)
	slices.SortFunc(l, func(x, y types.Value) int {
		switch {
		case x.Null && y.Null:
			return 0
		case x.Null:
			return -1
		case y.Null:
			return 1
		}
		n, _ := types.Compare(x, y)
		return n
	})
	for i := 1; i < len(l); i++ {
		if types.Equal(l[i-1], l[i]) {
			return types.BoolValue(false), nil
		}
	}
	return types.BoolValue(true), nil
}

func checkArrayReverse(c *expr.Call) (types.Type, error) {
	t := c.Args[0].Type()
	if t.Kind != types.KindArray && t.Kind != types.KindNull {
		return t, fmt.Errorf("ARRAY_REVERSE needs an ARRAY, not %s", t)
	}
	return t, nil
}

func evalArrayReverse(c *expr.Call, a []types.Value) (types.Value, error) {
	n := len(a[0].L)
	out := make([]types.Value, n)
	for i, e := range a[0].L {
		out[n-1-i] = e
	}
	return types.ArrayValue(*c.T.Elem, out), nil
}

// maxGeneratedElements bounds GENERATE_ARRAY's result.
const maxGeneratedElements = 1 << 20

func registerGenerateFuncs() {
	// GENERATE_ARRAY(start, end[, step]): start, start+step, start+2·step, …
	// while not past end (inclusive), in the arguments' common type (INT64,
	// NUMERIC, BIGNUMERIC or FLOAT64). A zero, infinite or NaN step is an
	// error, and so is a result past 2^20 elements.
	expr.Register("generate_array", def(2, 3, func(c *expr.Call) (types.Type, error) {
		for _, a := range c.Args {
			switch k := a.Type().Kind; k {
			case types.KindInt64, types.KindFloat64, types.KindNumeric, types.KindBigNumeric, types.KindNull:
			default:
				return types.Type{}, fmt.Errorf("GENERATE_ARRAY needs INT64, NUMERIC, BIGNUMERIC or FLOAT64 arguments, not %s", a.Type())
			}
		}
		if err := expr.Unify(c, c.Args); err != nil { // a FLOAT64 literal beside a NUMERIC is one
			return types.Type{}, err
		}
		t := c.Args[0].Type()
		if t.Kind == types.KindNull {
			t = types.Int64
		}
		return types.ArrayOf(t), nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		elem := *c.T.Elem
		var out []types.Value
		if elem.IsDecimal() {
			return generateDecimalArray(elem, a)
		}
		if elem.Kind == types.KindInt64 {
			start, end, step := a[0].I, a[1].I, int64(1)
			if len(a) == 3 {
				step = a[2].I
			}
			if step == 0 {
				return types.Value{}, expr.EvalErr("GENERATE_ARRAY: the step must not be 0")
			}
			for v := start; (step > 0 && v <= end) || (step < 0 && v >= end); {
				if len(out) == maxGeneratedElements {
					return types.Value{}, expr.EvalErr("GENERATE_ARRAY: more than %d elements", maxGeneratedElements)
				}
				out = append(out, types.IntValue(v))
				next := v + step
				if (step > 0) != (next > v) { // past INT64: nothing further fits
					break
				}
				v = next
			}
			return types.ArrayValue(elem, append([]types.Value{}, out...)), nil
		}
		start, end, step := a[0].Float(), a[1].Float(), 1.0
		if len(a) == 3 {
			step = a[2].Float()
		}
		if step == 0 || math.IsNaN(step) {
			return types.Value{}, expr.EvalErr("GENERATE_ARRAY: the step must not be 0 or NaN")
		}
		switch { // ZetaSQL's generate_array.h refuses these too
		case math.IsInf(step, 0):
			return types.Value{}, expr.EvalErr("GENERATE_ARRAY: the step must not be +/-inf")
		case math.IsNaN(start) || math.IsNaN(end):
			return types.Value{}, expr.EvalErr("GENERATE_ARRAY: the start and end must not be NaN")
		case start == end: // [inf] for GENERATE_ARRAY(inf, inf, 1), which no step leaves
			return types.ArrayValue(elem, []types.Value{types.FloatValue(start)}), nil
		}
		// The i-th element is start + i*step, as ZetaSQL computes it: a sum
		// carried from one to the next drifts (GENERATE_ARRAY(0, 5.6, 0.7)
		// would stop at 4.9, its eighth step landing past 5.6).
		for i := 0; ; i++ {
			v := start + float64(i)*step
			if !((step > 0 && v <= end) || (step < 0 && v >= end)) {
				break
			}
			if len(out) == maxGeneratedElements {
				return types.Value{}, expr.EvalErr("GENERATE_ARRAY: more than %d elements", maxGeneratedElements)
			}
			out = append(out, types.FloatValue(v))
		}
		return types.ArrayValue(elem, append([]types.Value{}, out...)), nil
	}, false))
	expr.Register("unix_date", def(1, 1, sig(types.KindDate, types.KindInt64), func(c *expr.Call, a []types.Value) (types.Value, error) {
		return types.IntValue(a[0].I), nil
	}, false))
	expr.Register("date_from_unix_date", def(1, 1, sig(types.KindInt64, types.KindDate), func(c *expr.Call, a []types.Value) (types.Value, error) {
		return expr.InRange(types.DateValue(a[0].I))
	}, false))
}

// generateDecimalArray is GENERATE_ARRAY of NUMERIC or BIGNUMERIC: element
// i is start + i·step, exact. The arguments share one type, so their
// scaled integers share a scale: the count is known before any element is
// made (a step of 1e-9 over [0, 1] is refused at once, not after 2^20
// elements), and each element is the one before plus the step.
func generateDecimalArray(elem types.Type, a []types.Value) (types.Value, error) {
	start, end := a[0].Scaled(), a[1].Scaled()
	step := types.DecimalFromInt(elem, 1).Scaled()
	if len(a) == 3 {
		step = a[2].Scaled()
	}
	if step.Sign() == 0 {
		return types.Value{}, expr.EvalErr("GENERATE_ARRAY: the step must not be 0")
	}
	span := new(big.Int).Sub(end, start)
	if span.Sign() != 0 && span.Sign() != step.Sign() {
		return types.ArrayValue(elem, []types.Value{}), nil
	}
	n := new(big.Int).Quo(span, step) // both of one sign: the floor
	if !n.IsInt64() || n.Int64() >= maxGeneratedElements {
		return types.Value{}, expr.EvalErr("GENERATE_ARRAY: more than %d elements", maxGeneratedElements)
	}
	out := make([]types.Value, 0, n.Int64()+1)
	for v := start; len(out) <= int(n.Int64()); v = new(big.Int).Add(v, step) {
		x, err := types.DecimalValue(elem, v) // between start and end: in range
		if err != nil {
			return types.Value{}, err
		}
		out = append(out, x)
	}
	return types.ArrayValue(elem, out), nil
}

// units are a STRING's characters or a BYTES value's bytes, as runes, for
// the functions that count either (SUBSTR, LPAD, RPAD).
func units(v types.Value) []rune {
	if v.T.Kind != types.KindBytes {
		return []rune(v.S)
	}
	r := make([]rune, len(v.S))
	for i := 0; i < len(v.S); i++ {
		r[i] = rune(v.S[i])
	}
	return r
}

// fromUnits is the value of like's kind made of units r.
func fromUnits(like types.Value, r []rune) types.Value {
	if like.T.Kind != types.KindBytes {
		return types.StringValue(string(r))
	}
	b := make([]byte, len(r))
	for i, x := range r {
		b[i] = byte(x)
	}
	return types.Value{T: types.Bytes, S: string(b)}
}

// textSig types a function whose first argument is a STRING or a BYTES,
// returning that kind; the other arguments are coerced to rest's kinds (the
// last repeating), KindString in rest meaning "the first argument's kind".
func textSig(rest ...types.Kind) func(c *expr.Call) (types.Type, error) {
	return func(c *expr.Call) (types.Type, error) {
		// A text argument of BYTES makes them all BYTES: STARTS_WITH(NULL, b'a').
		for i := 1; i < len(c.Args); i++ {
			if rest[min(i-1, len(rest)-1)] == types.KindString && c.Args[i].Type().Kind == types.KindBytes && c.Args[0].Type().Kind == types.KindNull {
				a, err := expr.CoerceTo(c.Args[0], types.Bytes)
				if err != nil {
					return types.Type{}, err
				}
				c.Args[0] = a
			}
		}
		t, err := stringOrBytes(types.String)(&expr.Call{Fn: c.Fn, Args: c.Args[:1]})
		if err != nil {
			return t, err
		}
		if c.Args[0].Type().Kind == types.KindBytes {
			t = types.Bytes
		}
		for i := 1; i < len(c.Args); i++ {
			want := rest[min(i-1, len(rest)-1)]
			if want == types.KindString {
				want = t.Kind
			}
			a, err := expr.CoerceTo(c.Args[i], types.Type{Kind: want})
			if err != nil {
				return t, fmt.Errorf("argument %d of %s: %w", i+1, strings.ToUpper(c.Fn), err)
			}
			c.Args[i] = a
		}
		return t, nil
	}
}

// arrayOut are the array functions whose result is an array of the
// argument's type, not an element.
var arrayOut = map[string]bool{"array_slice": true, "array_first_n": true, "array_last_n": true, "array_remove_first_n": true, "array_remove_last_n": true}
