package sqlfunc

import (
	"fmt"
	"math"
	"math/big"
	"strings"

	"logq/expr"
	"logq/types"
)

// Exponential, logarithmic (LN, LOG10; LOG and POW in funcs_math.go),
// trigonometric and hyperbolic functions, and SIGN, with BigQuery's error
// rules (ZetaSQL's math.h): a finite argument outside the function's domain
// (ACOS(2), ATANH(1), COT(0)) or a finite argument whose result overflows
// (EXP(1000), COSH(1000)) is an error (NULL under SAFE.); an infinite
// argument gives IEEE's answer (ACOS(inf) is NaN, EXP(-inf) is 0); NaN
// gives NaN.
func registerTrigFuncs() {
	type fn struct {
		name string
		f    func(float64) float64
		// in says whether a finite x is in the domain.
		in func(float64) bool
	}
	all := func(float64) bool { return true }
	nonZero := func(x float64) bool { return x != 0 }
	positive := func(x float64) bool { return x > 0 }
	for _, d := range []fn{
		{"exp", math.Exp, all},
		{"ln", math.Log, positive},
		{"log10", func(x float64) float64 { return snapLog(math.Log10(x), 10, x) }, positive},
		{"sin", math.Sin, all},
		{"cos", math.Cos, all},
		{"tan", math.Tan, all},
		{"asin", math.Asin, func(x float64) bool { return x >= -1 && x <= 1 }},
		{"acos", math.Acos, func(x float64) bool { return x >= -1 && x <= 1 }},
		{"atan", math.Atan, all},
		{"sinh", math.Sinh, all},
		{"cosh", math.Cosh, all},
		{"tanh", math.Tanh, all},
		{"asinh", math.Asinh, all},
		{"acosh", math.Acosh, func(x float64) bool { return x >= 1 }},
		{"atanh", math.Atanh, func(x float64) bool { return x > -1 && x < 1 }},
		{"cot", func(x float64) float64 { return 1 / math.Tan(x) }, nonZero},
		{"csc", func(x float64) float64 { return 1 / math.Sin(x) }, nonZero},
		{"sec", func(x float64) float64 { return 1 / math.Cos(x) }, all},
		{"coth", func(x float64) float64 { return 1 / math.Tanh(x) }, nonZero},
		{"csch", func(x float64) float64 { return 1 / math.Sinh(x) }, nonZero},
		{"sech", func(x float64) float64 { return 1 / math.Cosh(x) }, all},
		// RADIANS and DEGREES multiply by a constant ratio (x * (π/180) is
		// ZetaSQL's FLOAT64 answer to the last bit, RADIANS(360) exactly 2π).
		{"radians", func(x float64) float64 { return x * (math.Pi / 180) }, all},
		{"degrees", func(x float64) float64 { return x * (180 / math.Pi) }, all},
	} {
		d := d
		expr.Register(d.name, def(1, 1, sig(types.KindFloat64, types.KindFloat64), func(c *expr.Call, a []types.Value) (types.Value, error) {
			x := a[0].F
			finite := isFinite(x)
			if finite && !d.in(x) {
				return types.Value{}, expr.EvalErr("%s(%v) is outside the function's domain", strings.ToUpper(d.name), x)
			}
			r := d.f(x)
			if finite && math.IsInf(r, 0) {
				return types.Value{}, expr.EvalErr("floating point overflow: %s(%v)", strings.ToUpper(d.name), x)
			}
			return types.FloatValue(r), nil
		}, false))
	}
	// NUMERIC and BIGNUMERIC RADIANS and DEGREES multiply exactly by π to
	// 100 digits and round to the type's scale.
	for _, d := range []struct {
		name  string
		exact func(x *big.Rat) *big.Rat
	}{
		{"radians", func(x *big.Rat) *big.Rat { return x.Mul(x.Mul(x, piRat), big.NewRat(1, 180)) }},
		{"degrees", func(x *big.Rat) *big.Rat { return x.Quo(x.Mul(x, big.NewRat(180, 1)), piRat) }},
	} {
		d := d
		overloadDecimal(d.name, -1, func(c *expr.Call, a []types.Value) (types.Value, error) {
			return decimalResult(types.DecimalFromRat(c.T, d.exact(a[0].Rat())))
		})
	}
	expr.Register("atan2", def(2, 2, sig(types.KindFloat64, types.KindFloat64), func(c *expr.Call, a []types.Value) (types.Value, error) {
		return types.FloatValue(math.Atan2(a[0].F, a[1].F)), nil
	}, false))
	// SIGN keeps the argument's type: -1, 0 or 1 (NaN for NaN).
	expr.Register("sign", def(1, 1, func(c *expr.Call) (types.Type, error) {
		t := c.Args[0].Type()
		switch {
		case t.Kind == types.KindNull:
			return types.Int64, nil
		case !t.IsNumeric():
			return t, fmt.Errorf("SIGN needs a number, not %s", t)
		}
		return t, nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		if c.T.Kind == types.KindInt64 {
			x := a[0].I
			switch {
			case x > 0:
				return types.IntValue(1), nil
			case x < 0:
				return types.IntValue(-1), nil
			}
			return types.IntValue(0), nil
		}
		x := a[0].F
		switch {
		case x > 0:
			return types.FloatValue(1), nil
		case x < 0:
			return types.FloatValue(-1), nil
		case x == 0:
			return types.FloatValue(0), nil
		}
		return types.FloatValue(x), nil // NaN
	}, false))
}

// piRat is π to 100 decimals, beyond BIGNUMERIC's 77 significant digits.
var piRat, _ = new(big.Rat).SetString("3.1415926535897932384626433832795028841971693993751058209749445923078164062862089986280348253421170679")
