package exec

import (
	"testing"

	"github.com/stretchr/testify/require"

	"logq/planner"
	"logq/types"
)

// Partial states with different pivots merge into the same variance: the
// values 2,4,4,4 | 5,5,7,9 have squared deviations (about 5) summing to 32.
func TestVarianceMerge(t *testing.T) {
	call := planner.AggCall{Fn: "var_pop", Args: []planner.Expr{&planner.Const{V: types.IntValue(0)}}}
	part := func(xs ...int64) *varState {
		s := newVarState(call)
		s.grow(1)
		v := newVector(types.Int64, len(xs))
		copy(v.I, xs)
		s.update(make([]int32, len(xs)), []*Vector{v}, len(xs))
		return s
	}
	a, b := part(2, 4, 4, 4), part(5, 5, 7, 9)
	a.merge([]int32{0}, b)
	require.Equal(t, types.FloatValue(4), a.result(0)) // 32 / 8
	empty := part()
	empty.merge([]int32{0}, part(9, 7, 5, 5, 4, 4, 4, 2))
	require.Equal(t, types.FloatValue(4), empty.result(0))
}
