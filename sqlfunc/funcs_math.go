package sqlfunc

import (
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"

	"logq/expr"
	"logq/types"
)

// Numeric functions with BigQuery's types and errors. FLOAT64 results for
// INT64 arguments (ROUND, TRUNC, POW, SQRT, LN, LOG, LOG10, SAFE_DIVIDE);
// MOD and DIV take INT64 only. Errors are evaluation errors (NULL under
// SAFE.).
func registerMathFuncs() {
	// RAND(): a FLOAT64 in [0, 1), drawn anew for each row.
	expr.Register("rand", def(0, 0, checkRand, evalRand, false)).Volatile = true
	// GENERATE_UUID(): a random (version 4) UUID as 36 lower-case characters.
	expr.Register("generate_uuid", def(0, 0, checkGenerateUuid, evalGenerateUuid, false)).Volatile = true
	expr.Register("cbrt", float1(func(x float64) (float64, error) { return math.Cbrt(x), nil }))
	expr.Register("sqrt", float1(func(x float64) (float64, error) {
		if x < 0 {
			return 0, expr.EvalErr("SQRT of a negative number: %v", x)
		}
		return math.Sqrt(x), nil
	}))
	// LN and LOG10 are registered with the trigonometric functions, whose
	// error rule they share (funcs_trig.go); LOG and POW follow it for two
	// arguments: a result that is not finite is an error only when every
	// argument is finite (POW(0, -inf) is +inf, LOG(-inf, 2) NaN).
	expr.Register("log", def(1, 2, sig(types.KindFloat64, types.KindFloat64), evalLog, false))
	expr.Register("pow", def(2, 2, sig(types.KindFloat64, types.KindFloat64), evalPow, false))
	expr.Alias("power", "pow")
	expr.Register("round", def(1, 2, sig(types.KindFloat64, types.KindInt64, types.KindFloat64), roundTo(math.Round), false))
	expr.Register("trunc", def(1, 2, sig(types.KindFloat64, types.KindInt64, types.KindFloat64), roundTo(math.Trunc), false))
	expr.Register("floor", def(1, 1, sig(types.KindFloat64, types.KindFloat64), evalFloor, false))
	expr.Register("ceil", def(1, 1, sig(types.KindFloat64, types.KindFloat64), evalCeil, false))
	expr.Alias("ceiling", "ceil")
	expr.Register("safe_divide", def(2, 2, sig(types.KindFloat64, types.KindFloat64), evalSafeDivide, false))
	// IEEE_DIVIDE never fails: x/0 is ±inf or NaN.
	expr.Register("ieee_divide", def(2, 2, sig(types.KindFloat64, types.KindFloat64), evalIeeeDivide, false))
	expr.Register("is_nan", def(1, 1, sig(types.KindFloat64, types.KindBool), evalIsNan, false))
	expr.Register("is_inf", def(1, 1, sig(types.KindFloat64, types.KindBool), evalIsInf, false))
	expr.Register("mod", def(2, 2, sig(types.KindInt64, types.KindInt64), evalMod, false))
	expr.Register("div", def(2, 2, sig(types.KindInt64, types.KindInt64), evalDiv, false))
	expr.Register("greatest", extreme(true))
	expr.Register("least", extreme(false))
}

func float1(f func(x float64) (float64, error)) *expr.Func {
	return def(1, 1, sig(types.KindFloat64, types.KindFloat64), func(c *expr.Call, a []types.Value) (types.Value, error) {
		r, err := f(a[0].F)
		if err != nil {
			return types.Value{}, err
		}
		return types.FloatValue(r), nil
	}, false)
}

