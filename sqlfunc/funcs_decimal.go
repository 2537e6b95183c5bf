package sqlfunc

import (
	"fmt"
	"math/big"
	"strings"

	"logq/expr"
	"logq/types"
)

// NUMERIC and BIGNUMERIC in the number functions. Each function keeps its
// one definition for INT64 and FLOAT64 (funcs_ops.go, funcs_math.go,
// funcs_trig.go); overloadDecimal gives it a decimal form. A call whose
// number arguments include a decimal and no FLOAT64 is computed exactly in
// their decimal supertype (types/decimal.go, types/decimal_math.go); a
// decimal beside a FLOAT64 is coerced to FLOAT64 first, as BigQuery
// coerces it.
func registerDecimalFuncs() {
	for name, t := range map[string]types.Type{"parse_numeric": types.Numeric, "parse_bignumeric": types.BigNumeric} {
		expr.Register(name, def(1, 1, func(c *expr.Call) (types.Type, error) {
			_, err := sig(types.KindString, types.KindString)(c)
			return t, err
		}, func(c *expr.Call, a []types.Value) (types.Value, error) {
			v, err := types.ParseDecimalLenient(t, a[0].S)
			if err != nil {
				return types.Value{}, expr.EvalErr("%s: %v", strings.ToUpper(c.Fn), err)
			}
			return v, nil
		}, false))
	}
	arith := func(c *expr.Call, a []types.Value) (types.Value, error) {
		return decimalCallResult(c, a)(types.DecimalArith(c.T, c.Fn, a[0], a[1]))
	}
	for _, op := range []string{"+", "-", "*", "/"} {
		overloadDecimal(op, -1, arith)
	}
	for name, op := range map[string]string{"safe_add": "+", "safe_subtract": "-", "safe_multiply": "*", "safe_divide": "/"} {
		overloadDecimal(name, -1, func(c *expr.Call, a []types.Value) (types.Value, error) {
			if v, err := types.DecimalArith(c.T, op, a[0], a[1]); err == nil {
				return v, nil
			}
			return types.NullOf(c.T), nil
		})
	}
	neg := func(c *expr.Call, a []types.Value) (types.Value, error) {
		return decimalResult(types.DecimalArith(c.T, "-", types.DecimalFromInt(c.T, 0), a[0]))
	}
	overloadDecimal("neg", -1, neg)
	overloadDecimal("safe_negate", -1, func(c *expr.Call, a []types.Value) (types.Value, error) {
		if v, err := neg(c, a); err == nil {
			return v, nil
		}
		return types.NullOf(c.T), nil
	})
	overloadDecimal("abs", -1, func(c *expr.Call, a []types.Value) (types.Value, error) {
		if a[0].Scaled().Sign() < 0 {
			return neg(c, a)
		}
		return a[0], nil
	})
	overloadDecimal("sign", -1, func(c *expr.Call, a []types.Value) (types.Value, error) {
		return types.DecimalFromInt(c.T, int64(a[0].Scaled().Sign())), nil
	})
	roundTo := func(mode string) func(c *expr.Call, a []types.Value) (types.Value, error) {
		return func(c *expr.Call, a []types.Value) (types.Value, error) {
			digits := int64(0)
			if len(a) > 1 {
				digits = a[1].I
			}
			halfEven := false
			if len(a) > 2 { // ROUND's rounding mode, for decimals only
				switch strings.ToUpper(a[2].S) {
				case "ROUND_HALF_EVEN":
					halfEven = true
				case "ROUND_HALF_AWAY_FROM_ZERO":
				default:
					return types.Value{}, expr.EvalErr("invalid rounding mode %q (ROUND_HALF_AWAY_FROM_ZERO or ROUND_HALF_EVEN)", a[2].S)
				}
			}
			return decimalResult(types.DecimalRound(a[0], digits, mode, halfEven))
		}
	}
	expr.Registered("round").MaxArgs = 3 // the third only for a decimal: the FLOAT64 form refuses it
	overloadDecimal("round", 1, roundTo("round"), types.Int64, types.String)
	overloadDecimal("trunc", 1, roundTo("trunc"))
	overloadDecimal("floor", 1, roundTo("floor"))
	overloadDecimal("ceil", 1, roundTo("ceil"))
	// MOD has the dividend's sign; DIV truncates toward zero. Both scaled
	// integers have the same scale, so their remainder is exact.
	overloadDecimal("mod", -1, func(c *expr.Call, a []types.Value) (types.Value, error) {
		y := a[1].Scaled()
		if y.Sign() == 0 {
			return decimalCallResult(c, a)(types.Value{}, types.ErrDecimalDivisionByZero)
		}
		return decimalResult(types.DecimalValue(c.T, new(big.Int).Rem(a[0].Scaled(), y)))
	})
	overloadDecimal("div", -1, func(c *expr.Call, a []types.Value) (types.Value, error) {
		y := a[1].Scaled()
		if y.Sign() == 0 {
			return decimalCallResult(c, a)(types.Value{}, types.ErrDecimalDivisionByZero)
		}
		return decimalResult(types.DecimalFromBigInt(c.T, new(big.Int).Quo(a[0].Scaled(), y)))
	})
	// SQRT, EXP, LN, LOG10, LOG and POW, exact and rounded to the scale as
	// BigQuery rounds them (types/decimal_math.go); LOG of one argument is LN.
	for name, f := range map[string]func(types.Value) (types.Value, error){
		"sqrt": types.DecimalSqrt, "exp": types.DecimalExp, "ln": types.DecimalLn, "log10": types.DecimalLog10,
	} {
		overloadDecimal(name, -1, func(c *expr.Call, a []types.Value) (types.Value, error) {
			return decimalCallResult(c, a)(f(a[0]))
		})
	}
	overloadDecimal("log", -1, func(c *expr.Call, a []types.Value) (types.Value, error) {
		if len(a) == 1 {
			return decimalCallResult(c, a)(types.DecimalLn(a[0]))
		}
		return decimalCallResult(c, a)(types.DecimalLog(a[0], a[1]))
	})
	overloadDecimal("pow", -1, func(c *expr.Call, a []types.Value) (types.Value, error) {
		return decimalCallResult(c, a)(types.DecimalPow(a[0], a[1]))
	})
}

