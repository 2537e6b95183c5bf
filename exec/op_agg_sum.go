package exec

import (
	"logq/planner"
	"logq/types"
)

func newSumState(a planner.AggCall) aggState {
	return &sumState{avg: a.Fn == "avg", float: a.Args[0].Type().Kind == types.KindFloat64}
}

// sumState is SUM or AVG. INT64 sums are exact, with a FLOAT64 shadow sum
// kept once a group overflows INT64, from which an AVG still answers.
type sumState struct {
	avg, float bool
	i          []int64
	f          []float64
	c          []int64
	overflow   []bool
}

func (s *sumState) grow(n int) {
	s.i, s.f, s.c = growZero(s.i, n), growZero(s.f, n), growZero(s.c, n)
	s.overflow = growZero(s.overflow, n)
}

func (s *sumState) update(g []int32, args []*Vector, n int) {
	v := args[0]
	if v.storage() == inFloats {
		for r, gi := range g {
			if !v.isNull(r) {
				s.f[gi] += v.F[r]
				s.c[gi]++
			}
		}
		return
	}
	// Integers sum exactly; the float shadow sum is only needed (and kept
	// from then on) once a group overflows INT64.
	for r, gi := range g {
		if v.isNull(r) {
			continue
		}
		x := v.I[r]
		sum := s.i[gi] + x
		if (x > 0 && sum < s.i[gi]) || (x < 0 && sum > s.i[gi]) {
			if !s.overflow[gi] {
				s.f[gi] = float64(s.i[gi])
			}
			s.overflow[gi] = true
		}
		if s.overflow[gi] {
			s.f[gi] += float64(x)
		}
		s.i[gi] = sum
		s.c[gi]++
	}
}

func (s *sumState) result(g int) types.Value {
	switch {
	case s.c[g] == 0 && s.avg:
		return types.NullOf(types.Float64)
	case s.c[g] == 0:
		return types.NullOf(types.Int64)
	case s.avg && !s.float && !s.overflow[g]:
		return types.FloatValue(float64(s.i[g]) / float64(s.c[g]))
	case s.avg:
		return types.FloatValue(s.f[g] / float64(s.c[g]))
	case s.float:
		return types.FloatValue(s.f[g])
	}
	return types.IntValue(s.i[g])
}

func (s *sumState) merge(target []int32, other aggState) {
	o := other.(*sumState)
	for g, t := range target {
		if s.float {
			s.f[t] += o.f[g]
			s.c[t] += o.c[g]
			continue
		}
		sum := s.i[t] + o.i[g]
		wrapped := (o.i[g] > 0 && sum < s.i[t]) || (o.i[g] < 0 && sum > s.i[t])
		if (wrapped || o.overflow[g]) && !s.overflow[t] {
			s.f[t] = float64(s.i[t])
			s.overflow[t] = true
		}
		if s.overflow[t] {
			if o.overflow[g] {
				s.f[t] += o.f[g]
			} else {
				s.f[t] += float64(o.i[g])
			}
		}
		s.i[t] = sum
		s.c[t] += o.c[g]
	}
}