// roundTo applies f at n decimal digits (n < 0: left of the point).
func roundTo(f func(float64) float64) func(c *expr.Call, a []types.Value) (types.Value, error) {
	return func(c *expr.Call, a []types.Value) (types.Value, error) {
		x := a[0].F
		if len(a) == 1 || math.IsInf(x, 0) || math.IsNaN(x) {
			return types.FloatValue(f(x)), nil
		}
		n := a[1].I
		switch {
		case n > 400: // finer than any FLOAT64, the subnormals included
			return types.FloatValue(x), nil
		case n < -400: // coarser than the largest FLOAT64 (1.8e308 < 0.5e309)
			return types.FloatValue(0), nil
		case n > 22 || n < -22:
			return roundBig(c, f, x, n)
		}
		p := math.Pow(10, math.Abs(float64(n))) // exact up to 1e22
		if n >= 0 {
			r := f(x*p) / p
			if math.IsInf(x*p, 0) {
				return types.FloatValue(x), nil
			}
			return types.FloatValue(r), nil
		}
		r := f(x/p) * p
		if math.IsInf(r, 0) {
			return types.Value{}, expr.EvalErr("floating point overflow in %s", strings.ToUpper(c.Fn))
		}
		return types.FloatValue(r), nil
	}
}

// roundBig is roundTo for n past ±22, where 10^|n| is no FLOAT64 exactly
// and x/10^|n| in FLOAT64 can fall on the wrong side of a half (ROUND(1.5e300,
// -300) read 1.4999… and gave 1e300): x is scaled exactly, read back as the
// FLOAT64 nearest, rounded, and scaled back exactly.
func roundBig(c *expr.Call, f func(float64) float64, x float64, n int64) (types.Value, error) {
	const prec = 256
	pow := new(big.Float).SetPrec(prec).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(max(n, -n)), nil))
	q := new(big.Float).SetPrec(prec).SetFloat64(x)
	if n < 0 {
		q.Quo(q, pow)
	} else {
		q.Mul(q, pow)
	}
	scaled, _ := q.Float64()
	if math.IsInf(scaled, 0) { // x is whole at that scale already
		return types.FloatValue(x), nil
	}
	r := new(big.Float).SetPrec(prec).SetFloat64(f(scaled))
	if n < 0 {
		r.Mul(r, pow)
	} else {
		r.Quo(r, pow)
	}
	out, _ := r.Float64()
	if math.IsInf(out, 0) {
		return types.Value{}, expr.EvalErr("floating point overflow in %s", strings.ToUpper(c.Fn))
	}
	return types.FloatValue(out), nil
}

func extreme(greatest bool) *expr.Func {
	return def(1, -1, func(c *expr.Call) (types.Type, error) {
		if err := expr.Unify(c, c.Args); err != nil {
			return types.Type{}, err
		}
		t := types.Null
		for _, a := range c.Args {
			if a.Type().Kind != types.KindNull {
				t = a.Type()
			}
		}
		if t.Kind == types.KindArray || t.Kind == types.KindStruct {
			return types.Type{}, fmt.Errorf("%s cannot order %s", strings.ToUpper(c.Fn), t)
		}
		return t, nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		best := a[0]
		for _, v := range a[1:] {
			r, ok := types.Compare(v, best)
			if !ok {
				return types.Value{}, expr.EvalErr("cannot compare %s with %s", v.T, best.T)
			}
			if v.T.Kind == types.KindFloat64 && math.IsNaN(v.F) {
				return v, nil // NaN wins, as in BigQuery
			}
			if (greatest && r > 0) || (!greatest && r < 0) {
				best = v
			}
		}
		return best, nil
	}, false)
}

func checkRand(c *expr.Call) (types.Type, error) { return types.Float64, nil }

func evalRand(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.FloatValue(rand.Float64()), nil
}

func checkGenerateUuid(c *expr.Call) (types.Type, error) { return types.String, nil }

func evalGenerateUuid(c *expr.Call, a []types.Value) (types.Value, error) {
	var u [16]byte
	if _, err := crand.Read(u[:]); err != nil {
		return types.Value{}, expr.EvalErr("GENERATE_UUID: %v", err)
	}
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	h := hex.EncodeToString(u[:])
	return types.StringValue(h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]), nil
}

