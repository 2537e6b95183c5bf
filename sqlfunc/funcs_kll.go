package sqlfunc

import (
	"fmt"
	"strings"

	"logq/expr"
	"logq/kll"
	"logq/types"
)

// The KLL_QUANTILES functions: quantile sketches (package kll, BigQuery's
// serialized form), made by the aggregates INIT_INT64 and INIT_FLOAT64,
// combined by MERGE_PARTIAL (a sketch), MERGE_INT64 and MERGE_FLOAT64 (the
// quantiles of the merge) and MERGE_POINT_INT64 and MERGE_POINT_FLOAT64 (one
// quantile of it), and read by the scalar EXTRACT_INT64, EXTRACT_FLOAT64,
// EXTRACT_POINT_INT64 and EXTRACT_POINT_FLOAT64. The aggregates are in the
// aggregates table (funcs_aggregates.go); their states in
// exec/op_agg_kll.go. Argument errors have ZetaSQL's words ("Argument 2 to
// KLL_QUANTILES.EXTRACT_INT64 must be at least 1").

// kllMaxQuantiles is the largest num_quantiles.
const kllMaxQuantiles = 100000

func registerKLLFuncs() {
	for _, f := range []struct {
		name  string
		vt    kll.ValueType
		point bool
	}{
		{"kll_quantiles.extract_int64", kll.Int64, false},
		{"kll_quantiles.extract_float64", kll.Float64, false},
		{"kll_quantiles.extract_point_int64", kll.Int64, true},
		{"kll_quantiles.extract_point_float64", kll.Float64, true},
	} {
		vt, point := f.vt, f.point
		expr.Register(f.name, def(2, 2, func(c *expr.Call) (types.Type, error) {
			return checkKLLExtract(c, vt, point)
		}, func(c *expr.Call, a []types.Value) (types.Value, error) {
			return evalKLLExtract(c, a, vt, point)
		}, false))
	}
}

// kllResultType is the type of the values a sketch of vt gives.
func kllResultType(vt kll.ValueType) types.Type {
	if vt == kll.Float64 {
		return types.Float64
	}
	return types.Int64
}

// checkKLLExtract types EXTRACT_*(sketch, num_quantiles) (an ARRAY) and
// EXTRACT_POINT_*(sketch, phi): a constant second argument is checked
// here, any other when it is evaluated.
func checkKLLExtract(c *expr.Call, vt kll.ValueType, point bool) (types.Type, error) {
	up := strings.ToUpper(c.Fn)
	a, err := expr.CoerceTo(c.Args[0], types.Bytes)
	if err != nil {
		return types.Type{}, fmt.Errorf("argument 1 of %s: %w", up, err)
	}
	c.Args[0] = a
	elem := kllResultType(vt)
	if point {
		return elem, kllPhiArg(c.Args, up, false, false)
	}
	return types.ArrayOf(elem), kllQuantilesArg(c.Args, up, false, false)
}

// kllArg coerces argument 2 of a KLL_QUANTILES call to t and returns it
// when it is a constant (nil otherwise); an aggregate's (needConst) must be
// one unless the call is typed symbolically.
func kllArg(args []expr.Expr, up string, t types.Type, needConst, symbolic bool) (*expr.Const, error) {
	a, err := expr.CoerceTo(args[1], t)
	if err != nil {
		return nil, fmt.Errorf("Argument 2 to %s must be %s, not %s", up, t, args[1].Type())
	}
	args[1] = a
	k, ok := a.(*expr.Const)
	switch {
	case !ok && needConst && !symbolic:
		return nil, fmt.Errorf("Argument 2 to %s must be a literal or query parameter", up)
	case ok && k.V.Null:
		return nil, fmt.Errorf("Argument 2 to %s must be non-NULL", up)
	}
	return k, nil
}

// kllQuantilesArg checks num_quantiles: 1 … 100000.
func kllQuantilesArg(args []expr.Expr, up string, needConst, symbolic bool) error {
	k, err := kllArg(args, up, types.Int64, needConst, symbolic)
	if err != nil || k == nil {
		return err
	}
	return kllCheckQuantiles(up, k.V.I)
}

// kllCheckQuantiles checks a num_quantiles.
func kllCheckQuantiles(up string, q int64) error {
	switch {
	case q < 1:
		return fmt.Errorf("Argument 2 to %s must be at least 1", up)
	case q > kllMaxQuantiles:
		return fmt.Errorf("Argument 2 to %s must be at most %d", up, kllMaxQuantiles)
	}
	return nil
}

// kllPhiArg checks phi: 0 … 1 (NaN is not).
func kllPhiArg(args []expr.Expr, up string, needConst, symbolic bool) error {
	k, err := kllArg(args, up, types.Float64, needConst, symbolic)
	if err != nil || k == nil {
		return err
	}
	return kllCheckPhi(up, k.V.F)
}

// kllCheckPhi checks a phi.
func kllCheckPhi(up string, phi float64) error {
	if !(phi >= 0 && phi <= 1) {
		return fmt.Errorf("Argument 2 to %s must be between 0 and 1", up)
	}
	return nil
}

