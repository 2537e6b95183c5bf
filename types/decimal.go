package types

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
)

// NUMERIC and BIGNUMERIC are BigQuery's exact decimals: NUMERIC has 38
// digits of precision and 9 of scale (|x| ≤ 99999999999999999999999999999.
// 999999999), BIGNUMERIC 38 digits of scale in a 256-bit two's complement
// integer (−2^255 ≤ x·10^38 ≤ 2^255−1). A value is its scaled integer
// (x·10^scale), held in Value.S as a fixed-width big-endian two's
// complement whose sign bit is flipped: byte order is then numeric order,
// so comparing, grouping, hashing, sorting and DISTINCT treat a decimal as
// they treat any string, and only arithmetic and conversion decode it.
//
// Arithmetic is exact; a result with more fractional digits than the
// scale (a product, a quotient, a conversion) is rounded half away from
// zero, and one outside the range is an error — BigQuery's rules.

// ErrDecimalOverflow is wrapped by every NUMERIC or BIGNUMERIC result out
// of range.
var ErrDecimalOverflow = errors.New("numeric overflow")

// ErrDecimalDivisionByZero is a decimal quotient, remainder or power with a
// zero divisor.
var ErrDecimalDivisionByZero = errors.New("division by zero")

type decimalSpec struct {
	name     string
	scale    int
	width    int      // bytes of the encoding
	min, max *big.Int // bounds of the scaled integer
	unit     *big.Int // 10^scale
}

var numericSpec, bigNumericSpec = func() (*decimalSpec, *decimalSpec) {
	nmax := new(big.Int).Sub(pow10(38), big.NewInt(1))
	b := new(big.Int).Lsh(big.NewInt(1), 255)
	return &decimalSpec{name: "NUMERIC", scale: 9, width: 16, min: new(big.Int).Neg(nmax), max: nmax, unit: pow10(9)},
		&decimalSpec{name: "BIGNUMERIC", scale: 38, width: 32, min: new(big.Int).Neg(b), max: new(big.Int).Sub(b, big.NewInt(1)), unit: pow10(38)}
}()

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

func specOf(k Kind) *decimalSpec {
	if k == KindBigNumeric {
		return bigNumericSpec
	}
	return numericSpec
}

// IsDecimal reports whether t is NUMERIC or BIGNUMERIC.
func (t Type) IsDecimal() bool { return t.Kind == KindNumeric || t.Kind == KindBigNumeric }

// InS reports whether t's values are held in Value.S: STRING, BYTES and the
// decimals, ordered by their bytes, and JSON (canonical text, unordered).
func (t Type) InS() bool {
	switch t.Kind {
	case KindString, KindBytes, KindNumeric, KindBigNumeric, KindJSON:
		return true
	}
	return false
}

// Scaled returns a decimal value's scaled integer, x·10^scale.
func (v Value) Scaled() *big.Int {
	b := []byte(v.S)
	b[0] ^= 0x80
	x := new(big.Int).SetBytes(b)
	if b[0]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return x
}

// DecimalValue makes a decimal of type t from its scaled integer, or an
// error wrapping ErrDecimalOverflow when it is out of t's range.
func DecimalValue(t Type, scaled *big.Int) (Value, error) {
	s := specOf(t.Kind)
	if scaled.Cmp(s.min) < 0 || scaled.Cmp(s.max) > 0 {
		return Value{}, fmt.Errorf("%w: %s is out of range", ErrDecimalOverflow, s.name)
	}
	x := scaled
	if x.Sign() < 0 {
		x = new(big.Int).Add(x, new(big.Int).Lsh(big.NewInt(1), uint(8*s.width)))
	}
	b := make([]byte, s.width)
	x.FillBytes(b)
	b[0] ^= 0x80
	return Value{T: t, S: string(b)}, nil
}

// DecimalFromRat makes a decimal of type t from an exact rational,
// rounded half away from zero to t's scale.
func DecimalFromRat(t Type, r *big.Rat) (Value, error) {
	s := specOf(t.Kind)
	num := new(big.Int).Mul(r.Num(), s.unit)
	return DecimalValue(t, DivRound(num, r.Denom()))
}

// Rat returns a decimal value exactly, as a rational.
func (v Value) Rat() *big.Rat {
	return new(big.Rat).SetFrac(v.Scaled(), specOf(v.T.Kind).unit)
}

