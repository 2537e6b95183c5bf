package sqlfunc

import (
	"logq/expr"
	"logq/types"
)

func registerZipFuncs() {
	expr.Register("unnest_zip", def(2, -1, nil, func(c *expr.Call, a []types.Value) (types.Value, error) {
		elem := *c.T.Elem
		if a[0].Null {
			return types.Value{}, expr.EvalErr("a multiway UNNEST's mode may not be NULL")
		}
		mode := a[0].S
		if !expr.IsZipMode(mode) {
			return types.Value{}, expr.EvalErr("the mode of a multiway UNNEST is 'PAD', 'TRUNCATE' or 'STRICT', not %q", mode)
		}
		arrays := a[1:]
		n := -1
		for _, arr := range arrays {
			l := len(arr.L) // a NULL array has none
			switch {
			case n < 0:
				n = l
			case mode == "PAD":
				n = max(n, l)
			case mode == "TRUNCATE":
				n = min(n, l)
			case l != n:
				return types.Value{}, expr.EvalErr("the arrays of a multiway UNNEST in STRICT mode must have equal lengths")
			}
		}
		rows := make([]types.Value, n)
		for i := range rows {
			fields := make([]types.Value, len(arrays))
			for j, arr := range arrays {
				if i < len(arr.L) {
					fields[j] = arr.L[i]
				} else {
					fields[j] = types.NullOf(elem.Fields[j].Type)
				}
			}
			rows[i] = types.StructValue(elem, fields)
		}
		return types.ArrayValue(elem, rows), nil
	}, true))
}
