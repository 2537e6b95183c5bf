package types

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"sync"
)

// SQRT, EXP, LN, LOG10, LOG and POW of NUMERIC and BIGNUMERIC, as BigQuery
// computes them (ZetaSQL's NumericValue and BigNumericValue): in the
// argument's type, the result rounded half away from zero to the type's
// scale, a result out of range an error and one below half the last place
// zero. ZetaSQL rounds a binary approximation (94 fractional bits for
// NUMERIC, 254 for BIGNUMERIC) to the nearest; these round the exact
// value, so they give ZetaSQL's answers wherever its approximation falls
// on the right side of the rounding: in all of its own tests but two,
// LOG(max NUMERIC, 1 ± 1e-9), where ZetaSQL's ln of a base that near 1
// is off in the last digits (decimal_math_test.go).
//
// SQRT is exact integer arithmetic. The others are transcendental: the
// value is approximated in big.Float with a proven bound on its relative
// error, at precisions doubling until the bound leaves one rounding (Ziv's
// method). That ends whenever the exact value is no midpoint between two
// neighbours of the scale, and it is none: e^x for a rational x ≠ 0, ln x
// for a rational x ≠ 1 and log10 x for x no power of ten are irrational
// (Lindemann, Hermite); LOG(x, b) is rational only when x and b are powers
// of one rational, and a midpoint's denominator 2^(scale+1) would need b a
// 2^(scale+1)-th power, far past the range. POW alone has exact results
// that are midpoints (POW(0.15, 5) is 0.0000759375, POW(0.0625, 2.5) is
// 0.0009765625): a midpoint x^(P/Q) needs |P| ≤ scale + 1 and Q ≤ 128,
// and such a power is computed exactly when it is rational.

var (
	errSqrtNegative   = errors.New("square root of a negative value")
	errLogNotPositive = errors.New("logarithm of zero or a negative value")
	errLogBase        = errors.New("logarithm to a base of zero, a negative value or 1")
	errPowNegative    = errors.New("negative value raised to a fractional power")
)

// DecimalSqrt is the square root of a decimal, rounded half away from
// zero to its scale (exactly: the root of the scaled integer times
// 10^scale, in integers). A negative argument is an error.
func DecimalSqrt(x Value) (Value, error) {
	n := x.Scaled()
	if n.Sign() < 0 {
		return Value{}, errSqrtNegative
	}
	s := specOf(x.T.Kind)
	// The result's scaled integer is √(n·10^scale), rounded: r = ⌊√N⌋
	// rounds up when √N ≥ r + ½, that is N ≥ r² + r + ¼, N − r² > r in
	// integers (never equal: no root is a midpoint).
	nn := n.Mul(n, s.unit)
	r := new(big.Int).Sqrt(nn)
	rem := new(big.Int).Mul(r, r)
	rem.Sub(nn, rem)
	if rem.Cmp(r) > 0 {
		r.Add(r, big.NewInt(1))
	}
	return DecimalValue(x.T, r)
}

// DecimalExp is e^x rounded to x's scale: zero when it is below half the
// last place, an overflow error when it is past the range.
func DecimalExp(x Value) (Value, error) {
	s := specOf(x.T.Kind)
	return roundApprox(x.T, func(prec uint) (*big.Float, error) {
		y := new(big.Float).SetPrec(prec + 48).SetInt(x.Scaled())
		y.Quo(y, new(big.Float).SetInt(s.unit))
		return expBounded(s, y, prec)
	})
}

// DecimalLn is the natural logarithm of x; x ≤ 0 is an error.
func DecimalLn(x Value) (Value, error) {
	n := x.Scaled()
	if n.Sign() <= 0 {
		return Value{}, errLogNotPositive
	}
	unit := specOf(x.T.Kind).unit
	return roundApprox(x.T, func(prec uint) (*big.Float, error) {
		return lnRat(n, unit, prec), nil
	})
}

// DecimalLog10 is the logarithm of x to base 10; x ≤ 0 is an error.
func DecimalLog10(x Value) (Value, error) {
	n := x.Scaled()
	if n.Sign() <= 0 {
		return Value{}, errLogNotPositive
	}
	unit := specOf(x.T.Kind).unit
	return roundApprox(x.T, func(prec uint) (*big.Float, error) {
		l := lnRat(n, unit, prec+8)
		return l.Quo(l, ln10(prec+8)), nil
	})
}