// evalLog is LOG(x[, base]) by ZetaSQL's definition: ln(x)/ln(base) for a
// finite positive base, else NaN, and an error only for a result that is
// not finite from finite arguments (LOG(x, +inf) and LOG(-inf, 2) are NaN).
func evalLog(c *expr.Call, a []types.Value) (types.Value, error) {
	x := a[0].F
	if len(a) == 1 {
		r := math.Log(x)
		if !isFinite(r) && isFinite(x) {
			return types.Value{}, expr.EvalErr("LOG of a number that is not positive: %v", x)
		}
		return types.FloatValue(r), nil
	}
	base := a[1].F
	r := math.NaN()
	switch {
	case base == 2:
		r = math.Log2(x)
	case isFinite(base) && base > 0:
		r = math.Log(x) / math.Log(base)
	}
	if isFinite(r) {
		return types.FloatValue(snapLog(r, base, x)), nil
	}
	if isFinite(x) && isFinite(base) {
		if x <= 0 {
			return types.Value{}, expr.EvalErr("LOG of a number that is not positive: %v", x)
		}
		return types.Value{}, expr.EvalErr("LOG base must be positive and not 1, got %v", base)
	}
	return types.FloatValue(r), nil
}

func isFinite(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }

func evalPow(c *expr.Call, a []types.Value) (types.Value, error) {
	x, y := a[0].F, a[1].F
	r := math.Pow(x, y)
	if isFinite(r) || !isFinite(x) || !isFinite(y) {
		return types.FloatValue(r), nil // POW(0, -inf) is +inf, POW(-inf, 0.1) +inf
	}
	switch {
	case x == 0 && y < 0:
		return types.Value{}, expr.EvalErr("POW(0, %v): division by zero", y)
	case x < 0 && y != math.Trunc(y):
		return types.Value{}, expr.EvalErr("POW of a negative number to a non-integer power: POW(%v, %v)", x, y)
	}
	return types.Value{}, expr.EvalErr("floating point overflow: POW(%v, %v)", x, y)
}

func evalFloor(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.FloatValue(math.Floor(a[0].F)), nil
}

func evalCeil(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.FloatValue(math.Ceil(a[0].F)), nil
}

func evalSafeDivide(c *expr.Call, a []types.Value) (types.Value, error) {
	v, err := floatArith("/", a[0].F, a[1].F)
	if err != nil { // division by zero or overflow
		return types.NullOf(types.Float64), nil
	}
	return v, nil
}

func evalIeeeDivide(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.FloatValue(a[0].F / a[1].F), nil
}

func evalIsNan(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.BoolValue(math.IsNaN(a[0].F)), nil
}

func evalIsInf(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.BoolValue(math.IsInf(a[0].F, 0)), nil
}

func evalMod(c *expr.Call, a []types.Value) (types.Value, error) {
	if a[1].I == 0 {
		return types.Value{}, expr.EvalErr("division by zero: MOD(%d, %d)", a[0].I, a[1].I)
	}
	if a[1].I == -1 {
		return types.IntValue(0), nil
	}
	return types.IntValue(a[0].I % a[1].I), nil // the sign of the dividend
}

func evalDiv(c *expr.Call, a []types.Value) (types.Value, error) {
	x, y := a[0].I, a[1].I
	if y == 0 {
		return types.Value{}, expr.EvalErr("division by zero: DIV(%d, %d)", x, y)
	}
	if x == math.MinInt64 && y == -1 {
		return types.Value{}, expr.EvalErr("integer overflow: DIV(%d, %d)", x, y)
	}
	return types.IntValue(x / y), nil // rounds toward zero
}

// snapLog returns the exact integer n when base^n is exactly x (LOG10(1000)
// is 3, not 2.9999999999999996), else r.
func snapLog(r, base, x float64) float64 {
	if n := math.Round(r); math.Abs(n) < 300 && math.Pow(base, n) == x {
		return n
	}
	return r
}
