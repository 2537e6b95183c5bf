package exec

import (
	"logq/planner"
	"logq/types"
)

// concatState is ARRAY_CONCAT_AGG: the elements of a group's non-NULL
// arrays, one after another (in input order, which is unspecified); NULL
// when the group has none.
type concatState struct {
	elem types.Type
	vals [][]types.Value
	set  []bool
	mem  *memBudget // what it keeps is charged here
	err  error
}

func (s *concatState) setBudget(m *memBudget) { s.mem = m }
func (s *concatState) failed() error          { return s.err }

func newConcatState(a planner.AggCall) aggState { return &concatState{elem: *a.T.Elem} }

func (s *concatState) grow(n int) { s.vals, s.set = growZero(s.vals, n), growZero(s.set, n) }

func (s *concatState) update(g []int32, args []*Vector, n int) {
	v := args[0]
	for r, gi := range g {
		if v.isNull(r) {
			continue
		}
		x := v.Value(r)
		if x.T.Kind != types.KindArray {
			continue // NULL-typed: no values
		}
		s.vals[gi] = append(s.vals[gi], x.L...)
		s.set[gi] = true
		if err := s.mem.charge("ARRAY_CONCAT_AGG", len(x.L), 1); err != nil && s.err == nil {
			s.err = err
		}
	}
}

func (s *concatState) result(g int) types.Value {
	if !s.set[g] {
		return types.NullOf(types.ArrayOf(s.elem))
	}
	return types.ArrayValue(s.elem, append([]types.Value{}, s.vals[g]...))
}

func (s *concatState) merge(target []int32, other aggState) {
	o := other.(*concatState)
	for g, t := range target {
		if o.set[g] {
			s.vals[t] = append(s.vals[t], o.vals[g]...)
			s.set[t] = true
		}
	}
}
