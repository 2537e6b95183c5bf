package exec

import (
	"logq/expr"
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

func newConcatState(a expr.AggCall) aggState {
	if len(a.Order) > 0 || a.HasLimit {
		l := newListState(a)
		l.array, l.ignore = true, true // NULL arrays are skipped, LIMIT counts arrays
		return &orderedConcat{list: l, elem: *a.T.Elem}
	}
	return &concatState{elem: *a.T.Elem}
}

// orderedConcat is ARRAY_CONCAT_AGG(x ORDER BY … LIMIT n): the arrays
// sorted by their keys (and the first n kept), then their elements one
// after another.
type orderedConcat struct {
	list *listState
	elem types.Type
}

func (s *orderedConcat) grow(n int)                              { s.list.grow(n) }
func (s *orderedConcat) update(g []int32, args []*Vector, n int) { s.list.update(g, args, n) }
func (s *orderedConcat) merge(target []int32, other aggState) {
	s.list.merge(target, other.(*orderedConcat).list)
}
func (s *orderedConcat) failed() error { return s.list.failed() }

func (s *orderedConcat) result(g int) types.Value {
	arrays := s.list.final(g)
	if len(arrays) == 0 {
		return types.NullOf(types.ArrayOf(s.elem))
	}
	var out []types.Value
	for _, a := range arrays {
		out = append(out, a.L...)
	}
	if out == nil {
		out = []types.Value{}
	}
	return types.ArrayValue(s.elem, out)
}

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
