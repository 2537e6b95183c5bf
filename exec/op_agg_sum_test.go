package exec

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/expr"
	"logq/types"
)

// sumPart is fn's (SUM or AVG) state of one group over FLOAT64s xs.
func sumPart(fn string, xs ...float64) *sumState {
	s := newSumState(expr.AggCall{Fn: fn, Args: []expr.Expr{&expr.Const{V: types.NullOf(types.Float64)}}}).(*sumState)
	s.grow(1)
	v := newVector(types.Float64, len(xs))
	copy(v.F, xs)
	s.update(make([]int32, len(xs)), []*Vector{v}, len(xs))
	return s
}

// Partial FLOAT64 sums, as parallel workers make them, merge into the
// answer of one sum. A source's parallel aggregation would do it too, but
// a golden case cannot hold it: over ClickHouse the same rows are added in
// FLOAT64 in another order, where 1.7e308 absorbs the small values.
func TestFloatSumMerge(t *testing.T) {
	const big = 1.7e308
	merged := func(fn string, parts ...[]float64) types.Value {
		s := sumPart(fn, parts[0]...)
		for _, p := range parts[1:] {
			s.merge([]int32{0}, sumPart(fn, p...))
		}
		return s.result(0)
	}
	inf := math.Inf(1)
	// By hand: the partial sums leave FLOAT64 (2 × 1.7e308) and come back;
	// the total is 1 + 2 + 3 + 30 = 36 over 8 values, the mean 4.5.
	parts := [][]float64{{big, big}, {-big, -big, 1}, {2, 3}, {30}}
	require.Equal(t, types.FloatValue(36), merged("sum", parts...))
	require.Equal(t, types.FloatValue(4.5), merged("avg", parts...))
	// Two finite partials past FLOAT64 only once merged, then +inf: +inf;
	// +inf first and a wide partial after it: +inf.
	require.Equal(t, types.FloatValue(inf), merged("sum", []float64{big}, []float64{big}, []float64{inf}))
	require.Equal(t, types.FloatValue(inf), merged("sum", []float64{inf}, []float64{big, big}))
	// -inf, a wide partial, +inf: NaN.
	got := merged("sum", []float64{-inf}, []float64{big, big}, []float64{inf})
	require.True(t, math.IsNaN(got.F), "%v", got)
}
