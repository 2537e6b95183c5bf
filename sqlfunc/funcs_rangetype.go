package sqlfunc

import (
	"fmt"
	"strings"

	"logq/expr"
	"logq/types"
)

// Functions of the RANGE type (types/range.go): the RANGE constructor,
// RANGE_START, RANGE_END, RANGE_CONTAINS, RANGE_OVERLAPS, RANGE_INTERSECT
// and GENERATE_RANGE_ARRAY. An unbounded bound is a NULL of the element
// type in the value; a NULL range gives NULL.
func registerRangeTypeFuncs() {
	// RANGE(lower, upper): a NULL bound is unbounded; lower must be below
	// upper (SAFE.: NULL).
	// The bounds are of one type, without coercion (a STRING literal is no
	// DATE here); a NULL literal takes the other's type.
	expr.Register("range", def(2, 2, checkRange, evalRange, true))

	expr.Register("range_start", def(1, 1, rangeArgs(1, elemResult), bound(0), false))
	expr.Register("range_end", def(1, 1, rangeArgs(1, elemResult), bound(1), false))

	// RANGE_CONTAINS(outer, inner range) or RANGE_CONTAINS(range, value).
	expr.Register("range_contains", def(2, 2, checkRangeContains, evalRangeContains, false))

	expr.Register("range_overlaps", def(2, 2, rangeArgs(2, func(types.Type) types.Type { return types.Bool }), evalRangeOverlaps, false))
	expr.Register("range_intersect", def(2, 2, rangeArgs(2, func(t types.Type) types.Type { return t }), evalRangeIntersect, false))

	// GENERATE_RANGE_ARRAY(range, step[, include_last_partial_range]):
	// consecutive subranges of one step each; the last one, when shorter,
	// is kept unless the third argument is FALSE.
	expr.Register("generate_range_array", def(2, 3, checkGenerateRangeArray, generateRangeArray, false))
}

func bound(i int) func(c *expr.Call, a []types.Value) (types.Value, error) {
	return func(c *expr.Call, a []types.Value) (types.Value, error) { return a[0].L[i], nil }
}

func checkRange(c *expr.Call) (types.Type, error) {
	t, u := c.Args[0].Type(), c.Args[1].Type()
	switch {
	case t.Kind == types.KindNull && u.Kind == types.KindNull:
		return types.Type{}, fmt.Errorf("one of RANGE's bounds must have a type (CAST(NULL AS DATE), …)")
	case t.Kind == types.KindNull:
		t = u
	case u.Kind != types.KindNull && !t.Equal(u):
		return types.Type{}, fmt.Errorf("RANGE's bounds must be of one type, not %s and %s", t, u)
	}
	if !types.IsRangeElem(t) {
		return types.Type{}, fmt.Errorf("RANGE's bounds are DATE, DATETIME or TIMESTAMP, not %s", t)
	}
	for i := range c.Args {
		a, err := expr.CoerceTo(c.Args[i], t)
		if err != nil {
			return types.Type{}, err
		}
		c.Args[i] = a
	}
	return types.RangeOf(t), nil
}

func evalRange(c *expr.Call, a []types.Value) (types.Value, error) {
	v, err := types.RangeValue(*c.T.Elem, a[0], a[1])
	if err != nil {
		return types.Value{}, expr.EvalErr("%v", err)
	}
	return v, nil
}

func checkRangeContains(c *expr.Call) (types.Type, error) {
	if _, err := rangeArgs(1, elemResult)(c); err != nil {
		return types.Type{}, err
	}
	rt := c.Args[0].Type()
	want := *rt.Elem
	if c.Args[1].Type().Kind == types.KindRange {
		want = rt
	}
	x, err := expr.CoerceTo(c.Args[1], want)
	if err != nil {
		return types.Type{}, fmt.Errorf("RANGE_CONTAINS looks for a %s or a %s in a %s: %w", rt, *rt.Elem, rt, err)
	}
	c.Args[1] = x
	return types.Bool, nil
}

func evalRangeContains(c *expr.Call, a []types.Value) (types.Value, error) {
	r := a[0]
	if a[1].T.Kind == types.KindRange {
		in := a[1]
		return types.BoolValue(lowerLE(r.L[0], in.L[0]) && upperLE(in.L[1], r.L[1])), nil
	}
	return types.BoolValue((r.L[0].Null || r.L[0].I <= a[1].I) && (r.L[1].Null || a[1].I < r.L[1].I)), nil
}

func evalRangeOverlaps(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.BoolValue(overlaps(a[0], a[1])), nil
}

func evalRangeIntersect(c *expr.Call, a []types.Value) (types.Value, error) {
	x, y := a[0], a[1]
	if !overlaps(x, y) {
		return types.Value{}, expr.EvalErr("RANGE_INTERSECT: %s and %s do not overlap", types.FormatRange(x), types.FormatRange(y))
	}
	lo, hi := x.L[0], x.L[1]
	if !lowerLE(y.L[0], lo) {
		lo = y.L[0]
	}
	if !upperLE(hi, y.L[1]) {
		hi = y.L[1]
	}
	return types.RangeValue(*c.T.Elem, lo, hi)
}