// divRound is n/d rounded half away from zero (d > 0 or < 0).
func DivRound(n, d *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(n, d, new(big.Int))
	if r.Sign() == 0 {
		return q
	}
	// |r|·2 ≥ |d|: round away from zero.
	r2 := new(big.Int).Abs(r)
	r2.Lsh(r2, 1)
	if r2.Cmp(new(big.Int).Abs(d)) >= 0 {
		if (n.Sign() < 0) != (d.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// ParseDecimal reads a decimal of type t as CAST from STRING and the
// NUMERIC '…' literal do: optional blanks around an optional sign, digits
// with an optional point (at least one digit), and an optional exponent.
// Fractional digits past the scale are rounded half away from zero.
func ParseDecimal(t Type, text string) (Value, error) {
	r, ok := parseDecimalText(strings.TrimSpace(text))
	if !ok {
		return Value{}, fmt.Errorf("%w: invalid %s value %q", ErrBadCast, specOf(t.Kind).name, text)
	}
	return DecimalFromRat(t, r)
}

// ParseDecimalLiteral reads the text of a NUMERIC '…' or BIGNUMERIC '…'
// literal: as ParseDecimal, but a non-zero digit past the scale is an
// error rather than rounded.
func ParseDecimalLiteral(t Type, text string) (Value, error) {
	r, ok := parseDecimalText(strings.TrimSpace(text))
	if ok {
		scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(specOf(t.Kind).unit))
		ok = scaled.IsInt()
	}
	if !ok {
		return Value{}, fmt.Errorf("invalid %s literal %q", specOf(t.Kind).name, text)
	}
	return DecimalFromRat(t, r)
}

// ParseDecimalLenient reads PARSE_NUMERIC's and PARSE_BIGNUMERIC's text:
// as ParseDecimal, with their looser form (lenientNumberText).
func ParseDecimalLenient(t Type, text string) (Value, error) {
	plain, ok := lenientNumberText(text)
	if !ok {
		return Value{}, fmt.Errorf("%q is not a number", text)
	}
	return ParseDecimal(t, plain)
}

// lenientNumberText reads PARSE_NUMERIC's lenient form into plain decimal
// text: white space anywhere but between digits, one sign before or after
// the number (spaces between it and the number allowed), commas among the
// integer digits, an optional exponent. The integer part, if any, needs a
// digit; so does a number with a point.
func lenientNumberText(s string) (string, bool) {
	s = strings.TrimSpace(s)
	sign := ""
	if s != "" && (s[0] == '+' || s[0] == '-') {
		sign, s = s[:1], strings.TrimSpace(s[1:])
	} else if n := len(s); n > 0 && (s[n-1] == '+' || s[n-1] == '-') {
		body := strings.TrimSpace(s[:n-1])
		// a trailing sign, not an exponent's (12e- is not a number)
		if body != "" && body[len(body)-1] != 'e' && body[len(body)-1] != 'E' {
			sign, s = s[n-1:], body
		}
	}
	if s == "" || strings.ContainsAny(s, " \t\n\r\v\f") {
		return "", false
	}
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
		e := strings.TrimLeft(exp, "+-")
		if e == "" || len(exp)-len(e) > 1 || !allDigits(e) {
			return "", false
		}
	}
	intPart, frac, point := mant, "", false
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac, point = mant[:i], mant[i+1:], true
	}
	digits := strings.ReplaceAll(intPart, ",", "")
	if (intPart != "" && digits == "") || !allDigits(digits) || !allDigits(frac) || (digits == "" && frac == "") {
		return "", false
	}
	if digits == "" {
		digits = "0"
	}
	text := sign + digits
	if point && frac != "" {
		text += "." + frac
	}
	if exp != "" {
		text += "e" + exp
	}
	return text, true
}

func parseDecimalText(s string) (*big.Rat, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" && frac == "" || !allDigits(intPart) || !allDigits(frac) {
		return nil, false
	}
	e := int64(0)
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		sign := int64(1)
		if exp != "" && (exp[0] == '+' || exp[0] == '-') {
			if exp[0] == '-' {
				sign = -1
			}
			exp = exp[1:]
		}
		if exp == "" || !allDigits(exp) {
			return nil, false
		}
		for _, c := range exp {
			e = min(e*10+int64(c-'0'), 1<<40) // saturated: any larger exponent does the same
		}
		e *= sign
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return new(big.Rat), true
	}
	e -= int64(len(frac))
	// A value whose magnitude is past any decimal's range is refused
	// before big.Int builds a huge power; one far below rounds to zero.
	if int64(len(digits))+e > 80 {
		return nil, false
	}
	if int64(len(digits))+e < -80 {
		return new(big.Rat), true
	}
	n, _ := new(big.Int).SetString(digits, 10)
	if neg {
		n.Neg(n)
	}
	r := new(big.Rat).SetInt(n)
	if e > 0 {
		r.Mul(r, new(big.Rat).SetInt(pow10(int(e))))
	} else if e < 0 {
		r.Quo(r, new(big.Rat).SetInt(pow10(int(-e))))
	}
	return r, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// FormatDecimal writes a decimal as CAST(… AS STRING) does: the shortest