// DecimalLog is the logarithm of x to base b (both of one type): x ≤ 0,
// b ≤ 0 and b = 1 are errors, and so is a result out of range.
func DecimalLog(x, b Value) (Value, error) {
	n, m := x.Scaled(), b.Scaled()
	unit := specOf(x.T.Kind).unit
	switch {
	case n.Sign() <= 0:
		return Value{}, errLogNotPositive
	case m.Sign() <= 0 || m.Cmp(unit) == 0:
		return Value{}, errLogBase
	}
	return roundApprox(x.T, func(prec uint) (*big.Float, error) {
		l := lnRat(n, unit, prec+8)
		return l.Quo(l, lnRat(m, unit, prec+8)), nil
	})
}

// DecimalPow is x raised to the power y (both of one type), as ZetaSQL
// takes its cases: y = 2 is x·x and y = −1 is 1/x (each rounded once),
// y = 0 gives 1 (0^0 too), y = 1 gives x, 0 to a negative power is an
// error (division by zero) and 0 to a positive one 0; a negative x needs
// a whole y. A result past the range is an overflow error; one below half
// the last place is zero.
func DecimalPow(x, y Value) (Value, error) {
	t := x.T
	s := specOf(t.Kind)
	a, ny := x.Scaled(), y.Scaled()
	switch {
	case ny.Cmp(new(big.Int).Lsh(s.unit, 1)) == 0:
		return DecimalArith(t, "*", x, x)
	case ny.Sign() == 0:
		return DecimalFromInt(t, 1), nil
	case ny.Cmp(s.unit) == 0:
		return x, nil
	case a.Sign() == 0:
		if ny.Sign() < 0 {
			return Value{}, ErrDecimalDivisionByZero
		}
		return x, nil
	case new(big.Int).Neg(ny).Cmp(s.unit) == 0:
		return DecimalArith(t, "/", DecimalFromInt(t, 1), x)
	}
	// y = p/q in lowest terms.
	g := new(big.Int).GCD(nil, nil, new(big.Int).Abs(ny), s.unit)
	p, q := new(big.Int).Quo(ny, g), new(big.Int).Quo(s.unit, g)
	if a.Sign() < 0 && q.Cmp(big.NewInt(1)) != 0 {
		return Value{}, errPowNegative
	}
	// The exponents whose power can be an exact midpoint (|p| ≤ scale + 1,
	// q ≤ 128) and a little more: the exact power when it is rational.
	if p.IsInt64() && q.IsInt64() && abs64(p.Int64()) <= 64 && q.Int64() <= 256 {
		if r, ok := exactPow(a, s.unit, p.Int64(), q.Int64()); ok {
			return DecimalFromRat(t, r)
		}
	}
	neg := a.Sign() < 0 && p.Bit(0) == 1 // q is 1 then
	absA := new(big.Int).Abs(a)
	return roundApprox(t, func(prec uint) (*big.Float, error) {
		// x^y = e^(y·ln|x|): ln|x| and y·ln|x| within 2^-(prec+20), the
		// exponent at most 2^7 (else out of range, or zero), so e^… within
		// 2^-(prec+8) + 2^7·2^-(prec+20).
		l := lnRat(absA, s.unit, prec+24)
		l.Mul(l, new(big.Float).SetInt(ny))
		l.Quo(l, new(big.Float).SetInt(s.unit))
		v, err := expBounded(s, l, prec+8)
		if neg && v != nil {
			v.Neg(v)
		}
		return v, err
	})
}

func abs64(i int64) int64 {
	if i < 0 {
		return -i
	}
	return i
}

// exactPow is (a/unit)^(p/q) when it is rational: a whole power
// (q = 1), or a q-th root of a positive a/unit that is exact.
func exactPow(a, unit *big.Int, p, q int64) (*big.Rat, bool) {
	num, den := new(big.Int).Set(a), new(big.Int).Set(unit)
	if q > 1 {
		g := new(big.Int).GCD(nil, nil, num, den)
		num.Quo(num, g)
		den.Quo(den, g)
		var ok bool
		if num, ok = exactRoot(num, q); !ok {
			return nil, false
		}
		if den, ok = exactRoot(den, q); !ok {
			return nil, false
		}
	}
	e := big.NewInt(abs64(p))
	num.Exp(num, e, nil)
	den.Exp(den, e, nil)
	if p < 0 {
		num, den = den, num
	}
	if den.Sign() < 0 {
		num.Neg(num)
		den.Neg(den)
	}
	return new(big.Rat).SetFrac(num, den), true
}