func checkGenerateRangeArray(c *expr.Call) (types.Type, error) {
	if _, err := rangeArgs(1, elemResult)(c); err != nil {
		return types.Type{}, err
	}
	step, err := expr.CoerceTo(c.Args[1], types.Interval)
	if err != nil {
		return types.Type{}, fmt.Errorf("argument 2 of GENERATE_RANGE_ARRAY: %w", err)
	}
	c.Args[1] = step
	if len(c.Args) == 3 {
		b, err := expr.CoerceTo(c.Args[2], types.Bool)
		if err != nil {
			return types.Type{}, fmt.Errorf("argument 3 of GENERATE_RANGE_ARRAY: %w", err)
		}
		c.Args[2] = b
	}
	return types.ArrayOf(c.Args[0].Type()), nil
}

// rangeArgs types a call whose first n arguments are RANGEs of one type
// and whose result is result(that type).
func rangeArgs(n int, result func(types.Type) types.Type) func(c *expr.Call) (types.Type, error) {
	return func(c *expr.Call) (types.Type, error) {
		var rt types.Type
		for i := 0; i < n; i++ {
			t := c.Args[i].Type()
			switch {
			case t.Kind != types.KindRange:
				return types.Type{}, fmt.Errorf("argument %d of %s is a RANGE, not %s", i+1, strings.ToUpper(c.Fn), t)
			case i > 0 && !t.Equal(rt):
				return types.Type{}, fmt.Errorf("the RANGEs of %s are of one type, not %s and %s", strings.ToUpper(c.Fn), rt, t)
			}
			rt = t
		}
		return result(rt), nil
	}
}

func elemResult(t types.Type) types.Type { return *t.Elem }

// lowerLE reports a ≤ b for two lower bounds (unbounded is the least).
func lowerLE(a, b types.Value) bool { return a.Null || !b.Null && a.I <= b.I }

// upperLE reports a ≤ b for two upper bounds (unbounded is the greatest).
func upperLE(a, b types.Value) bool { return b.Null || !a.Null && a.I <= b.I }

// overlaps reports whether two ranges share a value: each starts before the
// other ends.
func overlaps(x, y types.Value) bool {
	before := func(lo, hi types.Value) bool { return lo.Null || hi.Null || lo.I < hi.I }
	return before(x.L[0], y.L[1]) && before(y.L[0], x.L[1])
}

// maxRangeArray bounds GENERATE_RANGE_ARRAY's result, as GENERATE_ARRAY's is.
const maxRangeArray = 1_000_000

func generateRangeArray(c *expr.Call, a []types.Value) (types.Value, error) {
	r, step := a[0], a[1]
	elem := *r.T.Elem
	if len(a) == 3 && a[2].Null {
		return types.NullOf(c.T), nil
	}
	keepLast := len(a) < 3 || a[2].Bool()
	// The step first, then the bounds, as ZetaSQL checks them.
	months, days, us := int64(step.Months), int64(step.Days), step.I
	bad := func(why string) (types.Value, error) {
		return types.Value{}, expr.EvalErr("GENERATE_RANGE_ARRAY: a step of %s %s", types.FormatInterval(step), why)
	}
	switch elem.Kind {
	case types.KindDate:
		switch {
		case us != 0:
			return bad("has an H:M:S part, which a DATE cannot add")
		case months != 0 && days != 0:
			return bad("has both a Y-M part and a DAY part")
		}
	case types.KindDatetime:
		if months != 0 && (days != 0 || us != 0) {
			return bad("has both a Y-M part and a D H:M:S part")
		}
	case types.KindTimestamp:
		if months != 0 {
			return bad("has a MONTH or YEAR part, which a TIMESTAMP cannot add")
		}
	}
	switch {
	case months < 0 || days < 0 || us < 0:
		return bad("is negative")
	case months == 0 && days == 0 && us == 0:
		return bad("is zero")
	}
	if r.L[0].Null || r.L[1].Null {
		return types.Value{}, expr.EvalErr("GENERATE_RANGE_ARRAY needs a bounded range, not %s", types.FormatRange(r))
	}
	// The k-th bound is start + k·step (not the bound before plus a step:
	// a month from January 31 is February 29, two are March 31).
	var out []types.Value
	start, end := r.L[0], r.L[1]
	lo := start
	for k := int64(1); ; k++ {
		if len(out) >= maxRangeArray {
			return types.Value{}, expr.EvalErr("GENERATE_RANGE_ARRAY would make more than %d ranges", maxRangeArray)
		}
		kstep, err := types.IntervalOf(k*months, k*days, k*us)
		var hi types.Value
		if err == nil {
			hi, err = addInterval(start, kstep, 1)
		}
		past := err != nil // past the years or an interval's range: past the end
		if !past {
			if elem.Kind == types.KindDate {
				hi = types.DateValue(hi.I / types.Day)
			}
			hi.T = elem
			past = hi.I >= end.I
		}
		if past {
			if keepLast || !past || err == nil && hi.I == end.I {
				v, verr := types.RangeValue(elem, lo, end)
				if verr != nil {
					return types.Value{}, expr.EvalErr("%v", verr)
				}
				out = append(out, v)
			}
			break
		}
		v, verr := types.RangeValue(elem, lo, hi)
		if verr != nil {
			return types.Value{}, expr.EvalErr("%v", verr)
		}
		out = append(out, v)
		lo = hi
	}
	return types.ArrayValue(types.RangeOf(elem), out), nil
}
