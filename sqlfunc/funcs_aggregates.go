package sqlfunc

import (
	"errors"
	"fmt"
	"logq/expr"
	"logq/types"
	"strings"
)

func init() {
	for _, a := range []*expr.Agg{
		{Name: "count", MinArgs: 1, MaxArgs: 1, Star: true, Distinct: true, Window: true, Zero: true, Check: countType},
		{Name: "countif", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Zero: true, Check: func(c *expr.AggCall, _ bool) (types.Type, error) {
			return types.Int64, argKinds(c, "COUNTIF needs a BOOL", types.KindBool)
		}},
		// Computed exactly: the distinct values, counted.
		{Name: "approx_count_distinct", MinArgs: 1, MaxArgs: 1, Window: true, Zero: true, Check: func(c *expr.AggCall, _ bool) (types.Type, error) {
			if t := c.Args[0].Type(); t.Has(types.KindJSON) {
				return types.Int64, fmt.Errorf("APPROX_COUNT_DISTINCT cannot group %s", t)
			}
			return types.Int64, nil
		}},
		{Name: "sum", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Check: func(c *expr.AggCall, _ bool) (types.Type, error) {
			t := c.Args[0].Type()
			if !t.IsNumeric() && !t.IsDecimal() && t.Kind != types.KindInterval && t.Kind != types.KindNull {
				return t, fmt.Errorf("SUM needs a number, not %s", t)
			}
			if t.Kind == types.KindNull {
				return types.Int64, nil
			}
			return t, nil
		}},
		{Name: "avg", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Check: func(c *expr.AggCall, s bool) (types.Type, error) {
			if t := c.Args[0].Type(); t.IsDecimal() || t.Kind == types.KindInterval {
				return t, nil // the exact mean, rounded to the type's scale
			}
			return numericToFloat(c, s)
		}},
		{Name: "variance", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Check: numericToFloat},
		{Name: "var_samp", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Check: numericToFloat},
		{Name: "var_pop", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Check: numericToFloat},
		{Name: "stddev", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Check: numericToFloat},
		{Name: "stddev_samp", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Check: numericToFloat},
		{Name: "stddev_pop", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Check: numericToFloat},
		{Name: "min", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Check: orderable},
		{Name: "max", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Check: orderable},
		{Name: "any_value", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Check: func(c *expr.AggCall, _ bool) (types.Type, error) {
			return c.Args[0].Type(), nil // any type: it keeps a value, it orders none
		}},
		{Name: "logical_and", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Check: boolAgg},
		{Name: "logical_or", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Check: boolAgg},
		{Name: "string_agg", MinArgs: 1, MaxArgs: 2, Distinct: true, OrderLimit: true, Window: true, Check: stringAggType},
		{Name: "array_agg", MinArgs: 1, MaxArgs: 1, Distinct: true, IgnoreNulls: true, OrderLimit: true, Window: true, Check: func(c *expr.AggCall, _ bool) (types.Type, error) {
			t := c.Args[0].Type()
			if t.Kind == types.KindArray {
				return t, errors.New("ARRAY_AGG of an ARRAY is not supported (an array cannot contain an array)")
			}
			if t.Kind == types.KindNull {
				t = types.Int64
			}
			return types.ArrayOf(t), nil
		}},
		{Name: "approx_top_count", MinArgs: 2, MaxArgs: 2, Window: true, Check: approxTopCountType},
		{Name: "approx_top_sum", MinArgs: 3, MaxArgs: 3, Window: true, Check: approxTopSumType},
		{Name: "approx_quantiles", MinArgs: 2, MaxArgs: 2, Distinct: true, Check: approxQuantilesType},
		{Name: "covar_pop", MinArgs: 2, MaxArgs: 2, Window: true, Check: numericPair},
		{Name: "covar_samp", MinArgs: 2, MaxArgs: 2, Window: true, Check: numericPair},
		{Name: "corr", MinArgs: 2, MaxArgs: 2, Window: true, Check: numericPair},
		{Name: "bit_and", MinArgs: 1, MaxArgs: 2, Distinct: true, Window: true, Check: bitType},
		{Name: "bit_or", MinArgs: 1, MaxArgs: 2, Distinct: true, Window: true, Check: bitType},
		{Name: "bit_xor", MinArgs: 1, MaxArgs: 2, Distinct: true, Window: true, Check: bitType},
		// HLL++ sketches (funcs_hll.go).
		{Name: "hll_count.init", MinArgs: 1, MaxArgs: 2, Window: true, Check: hllInitType},
		{Name: "hll_count.merge", MinArgs: 1, MaxArgs: 1, Window: true, Zero: true, Check: hllMergeType},
		{Name: "hll_count.merge_partial", MinArgs: 1, MaxArgs: 1, Window: true, Check: hllMergeType},
		// KLL quantiles sketches (funcs_kll.go).
		{Name: "kll_quantiles.init_int64", MinArgs: 1, MaxArgs: 3, Window: true, Check: kllInitType},
		{Name: "kll_quantiles.init_float64", MinArgs: 1, MaxArgs: 3, Window: true, Check: kllInitType},
		{Name: "kll_quantiles.merge_partial", MinArgs: 1, MaxArgs: 1, Window: true, Check: kllMergeType},
		{Name: "kll_quantiles.merge_int64", MinArgs: 2, MaxArgs: 2, Window: true, Check: kllMergeType},
		{Name: "kll_quantiles.merge_float64", MinArgs: 2, MaxArgs: 2, Window: true, Check: kllMergeType},
		{Name: "kll_quantiles.merge_point_int64", MinArgs: 2, MaxArgs: 2, Window: true, Check: kllMergeType},
		{Name: "kll_quantiles.merge_point_float64", MinArgs: 2, MaxArgs: 2, Window: true, Check: kllMergeType},
		{Name: "array_concat_agg", MinArgs: 1, MaxArgs: 1, OrderLimit: true, Window: true, Check: func(c *expr.AggCall, _ bool) (types.Type, error) {
			t := c.Args[0].Type()
			switch t.Kind {
			case types.KindArray:
				return t, nil
			case types.KindNull: // a field not seen yet, or an untyped NULL
				return types.ArrayOf(types.Int64), nil
			}
			return t, fmt.Errorf("ARRAY_CONCAT_AGG needs an ARRAY, not %s", t)
		}},
	} {
		expr.RegisterAgg(a)
	}
}

