package sqlfunc

import (
	"logq/expr"
	"logq/types"
)

func registerPathFuncs() {
	reg := func(name string, eval func(c *expr.Call, a []types.Value) (types.Value, error)) {
		expr.Register(name, def(1, 2, nil, eval, false)) // internal (funcs.go)
	}
	reg("path_field", func(c *expr.Call, a []types.Value) (types.Value, error) {
		ft := *c.T.Elem
		out := make([]types.Value, len(a[0].L))
		for i, e := range a[0].L {
			if e.Null || c.Idx >= len(e.L) {
				out[i] = types.NullOf(ft)
			} else {
				out[i] = e.L[c.Idx]
			}
		}
		return types.ArrayValue(ft, out), nil
	})
	reg("path_json_field", func(c *expr.Call, a []types.Value) (types.Value, error) {
		member, one := expr.Registered("json_subscript"), &expr.Call{Fn: "json_subscript", T: types.JSON}
		out := make([]types.Value, len(a[0].L))
		for i, e := range a[0].L {
			out[i] = types.NullOf(types.JSON)
			if e.Null {
				continue
			}
			v, err := member.Eval(one, []types.Value{e, a[1]})
			if err != nil {
				return types.Value{}, err
			}
			out[i] = v
		}
		return types.ArrayValue(types.JSON, out), nil
	})
	reg("path_flatten", func(c *expr.Call, a []types.Value) (types.Value, error) {
		var out []types.Value
		for _, inner := range a[0].L {
			out = append(out, inner.L...) // a NULL array adds nothing
		}
		return types.ArrayValue(*c.T.Elem, out), nil
	})
	for _, fn := range []string{"offset", "safe_offset", "ordinal", "safe_ordinal"} {
		reg("path_"+fn, func(c *expr.Call, a []types.Value) (types.Value, error) {
			sub, one := expr.Registered(fn), &expr.Call{Fn: fn, T: *c.T.Elem} // registered apart
			out := make([]types.Value, 0, len(a[0].L))
			for _, inner := range a[0].L {
				if len(inner.L) == 0 { // an empty or NULL array contributes nothing
					continue
				}
				v, err := sub.Eval(one, []types.Value{inner, a[1]})
				if err != nil {
					return types.Value{}, err
				}
				out = append(out, v)
			}
			return types.ArrayValue(one.T, out), nil
		})
	}
}