// exactRoot is the k-th root of n ≥ 1 when n is a k-th power.
func exactRoot(n *big.Int, k int64) (*big.Int, bool) {
	if n.Cmp(big.NewInt(1)) == 0 {
		return n, true
	}
	bits := int64(n.BitLen())
	if bits <= k { // 1 < n < 2^k: between 1^k and 2^k
		return nil, false
	}
	// Newton's iteration from above: r ← ((k−1)·r + n/r^(k−1)) / k
	// decreases to ⌊n^(1/k)⌋.
	r := new(big.Int).Lsh(big.NewInt(1), uint((bits+k-1)/k))
	km1, kk := big.NewInt(k-1), big.NewInt(k)
	for {
		pw := new(big.Int).Exp(r, km1, nil)
		next := new(big.Int).Quo(n, pw)
		next.Add(next, new(big.Int).Mul(r, km1))
		next.Quo(next, kk)
		if next.Cmp(r) >= 0 {
			break
		}
		r = next
	}
	if new(big.Int).Exp(r, kk, nil).Cmp(n) != 0 {
		return nil, false
	}
	return r, true
}

// roundApprox rounds to t's scale the value approx computes: approx(prec)
// returns it within a relative error of 2^-(prec−32) (or nil and an
// error). The precision doubles until the rounding is decided.
func roundApprox(t Type, approx func(prec uint) (*big.Float, error)) (Value, error) {
	s := specOf(t.Kind)
	prec := uint(192)
	if t.Kind == KindBigNumeric {
		prec = 320
	}
	for {
		v, err := approx(prec)
		if err != nil {
			return Value{}, err
		}
		r, ok := roundScaled(v, s, int(prec)-32)
		// Past 2^15 bits only a value within 2^-32000 of a midpoint is
		// undecided, and none is one (see above): take the nearest.
		if ok || prec >= 1<<15 {
			return DecimalValue(t, r)
		}
		prec *= 2
	}
}

// roundScaled rounds v·10^scale half away from zero to an integer, and
// reports whether every value within v·(1 ± 2^-good) rounds alike.
func roundScaled(v *big.Float, s *decimalSpec, good int) (*big.Int, bool) {
	if v.Sign() == 0 {
		return new(big.Int), true
	}
	// exact: 10^38 has 89 significant bits
	z := new(big.Float).SetPrec(v.Prec() + 128).SetInt(s.unit)
	z.Mul(z, v)
	neg := z.Signbit()
	z.Abs(z)
	ip, _ := z.Int(nil) // ⌊z⌋
	frac := new(big.Float).SetPrec(z.Prec()).SetInt(ip)
	frac.Sub(z, frac)
	half := big.NewFloat(0.5)
	dist := new(big.Float).SetPrec(z.Prec()).Sub(frac, half)
	dist.Abs(dist)
	bound := new(big.Float).SetMantExp(z, -good)
	if frac.Cmp(half) >= 0 {
		ip.Add(ip, big.NewInt(1))
	}
	if neg {
		ip.Neg(ip)
	}
	return ip, dist.Cmp(bound) > 0
}

// expBounded is e^y within a relative error of 2^-prec plus y's own error
// times |y| (y's magnitude at most 2^7 then), or exactly zero when it is
// below a quarter of the last place, or an overflow error when it is past
// the range by far (one just past it is rounded, then refused).
func expBounded(s *decimalSpec, y *big.Float, prec uint) (*big.Float, error) {
	f, _ := y.Float64()
	lnMax := lnMaxNumeric
	if s == bigNumericSpec {
		lnMax = lnMaxBigNumeric
	}
	switch {
	case f > lnMax+1: // e^y > e·max
		return nil, fmt.Errorf("%w: %s is out of range", ErrDecimalOverflow, s.name)
	case f < -float64(s.scale)*math.Ln10-2: // e^y < e^-2·10^-scale
		return new(big.Float), nil
	}
	return expFloat(y, prec), nil
}

// lnMaxNumeric and lnMaxBigNumeric are about the logarithms of the types'
// largest values.
var lnMaxNumeric, lnMaxBigNumeric = 29 * math.Ln10, math.Log(5.78960446186580977e38)

// expFloat is e^y for |y| < 2^8, within a relative error of 2^-prec of
// e^(y as given): y = k·ln 2 + r with |r| ≤ ln 2 / 2, e^r is (e^(r/2^12))
// squared 12 times, and e^(r/2^12) its Taylor series. The errors: r's, at
// most (|k| + 1)·2^-(wp+16) (|k| ≤ 2^9); the series', a few 2^-wp; and the
// twelve squarings multiply a relative error by 2^12 — in all well below
// 2^-(wp−16) = 2^-(prec+16).
func expFloat(y *big.Float, prec uint) *big.Float {
	const halvings = 12
	wp := prec + 32
	l2 := ln2(wp + 16)
	kf, _ := new(big.Float).Quo(y, l2).Float64()
	k := int64(math.Round(kf))
	r := new(big.Float).SetPrec(wp + 16).SetInt64(k)
	r.Mul(r, l2)
	r.Sub(y, r)
	r.SetMantExp(r, -halvings)
	sum := new(big.Float).SetPrec(wp + 16).SetInt64(1)
	term := new(big.Float).SetPrec(wp + 16).SetInt64(1)
	for i := int64(1); ; i++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetInt64(i))
		if term.Sign() == 0 || term.MantExp(nil) < -int(wp)-20 {
			break
		}
		sum.Add(sum, term)
	}
	for i := 0; i < halvings; i++ {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(k))
}

