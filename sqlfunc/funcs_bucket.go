package sqlfunc

import (
	"fmt"
	"sort"

	"logq/expr"
	"logq/types"
)

// RANGE_BUCKET(point, boundaries): how many boundaries are at or below
// point (the 0-based position of its upper bound); NULL for a NULL or NaN
// point; an error for a NULL or NaN boundary or boundaries not in
// ascending order — BigQuery's rules.
func registerBucketFuncs() {
	expr.Register("range_bucket", def(2, 2, func(c *expr.Call) (types.Type, error) {
		at := c.Args[1].Type()
		switch at.Kind {
		case types.KindNull:
			return types.Int64, nil
		case types.KindArray:
		default:
			return types.Type{}, fmt.Errorf("argument 2 of RANGE_BUCKET must be an ARRAY, not %s", at)
		}
		t, ok := types.Supertype(c.Args[0].Type(), *at.Elem)
		if !ok || t.Kind == types.KindArray || t.Kind == types.KindStruct {
			return types.Type{}, fmt.Errorf("RANGE_BUCKET cannot place a %s among %s", c.Args[0].Type(), at)
		}
		for i, want := range []types.Type{t, types.ArrayOf(t)} {
			x, err := expr.CoerceTo(c.Args[i], want)
			if err != nil {
				return types.Type{}, fmt.Errorf("RANGE_BUCKET cannot place a %s among %s", c.Args[0].Type(), at)
			}
			c.Args[i] = x
		}
		return types.Int64, nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		if isNaN(a[0]) {
			return types.NullOf(types.Int64), nil // before the boundaries are checked, as BigQuery
		}
		bounds := a[1].L
		for i, b := range bounds {
			if b.Null || isNaN(b) {
				return types.Value{}, expr.EvalErr("RANGE_BUCKET: the boundaries hold a NULL or NaN")
			}
			if i > 0 {
				if r, _ := types.Compare(bounds[i-1], b); r > 0 {
					return types.Value{}, expr.EvalErr("RANGE_BUCKET: the boundaries are not in ascending order")
				}
			}
		}
		n := sort.Search(len(bounds), func(i int) bool { r, _ := types.Compare(bounds[i], a[0]); return r > 0 })
		return types.IntValue(int64(n)), nil
	}, false))
}
