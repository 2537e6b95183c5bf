package types

import (
	"fmt"
	"slices"
	"strings"
)

// SigDigits is a decimal number as its significant digits and where its
// point falls among them: the value is 0.d × 10^point (0.00015 is digits 15
// at point -3, 1234.5 is 12345 at point 4); zero has no digits.
type SigDigits struct {
	Neg   bool
	d     []byte
	point int
}

// SigDigitsOf reads a decimal's canonical text (types.FormatDecimal).
func SigDigitsOf(s string) SigDigits {
	var x SigDigits
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		x.Neg, s = true, rest
	}
	whole, frac, _ := strings.Cut(s, ".")
	all := strings.TrimLeft(whole+frac, "0")
	x.point = len(whole) - (len(whole) + len(frac) - len(all))
	x.d = []byte(strings.TrimRight(all, "0"))
	if len(x.d) == 0 {
		x.point = 0
	}
	return x
}

// rounded is x kept to n significant digits, rounded half away from zero
// (n ≤ 0 rounds at or above the first digit: to zero, or to one unit
// there); x is left as it was.
func (x SigDigits) rounded(n int) SigDigits {
	if n >= len(x.d) {
		return x
	}
	if n < 0 {
		return SigDigits{Neg: x.Neg}
	}
	up := x.d[n] >= '5'
	x.d = slices.Clone(x.d[:n]) // the carry writes digits
	if up {
		i := n - 1
		for i >= 0 && x.d[i] == '9' {
			i--
		}
		if i < 0 { // 99.6 → 100
			x.d, x.point = append(x.d[:0], '1'), x.point+1
		} else {
			x.d[i]++
			x.d = x.d[:i+1]
		}
	}
	for len(x.d) > 0 && x.d[len(x.d)-1] == '0' {
		x.d = x.d[:len(x.d)-1]
	}
	if len(x.d) == 0 {
		x.point = 0
	}
	return x
}

// exponent is x's power of ten in scientific notation (0 for zero).
func (x SigDigits) exponent() int {
	if len(x.d) == 0 {
		return 0
	}
	return x.point - 1
}

// digit is the digit at position k after the first significant place
// (0 past the digits).
func (x SigDigits) digit(k int) byte {
	if k >= 0 && k < len(x.d) {
		return x.d[k]
	}
	return '0'
}

// format writes |x| by %f, %e or %g with prec digits (after the point, or
// significant for %g); alt is the # flag.
func (x SigDigits) Format(verb byte, prec int, alt bool) string {
	if verb == 'g' {
		exp := x.rounded(prec).exponent()
		var s string
		if exp >= -4 && exp < prec {
			s = x.fixed(prec-1-exp, alt)
		} else {
			s = x.sci(prec-1, alt)
		}
		if alt {
			return s
		}
		mant, e, _ := strings.Cut(s, "e")
		if strings.Contains(mant, ".") {
			mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
		}
		if e != "" {
			return mant + "e" + e
		}
		return mant
	}
	if verb == 'e' {
		return x.sci(prec, alt)
	}
	return x.fixed(prec, alt)
}

// fixed writes x with f digits after the point (%f).
func (x SigDigits) fixed(f int, alt bool) string {
	x = x.rounded(x.point + f)
	var b strings.Builder
	if x.point <= 0 {
		b.WriteByte('0')
	}
	for k := 0; k < x.point; k++ {
		b.WriteByte(x.digit(k))
	}
	if f > 0 || alt {
		b.WriteByte('.')
	}
	for k := 0; k < f; k++ {
		b.WriteByte(x.digit(x.point + k))
	}
	return b.String()
}

// sci writes x as one digit, p more after the point, and an exponent of at
// least two digits (%e).
func (x SigDigits) sci(p int, alt bool) string {
	x = x.rounded(p + 1)
	var b strings.Builder
	b.WriteByte(x.digit(0))
	if p > 0 || alt {
		b.WriteByte('.')
	}
	for k := 1; k <= p; k++ {
		b.WriteByte(x.digit(k))
	}
	fmt.Fprintf(&b, "e%+03d", x.exponent())
	return b.String()
}