// lnRat is ln(num/den) for num, den > 0, within a relative error of
// 2^-prec: num/den = m·2^e with m in [1/√2, √2), exactly, and ln(m) =
// 2·atanh(z) with z = (m − 1)/(m + 1), |z| ≤ 0.172, from exact integers
// (so the error is relative even near 1). For e ≠ 0, |ln| ≥ 0.34, and
// e·ln 2 adds at most (|e| + 1)·2^-(prec+16) with |e| ≤ 2^9.
func lnRat(num, den *big.Int, prec uint) *big.Float {
	wp := prec + 16
	e := num.BitLen() - den.BitLen()
	a, b := new(big.Int).Set(num), new(big.Int).Set(den)
	if e > 0 {
		b.Lsh(b, uint(e))
	} else if e < 0 {
		a.Lsh(a, uint(-e))
	}
	// a/b is in (1/2, 2): into [1/√2, √2).
	a2, b2 := new(big.Int).Mul(a, a), new(big.Int).Mul(b, b)
	if new(big.Int).Lsh(a2, 1).Cmp(b2) < 0 {
		a.Lsh(a, 1)
		e--
	} else if a2.Cmp(new(big.Int).Lsh(b2, 1)) >= 0 {
		b.Lsh(b, 1)
		e++
	}
	z := new(big.Float).SetPrec(wp).SetInt(new(big.Int).Sub(a, b))
	z.Quo(z, new(big.Float).SetInt(new(big.Int).Add(a, b)))
	res := atanh(z, wp)
	res.SetMantExp(res, 1)
	if e != 0 {
		l := ln2(wp + 16)
		l.Mul(l, new(big.Float).SetInt64(int64(e)))
		res.Add(res, l)
	}
	return res
}

// atanh is Σ z^(2k+1)/(2k+1) for |z| ≤ 1/3, within a relative error of a
// few 2^-prec (the terms fall by z² ≤ 1/9 each).
func atanh(z *big.Float, prec uint) *big.Float {
	sum := new(big.Float).SetPrec(prec).Set(z)
	if z.Sign() == 0 {
		return sum
	}
	z2 := new(big.Float).SetPrec(prec).Mul(z, z)
	pow := new(big.Float).SetPrec(prec).Set(z)
	term := new(big.Float).SetPrec(prec)
	for k := int64(3); ; k += 2 {
		pow.Mul(pow, z2)
		term.Quo(pow, new(big.Float).SetInt64(k))
		if term.Sign() == 0 || term.MantExp(nil) < sum.MantExp(nil)-int(prec)-4 {
			return sum
		}
		sum.Add(sum, term)
	}
}

// ln 2 = 2·atanh(1/3) and ln 10 = 3·ln 2 + 2·atanh(1/9), kept at the
// largest precision asked for yet.
var lnConsts struct {
	sync.Mutex
	prec      uint
	ln2, ln10 *big.Float
}

func ln2(prec uint) *big.Float {
	l2, _ := lnConstants(prec)
	return l2
}

func ln10(prec uint) *big.Float {
	_, l10 := lnConstants(prec)
	return l10
}

// lnConstants returns ln 2 and ln 10 rounded to prec bits (fresh values).
func lnConstants(prec uint) (*big.Float, *big.Float) {
	c := &lnConsts
	c.Lock()
	defer c.Unlock()
	if c.prec < prec {
		p := max(2*prec, 1024)
		wp := p + 32
		third := new(big.Float).SetPrec(wp).SetInt64(1)
		third.Quo(third, new(big.Float).SetInt64(3))
		l2 := atanh(third, wp)
		l2.SetMantExp(l2, 1)
		ninth := new(big.Float).SetPrec(wp).SetInt64(1)
		ninth.Quo(ninth, new(big.Float).SetInt64(9))
		l10 := atanh(ninth, wp)
		l10.SetMantExp(l10, 1)
		l10.Add(l10, new(big.Float).SetPrec(wp).Mul(l2, new(big.Float).SetInt64(3)))
		c.prec = p
		c.ln2 = new(big.Float).SetPrec(p).Set(l2)
		c.ln10 = new(big.Float).SetPrec(p).Set(l10)
	}
	return new(big.Float).SetPrec(prec).Set(c.ln2), new(big.Float).SetPrec(prec).Set(c.ln10)
}
