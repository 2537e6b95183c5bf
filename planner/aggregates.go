package planner

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"logq/types"
)

// Agg defines one aggregate function, as Func defines a scalar one: its
// arguments, the modifiers it takes inside the call, its type rule, its
// value over no rows and whether it may be an analytic function. The binder
// (aggCall, aggModifiers, windowCall), the decorrelation of scalar
// subqueries and the executor read this table; exec attaches the state that
// computes each one (exec/op_agg.go aggStates), and its registry test checks
// that the two name the same functions and that a golden case calls each.
type Agg struct {
	Name             string
	MinArgs, MaxArgs int
	Star             bool // COUNT(*)
	// The modifiers taken inside the call (any other is refused, named).
	Distinct    bool // f(DISTINCT x): each distinct value once
	IgnoreNulls bool // IGNORE NULLS / RESPECT NULLS
	OrderLimit  bool // ORDER BY key [DESC] … and LIMIT n
	// Window: it may take OVER (…).
	Window bool
	// Check types a call whose arguments are bound (call.Args; with
	// symbolic, parameters are not constants yet) and returns its result
	// type; its errors are refusals at the call.
	Check func(call *AggCall, symbolic bool) (types.Type, error)
	// Zero: over no rows the result is 0 (COUNT), not NULL.
	Zero bool
}

// Empty is the aggregate's value over no rows.
func (a *Agg) Empty(t types.Type) types.Value {
	if a.Zero {
		return types.IntValue(0)
	}
	return types.NullOf(t)
}

// aggs is every aggregate, by name.
var aggs = map[string]*Agg{}

