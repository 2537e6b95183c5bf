package sqlfunc

import (
	"errors"
	"fmt"

	"logq/expr"
	"logq/hll"
	"logq/types"
)

// The HLL_COUNT functions: sketches of the distinct values of a column
// (package hll), made by the aggregate HLL_COUNT.INIT, combined by
// HLL_COUNT.MERGE_PARTIAL (a sketch) and HLL_COUNT.MERGE (its estimate),
// and read by the scalar HLL_COUNT.EXTRACT. The aggregates are in the
// aggregates table (aggregates.go); their states in exec/op_agg_hll.go.

func registerHLLFuncs() {
	expr.Register("hll_count.extract", def(1, 1, sig(types.KindBytes, types.KindInt64), func(c *expr.Call, a []types.Value) (types.Value, error) {
		if a[0].Null {
			return types.IntValue(0), nil // as ZetaSQL: no sketch counts nothing
		}
		s, err := hll.Parse([]byte(a[0].S))
		if err != nil {
			return types.Value{}, expr.EvalErr("Invalid sketch in HLL_COUNT.EXTRACT")
		}
		return types.IntValue(s.Estimate()), nil
	}, true))
}

// hllInitType types HLL_COUNT.INIT(x [, precision]): x an INT64, NUMERIC,
// BIGNUMERIC, STRING or BYTES, the precision a constant from 10 to 24; a
// sketch (BYTES).
func hllInitType(c *expr.AggCall, symbolic bool) (types.Type, error) {
	switch t := c.Args[0].Type(); t.Kind {
	case types.KindInt64, types.KindNumeric, types.KindBigNumeric, types.KindString, types.KindBytes, types.KindNull:
	default:
		return types.Bytes, fmt.Errorf("HLL_COUNT.INIT counts INT64, NUMERIC, BIGNUMERIC, STRING or BYTES values, not %s", t)
	}
	if len(c.Args) == 2 {
		k, ok := c.Args[1].(*expr.Const)
		if !ok && !symbolic {
			return types.Bytes, errors.New("the precision of HLL_COUNT.INIT must be a constant")
		}
		if ok && (k.V.T.Kind != types.KindInt64 || k.V.Null || k.V.I < hll.MinPrecision || k.V.I > hll.MaxPrecision) {
			return types.Bytes, fmt.Errorf("the precision of HLL_COUNT.INIT must be an integer from %d to %d", hll.MinPrecision, hll.MaxPrecision)
		}
	}
	return types.Bytes, nil
}

// hllMergeType types HLL_COUNT.MERGE (an INT64) and MERGE_PARTIAL (a
// sketch) of sketches.
func hllMergeType(c *expr.AggCall, _ bool) (types.Type, error) {
	res := types.Bytes
	if c.Fn == "hll_count.merge" {
		res = types.Int64
	}
	return res, argKinds(c, "HLL_COUNT.MERGE needs a sketch (BYTES)", types.KindBytes)
}
