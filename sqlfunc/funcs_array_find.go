package sqlfunc

import (
	"fmt"
	"strings"

	"logq/expr"
	"logq/types"
)

// ARRAY_FIND(a, target[, 'FIRST'|'LAST']), ARRAY_OFFSET, ARRAY_OFFSETS and
// ARRAY_FIND_ALL (ZetaSQL's): the first (or last) element equal to target,
// its offset, every matching offset, every matching element. Equality is
// =, under the arguments' collation when one is collated; a NULL element
// matches nothing; a NULL array, target or mode gives NULL; no match gives
// NULL (FIND, OFFSET) or [] (OFFSETS, FIND_ALL). The lambda forms are not
// supported. A collated call carries the elements' collation keys as a
// fourth argument, compared instead of the elements (funcs_collation.go).

func registerArrayFindFuncs() {
	check := func(c *expr.Call) (types.Type, error) {
		up := strings.ToUpper(c.Fn)
		t := c.Args[0].Type()
		if t.Kind == types.KindNull {
			t = types.ArrayOf(c.Args[1].Type())
			if c.Args[1].Type().Kind == types.KindNull {
				t = types.ArrayOf(types.Int64)
			}
			c.Args[0] = &expr.Const{V: types.NullOf(t)}
		}
		if t.Kind != types.KindArray {
			return t, fmt.Errorf("%s needs an ARRAY, not %s", up, t)
		}
		elem := *t.Elem
		if elem.Kind == types.KindJSON {
			return t, fmt.Errorf("%s cannot compare the elements of %s", up, t)
		}
		x, err := expr.CoerceTo(c.Args[1], elem)
		if err != nil {
			return t, fmt.Errorf("%s looks for a %s: %w", up, elem, err)
		}
		c.Args[1] = x
		if elem.Collated() && elem.Kind != types.KindString {
			return t, fmt.Errorf("%s of %s is not supported: a collated STRING inside a STRUCT or ARRAY", up, t)
		}
		if len(c.Args) == 2 {
			c.Args = append(c.Args, &expr.Const{V: types.StringValue("FIRST")})
		}
		m, err := expr.CoerceTo(c.Args[2], types.String)
		if err != nil {
			return t, fmt.Errorf("the find mode of %s: %w", up, err)
		}
		c.Args[2] = m
		if k, ok := m.(*expr.Const); !ok || (!k.V.Null && k.V.S != "FIRST" && k.V.S != "LAST") {
			return t, fmt.Errorf("the find mode of %s is the constant 'FIRST' or 'LAST'", up)
		}
		switch c.Fn {
		case "array_find":
			return elem, nil
		case "array_offset":
			return types.Int64, nil
		case "array_offsets":
			return types.ArrayOf(types.Int64), nil
		}
		return t, nil
	}
	eval := func(c *expr.Call, a []types.Value) (types.Value, error) {
		elems, target, last := a[0].L, a[1], a[2].S == "LAST"
		keys := elems
		if len(a) == 4 { // collation keys of the elements, target a key too
			keys = a[3].L
		}
		var hits []int
		for i, k := range keys {
			if eq, _ := sqlEqual(k, target); eq { // NULL elements match nothing
				hits = append(hits, i)
			}
		}
		switch c.Fn {
		case "array_find", "array_offset":
			if len(hits) == 0 {
				return types.NullOf(c.T), nil
			}
			i := hits[0]
			if last {
				i = hits[len(hits)-1]
			}
			if c.Fn == "array_offset" {
				return types.IntValue(int64(i)), nil
			}
			return elems[i], nil
		}
		out := make([]types.Value, len(hits))
		for j, i := range hits {
			out[j] = elems[i]
			if c.Fn == "array_offsets" {
				out[j] = types.IntValue(int64(i))
			}
		}
		return types.ArrayValue(*c.T.Elem, out), nil
	}
	for name := range expr.ArrayFindFns {
		expr.Register(name, def(2, 3, check, eval, false)) // the collated form's 4th is added after the check
	}
}