// exact form, with no trailing fractional zeros and no point when there is
// no fraction.
func FormatDecimal(v Value) string {
	s := specOf(v.T.Kind)
	x := v.Scaled()
	neg := x.Sign() < 0
	digits := new(big.Int).Abs(x).String()
	if len(digits) <= s.scale {
		digits = strings.Repeat("0", s.scale-len(digits)+1) + digits
	}
	ip, fp := digits[:len(digits)-s.scale], strings.TrimRight(digits[len(digits)-s.scale:], "0")
	out := ip
	if fp != "" {
		out += "." + fp
	}
	if neg {
		out = "-" + out
	}
	return out
}

// DecimalFromInt makes a decimal of an INT64; every INT64 fits both types.
func DecimalFromInt(t Type, i int64) Value {
	v, _ := DecimalValue(t, new(big.Int).Mul(big.NewInt(i), specOf(t.Kind).unit))
	return v
}

// DecimalFromBigInt makes a decimal of an integer, or an overflow error.
func DecimalFromBigInt(t Type, i *big.Int) (Value, error) {
	return DecimalValue(t, new(big.Int).Mul(i, specOf(t.Kind).unit))
}

// DecimalFromFloat converts a FLOAT64 exactly, then rounds half away from
// zero to t's scale; NaN, ±inf and values out of range are errors.
func DecimalFromFloat(t Type, f float64) (Value, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Value{}, fmt.Errorf("%w: %s cannot hold %s", ErrBadCast, specOf(t.Kind).name, FormatFloat(f))
	}
	if math.Abs(f) > 1e78 {
		return Value{}, fmt.Errorf("%w: %s is out of range", ErrDecimalOverflow, specOf(t.Kind).name)
	}
	return DecimalFromRat(t, new(big.Rat).SetFloat64(f))
}

// DecimalToFloat is the FLOAT64 nearest a decimal.
func DecimalToFloat(v Value) float64 {
	f, _ := v.Rat().Float64()
	return f
}

// DecimalToInt rounds a decimal half away from zero to an INT64; ok is
// false when the result does not fit.
func DecimalToInt(v Value) (int64, bool) {
	q := DivRound(v.Scaled(), specOf(v.T.Kind).unit)
	return q.Int64(), q.IsInt64()
}

// DecimalArith computes a op b (+ - * /) of two decimals of type t
// exactly, rounding a product or quotient half away from zero to the
// scale. Division by zero and results out of range are errors.
func DecimalArith(t Type, op string, a, b Value) (Value, error) {
	s := specOf(t.Kind)
	x, y := a.Scaled(), b.Scaled()
	var r *big.Int
	switch op {
	case "+":
		r = x.Add(x, y)
	case "-":
		r = x.Sub(x, y)
	case "*":
		r = DivRound(x.Mul(x, y), s.unit)
	case "/":
		if y.Sign() == 0 {
			return Value{}, ErrDecimalDivisionByZero
		}
		r = DivRound(x.Mul(x, s.unit), y)
	default:
		return Value{}, fmt.Errorf("no decimal operator %s", op)
	}
	return DecimalValue(t, r)
}

// DecimalRound rounds a decimal to digits fractional digits (negative:
// to tens, hundreds, …): half away from zero when halfEven is false, else
// to the even neighbour. mode picks the direction for TRUNC (toward zero),
// CEIL and FLOOR: "round", "trunc", "ceil" or "floor".
func DecimalRound(v Value, digits int64, mode string, halfEven bool) (Value, error) {
	s := specOf(v.T.Kind)
	if digits >= int64(s.scale) {
		return v, nil
	}
	drop := int64(80) // every value rounds to zero alike past the widest range
	if digits > -80 {
		drop = int64(s.scale) - digits
	}
	x := v.Scaled()
	d := pow10(int(drop))
	q, r := new(big.Int).QuoRem(x, d, new(big.Int)) // q toward zero
	if r.Sign() != 0 {
		switch mode {
		case "ceil":
			if x.Sign() > 0 {
				q.Add(q, big.NewInt(1))
			}
		case "floor":
			if x.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			}
		case "round":
			r2 := new(big.Int).Abs(r)
			r2.Lsh(r2, 1)
			c := r2.Cmp(d)
			if c > 0 || c == 0 && (!halfEven || q.Bit(0) == 1) {
				if x.Sign() < 0 {
					q.Sub(q, big.NewInt(1))
				} else {
					q.Add(q, big.NewInt(1))
				}
			}
		}
	}
	return DecimalValue(v.T, q.Mul(q, d))
}