// argKinds checks that the first argument is NULL or of kind k.
func argKinds(c *expr.AggCall, msg string, k types.Kind) error {
	if t := c.Args[0].Type(); t.Kind != k && t.Kind != types.KindNull {
		return fmt.Errorf("%s, not %s", msg, t)
	}
	return nil
}

func countType(*expr.AggCall, bool) (types.Type, error) { return types.Int64, nil }

// numericPair types CORR and COVAR_*: two numbers, a FLOAT64.
//
// NUMERIC and BIGNUMERIC pairs (an INT64 beside one is widened to it) are
// aggregated exactly; a FLOAT64 beside a decimal makes both FLOAT64.
func numericPair(c *expr.AggCall, _ bool) (types.Type, error) {
	for _, a := range c.Args {
		if at := a.Type(); !at.IsNumeric() && !at.IsDecimal() && at.Kind != types.KindNull {
			return types.Float64, fmt.Errorf("%s needs numbers, not %s", strings.ToUpper(c.Fn), at)
		}
	}
	return types.Float64, expr.Unify(&expr.Call{Fn: c.Fn}, c.Args) // a FLOAT64 literal beside a decimal is one
}

// bitType types BIT_AND, BIT_OR and BIT_XOR: an INT64, or of BYTES (ZetaSQL's)
// BYTES, whose second argument (mode => …) is the constant 'STRICT' (the
// default: values of unequal lengths are an error) or 'PAD' (the shorter
// are padded with zero bytes on the right).
func bitType(c *expr.AggCall, _ bool) (types.Type, error) {
	up := strings.ToUpper(c.Fn)
	if c.Args[0].Type().Kind != types.KindBytes {
		if len(c.Args) == 2 {
			return types.Int64, fmt.Errorf("%s takes a mode only for BYTES", up)
		}
		return types.Int64, argKinds(c, up+" needs an INT64 or BYTES", types.KindInt64)
	}
	if len(c.Args) == 2 {
		m, ok := c.Args[1].(*expr.Const)
		if !ok || m.V.T.Kind != types.KindString || m.V.Null || (m.V.S != "PAD" && m.V.S != "STRICT") {
			return types.Bytes, fmt.Errorf("the mode of %s is the constant 'PAD' or 'STRICT'", up)
		}
	}
	return types.Bytes, nil
}

// numericToFloat types the VAR/STDDEV family: a number (a NUMERIC or
// BIGNUMERIC is aggregated exactly), a FLOAT64.
func numericToFloat(c *expr.AggCall, _ bool) (types.Type, error) {
	if t := c.Args[0].Type(); !t.IsNumeric() && !t.IsDecimal() && t.Kind != types.KindNull {
		return t, fmt.Errorf("%s needs a number, not %s", strings.ToUpper(c.Fn), t)
	}
	return types.Float64, nil
}

func orderable(c *expr.AggCall, _ bool) (types.Type, error) {
	t := c.Args[0].Type()
	if !t.Orderable() {
		return t, fmt.Errorf("%s cannot order %s", strings.ToUpper(c.Fn), t)
	}
	return t, nil
}

func boolAgg(c *expr.AggCall, _ bool) (types.Type, error) {
	return types.Bool, argKinds(c, strings.ToUpper(c.Fn)+" needs a BOOL", types.KindBool)
}