// evalKLLExtract reads one sketch: its quantiles (an ARRAY of
// num_quantiles+1 values) or its phi-quantile. An empty sketch gives NULL.
func evalKLLExtract(c *expr.Call, a []types.Value, vt kll.ValueType, point bool) (types.Value, error) {
	up := strings.ToUpper(c.Fn)
	var err error
	if point {
		err = kllCheckPhi(up, a[1].F)
	} else {
		err = kllCheckQuantiles(up, a[1].I)
	}
	if err != nil {
		return types.Value{}, expr.EvalErr("%s", err)
	}
	s, err := KLLParse(up, a[0].S, vt)
	if err != nil {
		return types.Value{}, err
	}
	if point {
		return KLLPoint(s, a[1].F), nil
	}
	return KLLQuantiles(s, int(a[1].I)), nil
}

// KLLParse reads a sketch given to function up, which reads sketches of
// vt (0: either): an invalid sketch, or one of the other type, is an
// evaluation error.
func KLLParse(up string, b string, vt kll.ValueType) (*kll.Sketch, error) {
	s, err := kll.Parse([]byte(b))
	if err != nil {
		return nil, expr.EvalErr("Invalid sketch in %s: %v", up, err)
	}
	if vt != 0 && s.ValueType() != vt {
		return nil, expr.EvalErr("%s needs a sketch of %s values, not one of %s values (made by KLL_QUANTILES.INIT_%s)", up, vt, s.ValueType(), s.ValueType())
	}
	return s, nil
}

// KLLQuantiles is a sketch's q-quantiles as an ARRAY; NULL for an empty
// sketch.
func KLLQuantiles(s *kll.Sketch, q int) types.Value {
	elem := kllResultType(s.ValueType())
	keys := s.Quantiles(q)
	if keys == nil {
		return types.NullOf(types.ArrayOf(elem))
	}
	out := make([]types.Value, len(keys))
	for i, k := range keys {
		out[i] = kllValue(s.ValueType(), k)
	}
	return types.ArrayValue(elem, out)
}

// KLLPoint is a sketch's phi-quantile; NULL for an empty sketch.
func KLLPoint(s *kll.Sketch, phi float64) types.Value {
	k, ok := s.Quantile(phi)
	if !ok {
		return types.NullOf(kllResultType(s.ValueType()))
	}
	return kllValue(s.ValueType(), k)
}

func kllValue(vt kll.ValueType, k kll.Key) types.Value {
	if vt == kll.Float64 {
		return types.FloatValue(k.Float64())
	}
	return types.IntValue(k.Int64())
}

// kllInitType types INIT_INT64 and INIT_FLOAT64(input [, precision
// [, weight => w]]): an INT64 input (FLOAT64: any number, as a FLOAT64), a
// constant precision from 1 to 100000, an INT64 weight; a sketch (BYTES).
func kllInitType(c *expr.AggCall, symbolic bool) (types.Type, error) {
	up := strings.ToUpper(c.Fn)
	want := types.Int64
	if c.Fn == "kll_quantiles.init_float64" {
		want = types.Float64
	}
	x, err := expr.CoerceTo(c.Args[0], want)
	if err != nil {
		return types.Bytes, fmt.Errorf("%s takes %s values, not %s", up, want, c.Args[0].Type())
	}
	c.Args[0] = x
	if len(c.Args) >= 2 {
		k, err := kllArg(c.Args, up, types.Int64, true, symbolic)
		if err != nil {
			return types.Bytes, err
		}
		if k != nil && (k.V.I < kll.MinPrecision || k.V.I > kll.MaxPrecision) {
			return types.Bytes, fmt.Errorf("Argument 2 to %s must be between %d and %d", up, kll.MinPrecision, kll.MaxPrecision)
		}
	}
	if len(c.Args) == 3 {
		w, err := expr.CoerceTo(c.Args[2], types.Int64)
		if err != nil {
			return types.Bytes, fmt.Errorf("the weight of %s must be an INT64, not %s", up, c.Args[2].Type())
		}
		c.Args[2] = w
	}
	return types.Bytes, nil
}

// kllMergeType types MERGE_PARTIAL(sketch) (a sketch), MERGE_INT64 and
// MERGE_FLOAT64(sketch, num_quantiles) (an ARRAY) and MERGE_POINT_INT64
// and MERGE_POINT_FLOAT64(sketch, phi); the second argument is a constant.
func kllMergeType(c *expr.AggCall, symbolic bool) (types.Type, error) {
	up := strings.ToUpper(c.Fn)
	if t := c.Args[0].Type(); t.Kind != types.KindBytes && t.Kind != types.KindNull {
		return types.Bytes, fmt.Errorf("%s needs a sketch (BYTES), not %s", up, t)
	}
	elem := types.Int64
	if strings.HasSuffix(c.Fn, "_float64") {
		elem = types.Float64
	}
	switch {
	case c.Fn == "kll_quantiles.merge_partial":
		return types.Bytes, nil
	case strings.HasPrefix(c.Fn, "kll_quantiles.merge_point_"):
		return elem, kllPhiArg(c.Args, up, true, symbolic)
	}
	return types.ArrayOf(elem), kllQuantilesArg(c.Args, up, true, symbolic)
}
