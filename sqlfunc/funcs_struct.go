package sqlfunc

import (
	"fmt"

	"logq/expr"
	"logq/types"
)

// Functions over arrays and structs: subscripts, field access, constructors.
func registerStructuralFuncs() {
	subscript := func(c *expr.Call) (types.Type, error) {
		t := c.Args[0].Type()
		idx, err := expr.CoerceTo(c.Args[1], types.Int64)
		if err != nil {
			return types.Type{}, fmt.Errorf("array subscript: %w", err)
		}
		c.Args[1] = idx
		switch t.Kind {
		case types.KindArray:
			return *t.Elem, nil
		case types.KindNull:
			return types.Null, nil
		}
		return types.Type{}, fmt.Errorf("cannot subscript a value of type %s", t)
	}
	sub := func(base int64, safe bool) func(c *expr.Call, a []types.Value) (types.Value, error) {
		return func(c *expr.Call, a []types.Value) (types.Value, error) {
			i := a[1].I - base
			if i < 0 || i >= int64(len(a[0].L)) {
				if safe {
					return types.NullOf(c.T), nil
				}
				return types.Value{}, expr.EvalErr("array index %d is out of bounds (array of %d elements)", a[1].I, len(a[0].L))
			}
			return a[0].L[i], nil
		}
	}
	expr.Register("offset", def(2, 2, subscript, sub(0, false), false))
	expr.Register("safe_offset", def(2, 2, subscript, sub(0, true), false))
	expr.Register("ordinal", def(2, 2, subscript, sub(1, false), false))
	expr.Register("safe_ordinal", def(2, 2, subscript, sub(1, true), false))
	// field reads field Idx of a STRUCT (its type is set by the binder).
	expr.Register("field", def(1, 1, nil, func(c *expr.Call, a []types.Value) (types.Value, error) {
		if c.Idx >= len(a[0].L) {
			return types.NullOf(c.T), nil
		}
		return a[0].L[c.Idx], nil
	}, false))
	expr.Register("make_array", def(0, -1, func(c *expr.Call) (types.Type, error) {
		if err := expr.Unify(c, c.Args); err != nil {
			return types.Type{}, err
		}
		elem := types.Null
		for _, a := range c.Args {
			if a.Type().Kind != types.KindNull {
				elem = a.Type()
			}
		}
		if elem.Kind == types.KindArray { // as BigQuery: no nested arrays
			return types.Type{}, fmt.Errorf("an array cannot contain an array (%s): wrap the inner ARRAY in a STRUCT", elem)
		}
		return types.ArrayOf(elem), nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		// NULL elements are allowed inside a query, as in BigQuery; one
		// that reaches the result is an error (exec's nullInResult).
		return types.ArrayValue(*c.T.Elem, append([]types.Value(nil), a...)), nil
	}, true))
	// make_struct's type (with field names) is set by the binder.
	expr.Register("make_struct", def(0, -1, nil, func(c *expr.Call, a []types.Value) (types.Value, error) {
		return types.StructValue(c.T, append([]types.Value(nil), a...)), nil
	}, true))
}