// decimalType is the decimal supertype of the number arguments args, and
// whether the call is a decimal one: some argument is NUMERIC or
// BIGNUMERIC and none is a FLOAT64 but constants (literals, which coerce).
func decimalType(args []expr.Expr) (types.Type, bool) {
	t, dec := types.Null, false
	for _, a := range args {
		at := a.Type()
		switch {
		case at.Kind == types.KindFloat64 && !expr.IsFloatLiteral(a): // a literal coerces
			return types.Type{}, false
		case at.Kind == types.KindFloat64:
		case at.IsDecimal():
			if !dec || at.Kind == types.KindBigNumeric {
				t = at
			}
			dec = true
		}
	}
	return t, dec
}

// numberArgs is the leading nums arguments of c (all of them when nums < 0).
func numberArgs(c *expr.Call, nums int) []expr.Expr {
	if nums < 0 || nums > len(c.Args) {
		return c.Args
	}
	return c.Args[:nums]
}

// overloadDecimal gives the registered function name its decimal form:
// its leading nums number arguments (all when nums < 0) coerce to their
// decimal supertype, which is the call's type, and eval computes it; any
// further argument is of the type rest gives it, else an INT64 (ROUND's
// and TRUNC's digits). Decimals beside a FLOAT64 that is no literal become
// FLOAT64 and the function's own rule applies.
func overloadDecimal(name string, nums int, eval func(c *expr.Call, a []types.Value) (types.Value, error), rest ...types.Type) {
	expr.Overload(name, func(c *expr.Call) (types.Type, bool, error) {
		args := numberArgs(c, nums)
		t, ok := decimalType(args)
		if !ok {
			return types.Type{}, false, decimalsToFloat(args)
		}
		for i, a := range c.Args {
			want := t
			if i >= len(args) {
				want = types.Int64
				if j := i - len(args); j < len(rest) {
					want = rest[j]
				}
			}
			x, err := expr.CoerceTo(a, want)
			if err != nil {
				return types.Type{}, true, fmt.Errorf("argument %d of %s: %w", i+1, expr.DescribeFn(c.Fn), err)
			}
			c.Args[i] = x
		}
		return t, true, nil
	}, func(c *expr.Call) bool { return c.T.IsDecimal() }, eval)
}

// decimalsToFloat coerces the decimal arguments among args to FLOAT64 (a
// call that mixes them with a FLOAT64 is a FLOAT64 one).
func decimalsToFloat(args []expr.Expr) error {
	for i, a := range args {
		if a.Type().IsDecimal() {
			x, err := expr.CoerceTo(a, types.Float64)
			if err != nil {
				return err
			}
			args[i] = x
		}
	}
	return nil
}

// decimalResult turns a decimal computation's error into an evaluation
// error (NULL under SAFE.); decimalCallResult also names the call.
func decimalResult(v types.Value, err error) (types.Value, error) {
	if err != nil {
		return types.Value{}, expr.EvalErr("%v", err)
	}
	return v, nil
}

// decimalCallResult is decimalResult for the call c of arguments a, whose
// error names the call ("division by zero: POW(0, -1)", an operator's as
// the INT64 and FLOAT64 ones write it: "division by zero: 1 / 0").
func decimalCallResult(c *expr.Call, a []types.Value) func(types.Value, error) (types.Value, error) {
	return func(v types.Value, err error) (types.Value, error) {
		if err == nil {
			return v, nil
		}
		args := make([]string, len(a))
		for i, x := range a {
			args[i] = x.String()
		}
		if len(a) == 2 && strings.Trim(c.Fn, "+-*/") == "" {
			return types.Value{}, expr.EvalErr("%v: %s %s %s", err, args[0], c.Fn, args[1])
		}
		return types.Value{}, expr.EvalErr("%v: %s(%s)", err, strings.ToUpper(c.Fn), strings.Join(args, ", "))
	}
}