// stringAggType: STRING_AGG(s [, delimiter]), the delimiter a constant
// STRING, not NULL.
func stringAggType(c *expr.AggCall, symbolic bool) (types.Type, error) {
	t := types.String
	if c.Args[0].Type().Kind == types.KindBytes {
		t = types.Bytes // STRING_AGG of BYTES joins bytes, with a BYTES delimiter
	} else if err := argKinds(c, "STRING_AGG needs a STRING or BYTES", types.KindString); err != nil {
		return types.String, err
	}
	if len(c.Args) == 2 {
		k, ok := c.Args[1].(*expr.Const)
		if ok && k.V.T.Kind == types.KindNull {
			k, ok = &expr.Const{V: types.NullOf(t)}, true
		}
		if !ok && !symbolic {
			return t, fmt.Errorf("the delimiter of STRING_AGG must be a constant %s", t)
		}
		if ok && k.V.T.Kind != t.Kind {
			return t, fmt.Errorf("the delimiter of STRING_AGG must be a %s, not %s", t, k.V.T)
		}
		if ok && k.V.Null && !symbolic { // as ZetaSQL: Argument 2 to STRING_AGG must be non-NULL
			return t, fmt.Errorf("the delimiter of STRING_AGG must not be NULL")
		}
	}
	return t, nil
}

// approxTopCountType: APPROX_TOP_COUNT(x, n), n a constant from 1 to
// 100000, is ARRAY<STRUCT<value, count INT64>>.
func approxTopCountType(c *expr.AggCall, symbolic bool) (types.Type, error) {
	argT := c.Args[0].Type()
	k, ok := c.Args[1].(*expr.Const)
	if !ok && !symbolic {
		return argT, errors.New("the number of APPROX_TOP_COUNT values must be a constant")
	}
	if ok && (k.V.T.Kind != types.KindInt64 || k.V.Null || k.V.I < 1 || k.V.I > 100000) {
		return argT, errors.New("the number of APPROX_TOP_COUNT values must be an integer from 1 to 100000")
	}
	if argT.Kind == types.KindArray || argT.Has(types.KindJSON) {
		return argT, fmt.Errorf("APPROX_TOP_COUNT cannot group %s", argT)
	}
	if argT.Kind == types.KindNull {
		argT = types.Int64
	}
	return types.ArrayOf(types.StructOf(types.Field{Name: "value", Type: argT}, types.Field{Name: "count", Type: types.Int64})), nil
}

// approxTopSumType: APPROX_TOP_SUM(x, weight, n) is APPROX_TOP_COUNT's
// shape with the weights' sum, of the weight's type (INT64, NUMERIC,
// BIGNUMERIC or FLOAT64), in place of the count.
func approxTopSumType(c *expr.AggCall, symbolic bool) (types.Type, error) {
	w := c.Args[1].Type()
	switch {
	case w.Kind == types.KindNull:
		w = types.Int64
		a, err := expr.CoerceTo(c.Args[1], w)
		if err != nil {
			return w, err
		}
		c.Args[1] = a
	case w.Kind != types.KindInt64 && w.Kind != types.KindFloat64 && !w.IsDecimal():
		return w, fmt.Errorf("APPROX_TOP_SUM's weight must be INT64, NUMERIC, BIGNUMERIC or FLOAT64, not %s", w)
	}
	top, err := approxTopCountType(&expr.AggCall{Fn: c.Fn, Args: []expr.Expr{c.Args[0], c.Args[2]}}, symbolic)
	if err != nil {
		return top, errors.New(strings.Replace(err.Error(), "APPROX_TOP_COUNT", "APPROX_TOP_SUM", 1))
	}
	return types.ArrayOf(types.StructOf(top.Elem.Fields[0], types.Field{Name: "sum", Type: w})), nil
}

// approxQuantilesType: APPROX_QUANTILES(x, n), n a constant from 1 to
// 100000, is an ARRAY of n+1 of x's values.
func approxQuantilesType(c *expr.AggCall, symbolic bool) (types.Type, error) {
	argT := c.Args[0].Type()
	k, ok := c.Args[1].(*expr.Const)
	if !ok && !symbolic {
		return argT, errors.New("the number of quantiles must be a constant")
	}
	if ok && (k.V.T.Kind != types.KindInt64 || k.V.I < 1 || k.V.I > 100000) {
		return argT, errors.New("the number of quantiles must be an integer from 1 to 100000")
	}
	if !argT.IsNumeric() && !argT.IsDecimal() && !argT.IsTime() && argT.Kind != types.KindNull && argT.Kind != types.KindString && argT.Kind != types.KindBool && argT.Kind != types.KindInterval {
		return argT, fmt.Errorf("APPROX_QUANTILES cannot order %s", argT)
	}
	return types.ArrayOf(argT), nil
}
