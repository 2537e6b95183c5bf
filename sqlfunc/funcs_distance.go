package sqlfunc

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"logq/expr"
	"logq/types"
)

// COSINE_DISTANCE and EUCLIDEAN_DISTANCE of two vectors, as BigQuery and
// ZetaSQL define them: dense vectors are ARRAY<FLOAT64> of one length (the
// index is the dimension); sparse ones are ARRAY<STRUCT<dimension INT64 or
// STRING, magnitude FLOAT64>>, a dimension left out being 0 and one given
// twice an error. A NULL vector gives NULL, a NULL magnitude is an error,
// and COSINE_DISTANCE of a zero vector ([], [0.0]) is an error.

func registerDistanceFuncs() {
	check := func(c *expr.Call) (types.Type, error) {
		up := strings.ToUpper(c.Fn)
		sparse := func(t types.Type) bool {
			return t.Kind == types.KindArray && t.Elem.Kind == types.KindStruct && len(t.Elem.Fields) == 2
		}
		a, b := c.Args[0].Type(), c.Args[1].Type()
		switch { // a NULL vector (it gives NULL) takes the other's type
		case a.Kind == types.KindNull && b.Kind != types.KindNull:
			c.Args[0], a = &expr.Const{V: types.NullOf(b)}, b
		case b.Kind == types.KindNull && a.Kind != types.KindNull:
			c.Args[1], b = &expr.Const{V: types.NullOf(a)}, a
		}
		if sparse(a) || sparse(b) {
			if !sparse(a) || !sparse(b) {
				return types.Float64, fmt.Errorf("%s needs two dense vectors (ARRAY<FLOAT64>) or two sparse ones (ARRAY<STRUCT<dimension, magnitude>>)", up)
			}
			for i, t := range []types.Type{a, b} {
				f := t.Elem.Fields
				if k := f[0].Type.Kind; k != types.KindInt64 && k != types.KindString {
					return types.Float64, fmt.Errorf("argument %d of %s: a dimension is an INT64 or a STRING, not %s", i+1, up, f[0].Type)
				}
				if k := f[1].Type.Kind; k != types.KindFloat64 && k != types.KindInt64 {
					return types.Float64, fmt.Errorf("argument %d of %s: a magnitude is a FLOAT64, not %s", i+1, up, f[1].Type)
				}
			}
			if a.Elem.Fields[0].Type.Kind != b.Elem.Fields[0].Type.Kind {
				return types.Float64, fmt.Errorf("%s needs dimensions of one type, not %s and %s", up, a.Elem.Fields[0].Type, b.Elem.Fields[0].Type)
			}
			return types.Float64, nil
		}
		for i := range c.Args {
			x, err := expr.CoerceTo(c.Args[i], types.ArrayOf(types.Float64))
			if err != nil {
				return types.Float64, fmt.Errorf("argument %d of %s: %w", i+1, up, err)
			}
			c.Args[i] = x
		}
		return types.Float64, nil
	}
	eval := func(c *expr.Call, a []types.Value) (types.Value, error) {
		up := strings.ToUpper(c.Fn)
		x, y, err := vectorPair(up, a[0], a[1])
		if err != nil {
			return types.Value{}, err
		}
		var dot, nx, ny, sq float64
		for i := range x {
			dot += x[i] * y[i]
			nx += x[i] * x[i]
			ny += y[i] * y[i]
			d := x[i] - y[i]
			sq += d * d
		}
		if c.Fn == "euclidean_distance" {
			return types.FloatValue(math.Sqrt(sq)), nil
		}
		if nx == 0 || ny == 0 {
			return types.Value{}, expr.EvalErr("%s of a zero vector", up)
		}
		return types.FloatValue(1 - dot/(math.Sqrt(nx)*math.Sqrt(ny))), nil
	}
	for _, name := range []string{"cosine_distance", "euclidean_distance"} {
		expr.Register(name, def(2, 2, check, eval, false))
	}
}

// vectorPair lines two vectors up dimension by dimension.
func vectorPair(fn string, a, b types.Value) ([]float64, []float64, error) {
	mag := func(v types.Value) (float64, error) {
		if v.Null {
			return 0, expr.EvalErr("%s: a magnitude is NULL", fn)
		}
		if v.T.Kind == types.KindInt64 {
			return float64(v.I), nil
		}
		return v.F, nil
	}
	if a.T.Elem.Kind != types.KindStruct { // dense
		if len(a.L) != len(b.L) {
			return nil, nil, expr.EvalErr("%s of vectors of %d and %d dimensions", fn, len(a.L), len(b.L))
		}
		x, y := make([]float64, len(a.L)), make([]float64, len(b.L))
		for i := range a.L {
			var err error
			if x[i], err = mag(a.L[i]); err != nil {
				return nil, nil, err
			}
			if y[i], err = mag(b.L[i]); err != nil {
				return nil, nil, err
			}
		}
		return x, y, nil
	}
	at := map[string]int{}
	var x, y []float64
	for side, v := range []types.Value{a, b} {
		seen := map[string]bool{}
		for _, e := range v.L {
			if e.Null || e.L[0].Null {
				return nil, nil, expr.EvalErr("%s: a dimension is NULL", fn)
			}
			key := e.L[0].S // a STRING dimension, or an INT64's digits
			if e.L[0].T.Kind == types.KindInt64 {
				key = strconv.FormatInt(e.L[0].I, 10)
			}
			if seen[key] {
				return nil, nil, expr.EvalErr("%s: a dimension appears twice in a vector (%s)", fn, key)
			}
			seen[key] = true
			m, err := mag(e.L[1])
			if err != nil {
				return nil, nil, err
			}
			i, ok := at[key]
			if !ok {
				i = len(x)
				at[key] = i
				x, y = append(x, 0), append(y, 0)
			}
			if side == 0 {
				x[i] = m
			} else {
				y[i] = m
			}
		}
	}
	return x, y, nil
}