func init() {
	for _, a := range []*Agg{
		{Name: "count", MinArgs: 1, MaxArgs: 1, Star: true, Distinct: true, Window: true, Zero: true, Check: countType},
		{Name: "countif", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Zero: true, Check: func(c *AggCall, _ bool) (types.Type, error) {
			return types.Int64, argKinds(c, "COUNTIF needs a BOOL", types.KindBool)
		}},
		// Computed exactly: the distinct values, counted.
		{Name: "approx_count_distinct", MinArgs: 1, MaxArgs: 1, Window: true, Zero: true, Check: func(c *AggCall, _ bool) (types.Type, error) {
			if t := c.Args[0].Type(); t.Has(types.KindJSON) {
				return types.Int64, fmt.Errorf("APPROX_COUNT_DISTINCT cannot group %s", t)
			}
			return types.Int64, nil
		}},
		{Name: "sum", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Check: func(c *AggCall, _ bool) (types.Type, error) {
			t := c.Args[0].Type()
			if !t.IsNumeric() && !t.IsDecimal() && t.Kind != types.KindInterval && t.Kind != types.KindNull {
				return t, fmt.Errorf("SUM needs a number, not %s", t)
			}
			if t.Kind == types.KindNull {
				return types.Int64, nil
			}
			return t, nil
		}},
		{Name: "avg", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Check: func(c *AggCall, s bool) (types.Type, error) {
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
		{Name: "any_value", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Check: func(c *AggCall, _ bool) (types.Type, error) {
			return c.Args[0].Type(), nil // any type: it keeps a value, it orders none
		}},
		{Name: "logical_and", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Check: boolAgg},
		{Name: "logical_or", MinArgs: 1, MaxArgs: 1, Distinct: true, Window: true, Check: boolAgg},
		{Name: "string_agg", MinArgs: 1, MaxArgs: 2, Distinct: true, OrderLimit: true, Window: true, Check: stringAggType},
		{Name: "array_agg", MinArgs: 1, MaxArgs: 1, Distinct: true, IgnoreNulls: true, OrderLimit: true, Window: true, Check: func(c *AggCall, _ bool) (types.Type, error) {
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
		{Name: "approx_quantiles", MinArgs: 2, MaxArgs: 2, Check: approxQuantilesType},
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
		{Name: "array_concat_agg", MinArgs: 1, MaxArgs: 1, OrderLimit: true, Window: true, Check: func(c *AggCall, _ bool) (types.Type, error) {
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
		aggs[a.Name] = a
	}
}

// LookupAgg returns the aggregate named name, or nil.
func LookupAgg(name string) *Agg { return aggs[name] }

// AggregateNames lists the aggregate functions, sorted (for tests and docs).
func AggregateNames() []string {
	out := make([]string, 0, len(aggs))
	for n := range aggs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// IsAggregate reports whether name is an aggregate function.
func IsAggregate(name string) bool { return aggs[name] != nil }

// arity says how many arguments an aggregate takes, for messages.
func (a *Agg) arity() string {
	switch {
	case a.MinArgs == a.MaxArgs:
		return fmt.Sprintf("%d argument(s)", a.MaxArgs)
	default:
		return fmt.Sprintf("%d to %d arguments", a.MinArgs, a.MaxArgs)
	}
}

// argKinds checks that the first argument is NULL or of kind k.
func argKinds(c *AggCall, msg string, k types.Kind) error {
	if t := c.Args[0].Type(); t.Kind != k && t.Kind != types.KindNull {
		return fmt.Errorf("%s, not %s", msg, t)
	}
	return nil
}

func countType(*AggCall, bool) (types.Type, error) { return types.Int64, nil }

// numericPair types CORR and COVAR_*: two numbers, a FLOAT64.
//
// NUMERIC and BIGNUMERIC pairs (an INT64 beside one is widened to it) are
// aggregated exactly; a FLOAT64 beside a decimal makes both FLOAT64.
func numericPair(c *AggCall, _ bool) (types.Type, error) {
	for _, a := range c.Args {
		if at := a.Type(); !at.IsNumeric() && !at.IsDecimal() && at.Kind != types.KindNull {
			return types.Float64, fmt.Errorf("%s needs numbers, not %s", strings.ToUpper(c.Fn), at)
		}
	}
	return types.Float64, unify(&Call{Fn: c.Fn}, c.Args) // a FLOAT64 literal beside a decimal is one
}

// bitType types BIT_AND, BIT_OR and BIT_XOR: an INT64, or of BYTES (ZetaSQL's)
// BYTES, whose second argument (mode => …) is the constant 'STRICT' (the
// default: values of unequal lengths are an error) or 'PAD' (the shorter
// are padded with zero bytes on the right).
func bitType(c *AggCall, _ bool) (types.Type, error) {
	up := strings.ToUpper(c.Fn)
	if c.Args[0].Type().Kind != types.KindBytes {
		if len(c.Args) == 2 {
			return types.Int64, fmt.Errorf("%s takes a mode only for BYTES", up)
		}
		return types.Int64, argKinds(c, up+" needs an INT64 or BYTES", types.KindInt64)
	}
	if len(c.Args) == 2 {
		m, ok := c.Args[1].(*Const)
		if !ok || m.V.T.Kind != types.KindString || m.V.Null || (m.V.S != "PAD" && m.V.S != "STRICT") {
			return types.Bytes, fmt.Errorf("the mode of %s is the constant 'PAD' or 'STRICT'", up)
		}
	}
	return types.Bytes, nil
}

// numericToFloat types the VAR/STDDEV family: a number (a NUMERIC or
// BIGNUMERIC is aggregated exactly), a FLOAT64.
func numericToFloat(c *AggCall, _ bool) (types.Type, error) {
	if t := c.Args[0].Type(); !t.IsNumeric() && !t.IsDecimal() && t.Kind != types.KindNull {
		return t, fmt.Errorf("%s needs a number, not %s", strings.ToUpper(c.Fn), t)
	}
	return types.Float64, nil
}

func orderable(c *AggCall, _ bool) (types.Type, error) {
	t := c.Args[0].Type()
	if !t.Orderable() {
		return t, fmt.Errorf("%s cannot order %s", strings.ToUpper(c.Fn), t)
	}
	return t, nil
}

func boolAgg(c *AggCall, _ bool) (types.Type, error) {
	return types.Bool, argKinds(c, strings.ToUpper(c.Fn)+" needs a BOOL", types.KindBool)
}

// stringAggType: STRING_AGG(s [, delimiter]), the delimiter a constant
// STRING, not NULL.
func stringAggType(c *AggCall, symbolic bool) (types.Type, error) {
	t := types.String
	if c.Args[0].Type().Kind == types.KindBytes {
		t = types.Bytes // STRING_AGG of BYTES joins bytes, with a BYTES delimiter
	} else if err := argKinds(c, "STRING_AGG needs a STRING or BYTES", types.KindString); err != nil {
		return types.String, err
	}
	if len(c.Args) == 2 {
		k, ok := c.Args[1].(*Const)
		if ok && k.V.T.Kind == types.KindNull {
			k, ok = &Const{V: types.NullOf(t)}, true
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
func approxTopCountType(c *AggCall, symbolic bool) (types.Type, error) {
	argT := c.Args[0].Type()
	k, ok := c.Args[1].(*Const)
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
func approxTopSumType(c *AggCall, symbolic bool) (types.Type, error) {
	w := c.Args[1].Type()
	switch {
	case w.Kind == types.KindNull:
		w = types.Int64
		a, err := coerceTo(c.Args[1], w)
		if err != nil {
			return w, err
		}
		c.Args[1] = a
	case w.Kind != types.KindInt64 && w.Kind != types.KindFloat64 && !w.IsDecimal():
		return w, fmt.Errorf("APPROX_TOP_SUM's weight must be INT64, NUMERIC, BIGNUMERIC or FLOAT64, not %s", w)
	}
	top, err := approxTopCountType(&AggCall{Fn: c.Fn, Args: []Expr{c.Args[0], c.Args[2]}}, symbolic)
	if err != nil {
		return top, errors.New(strings.Replace(err.Error(), "APPROX_TOP_COUNT", "APPROX_TOP_SUM", 1))
	}
	return types.ArrayOf(types.StructOf(top.Elem.Fields[0], types.Field{Name: "sum", Type: w})), nil
}

// approxQuantilesType: APPROX_QUANTILES(x, n), n a constant from 1 to
// 100000, is an ARRAY of n+1 of x's values.
func approxQuantilesType(c *AggCall, symbolic bool) (types.Type, error) {
	argT := c.Args[0].Type()
	k, ok := c.Args[1].(*Const)
	if !ok && !symbolic {
		return argT, errors.New("the number of quantiles must be a constant")
	}
	if ok && (k.V.T.Kind != types.KindInt64 || k.V.I < 1 || k.V.I > 100000) {
		return argT, errors.New("the number of quantiles must be an integer from 1 to 100000")
	}
	if !argT.IsNumeric() && !argT.IsDecimal() && !argT.IsTime() && argT.Kind != types.KindNull && argT.Kind != types.KindString && argT.Kind != types.KindBool {
		return argT, fmt.Errorf("APPROX_QUANTILES cannot order %s", argT)
	}
	return types.ArrayOf(argT), nil
}

// AggCall is one aggregate of an Aggregate node.
type AggCall struct {
	Fn       string // count, countif, sum, avg, min, max, approx_quantiles, …
	Args     []Expr // over the Aggregate's input
	Star     bool
	Distinct bool
	T        types.Type
	// Ranks, for approx_quantiles whose result is only read at constant
	// offsets, lists those offsets; the others are left NULL.
	Ranks []int
	// ARRAY_AGG and STRING_AGG modifiers (bind_aggmods.go): the ORDER BY
	// keys are the last len(Order) Args; HasLimit keeps the first Limit
	// values; IgnoreNulls drops NULL values.
	Order       []AggOrder
	Limit       int64
	HasLimit    bool
	IgnoreNulls bool
	// HAVING MAX (1) or HAVING MIN (-1) expr: the aggregate reads only the
	// rows whose expr equals its maximum (minimum) in the group. The expr
	// is the last of Args.
	Having int8
	// Filtered: agg(x WHERE cond) (ZetaSQL's) reads only the rows where
	// cond, the last of Args (after HAVING's), is TRUE.
	Filtered bool
}

// AggOrder is the direction of one ORDER BY key inside an aggregate call.
type AggOrder struct{ Desc, NullsFirst bool }
