package exec

import (
	"logq/planner"
	"logq/types"
)

// bitState is BIT_AND, BIT_OR or BIT_XOR of INT64s, and LOGICAL_AND and
// LOGICAL_OR, which are BIT_AND and BIT_OR of BOOLs' 0 and 1: NULLs are
// skipped, and a group without a value gives NULL.
type bitState struct {
	op  string // "and", "or" or "xor"
	t   types.Type
	v   []int64
	set []bool
}

func newBitState(a planner.AggCall) aggState {
	op := "xor"
	switch a.Fn {
	case "bit_and", "logical_and":
		op = "and"
	case "bit_or", "logical_or":
		op = "or"
	}
	return &bitState{op: op, t: a.T}
}

func (s *bitState) grow(n int) { s.v, s.set = growZero(s.v, n), growZero(s.set, n) }

func (s *bitState) fold(g int32, x int64) {
	if !s.set[g] {
		s.v[g], s.set[g] = x, true
		return
	}
	switch s.op {
	case "and":
		s.v[g] &= x
	case "or":
		s.v[g] |= x
	default:
		s.v[g] ^= x
	}
}

func (s *bitState) update(g []int32, args []*Vector, n int) {
	v := args[0]
	for r, gi := range g {
		switch {
		case v.isNull(r):
		case v.Lazy == nil:
			s.fold(gi, v.I[r])
		default:
			s.fold(gi, v.Value(r).I)
		}
	}
}

func (s *bitState) result(g int) types.Value {
	if !s.set[g] {
		return types.NullOf(s.t)
	}
	return types.Value{T: s.t, I: s.v[g]}
}

func (s *bitState) merge(target []int32, other aggState) {
	o := other.(*bitState)
	for g, t := range target {
		if o.set[g] {
			s.fold(t, o.v[g])
		}
	}
}
