package exec

import (
	"logq/planner"
	"logq/types"
)

func newLogicalState(a planner.AggCall) aggState {
	return &logicalState{and: a.Fn == "logical_and"}
}

// logicalState is LOGICAL_AND or LOGICAL_OR (NULLs skipped).
type logicalState struct {
	and      bool
	val, set []bool
}

func (s *logicalState) grow(n int) { s.val, s.set = growZero(s.val, n), growZero(s.set, n) }

func (s *logicalState) update(g []int32, args []*Vector, n int) {
	v := args[0]
	for r, gi := range g {
		if v.isNull(r) {
			continue
		}
		b := v.I[r] != 0
		if !s.set[gi] {
			s.val[gi], s.set[gi] = b, true
		} else if s.and {
			s.val[gi] = s.val[gi] && b
		} else {
			s.val[gi] = s.val[gi] || b
		}
	}
}

func (s *logicalState) result(g int) types.Value {
	if !s.set[g] {
		return types.NullOf(types.Bool)
	}
	return types.BoolValue(s.val[g])
}

func (s *logicalState) merge(target []int32, other aggState) {
	o := other.(*logicalState)
	for g, t := range target {
		if !o.set[g] {
			continue
		}
		switch {
		case !s.set[t]:
			s.val[t], s.set[t] = o.val[g], true
		case s.and:
			s.val[t] = s.val[t] && o.val[g]
		default:
			s.val[t] = s.val[t] || o.val[g]
		}
	}
}
