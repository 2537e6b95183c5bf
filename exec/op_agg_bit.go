package exec

import (
	"logq/planner"
	"logq/types"
)

// bitState is BIT_AND, BIT_OR or BIT_XOR of INT64s: NULL for a group
// without a non-NULL value.
type bitState struct {
	fn  string
	v   []int64
	set []bool
}

func newBitState(a planner.AggCall) aggState { return &bitState{fn: a.Fn} }

func (s *bitState) grow(n int) { s.v, s.set = growZero(s.v, n), growZero(s.set, n) }

func (s *bitState) fold(g int32, x int64) {
	if !s.set[g] {
		s.v[g], s.set[g] = x, true
		return
	}
	switch s.fn {
	case "bit_and":
		s.v[g] &= x
	case "bit_or":
		s.v[g] |= x
	default:
		s.v[g] ^= x
	}
}

func (s *bitState) update(g []int32, args []*Vector, n int) {
	v := args[0]
	for r, gi := range g {
		if !v.isNull(r) {
			s.fold(gi, v.Value(r).I)
		}
	}
}

func (s *bitState) result(g int) types.Value {
	if !s.set[g] {
		return types.NullOf(types.Int64)
	}
	return types.IntValue(s.v[g])
}

func (s *bitState) merge(target []int32, other aggState) {
	o := other.(*bitState)
	for g, t := range target {
		if o.set[g] {
			s.fold(t, o.v[g])
		}
	}
}
