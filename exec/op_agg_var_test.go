package exec

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/expr"
	"logq/types"
)

// varPart is fn's state of one group over xs (INT64s or FLOAT64s, by T).
func varPart[T int64 | float64](fn string, xs ...T) *varState {
	t := types.Int64
	var zero T
	if _, ok := any(zero).(float64); ok {
		t = types.Float64
	}
	s := newVarState(expr.AggCall{Fn: fn, Args: []expr.Expr{&expr.Const{V: types.NullOf(t)}}})
	s.grow(1)
	v := newVector(t, len(xs))
	for i, x := range xs {
		if t.Kind == types.KindFloat64 {
			v.F[i] = float64(x)
		} else {
			v.I[i] = int64(x)
		}
	}
	s.update(make([]int32, len(xs)), []*Vector{v}, len(xs))
	return s
}

// Partial states with different pivots merge into the same variance: the
// values 2,4,4,4 | 5,5,7,9 have squared deviations (about 5) summing to 32.
func TestVarianceMerge(t *testing.T) {
	part := func(xs ...int64) *varState { return varPart("var_pop", xs...) }
	a, b := part(2, 4, 4, 4), part(5, 5, 7, 9)
	a.merge([]int32{0}, b)
	require.Equal(t, types.FloatValue(4), a.result(0)) // 32 / 8
	empty := part()
	empty.merge([]int32{0}, part(9, 7, 5, 5, 4, 4, 4, 2))
	require.Equal(t, types.FloatValue(4), empty.result(0))
}

// Partial states of values whose squares are past FLOAT64 merge at a common
// scale: {2^700} and {-2^700, 0} have sample variance 2^1400, stddev 2^700;
// a small-valued part merged into a scaled one keeps the answer.
func TestVarianceMergeLarge(t *testing.T) {
	part := func(xs ...float64) *varState { return varPart("stddev_samp", xs...) }
	big := math.Ldexp(1, 700)
	a := part(big)
	a.merge([]int32{0}, part(-big, 0))
	require.Equal(t, types.FloatValue(big), a.result(0))
	b := part(0)
	b.merge([]int32{0}, part(big, -big))
	require.Equal(t, types.FloatValue(big), b.result(0))
}

// Many large deviations in one direction: the scaled sum's square would
// pass FLOAT64, the variance does not. One 0 and 20,000 values of 2^600:
// the mean is 2^600·20000/20001 and the population variance
// 2^1200·20000/20001², so the standard deviation is 2^600·√20000/20001.
func TestVarianceManyLargeDeviations(t *testing.T) {
	xs := make([]float64, 20001)
	for i := 1; i < len(xs); i++ {
		xs[i] = math.Ldexp(1, 600)
	}
	s := varPart("stddev_pop", xs...)
	want := math.Ldexp(math.Sqrt(20000)/20001, 600)
	got := s.result(0).F
	require.InEpsilon(t, want, got, 1e-12)
}
