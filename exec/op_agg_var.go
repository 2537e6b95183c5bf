package exec

import (
	"math"

	"logq/planner"
	"logq/types"
)

// varState computes VARIANCE/VAR_SAMP, VAR_POP, STDDEV/STDDEV_SAMP and
// STDDEV_POP. Each group keeps its count and the sums of x−k and (x−k)² for
// a pivot k (its first value), which avoids the cancellation of the naive
// sum-of-squares formula when values are large and close together.
type varState struct {
	pop, sqrt bool
	float     bool
	n         []int64
	k, s, ss  []float64
}

func newVarState(a planner.AggCall) *varState {
	return &varState{
		pop:   a.Fn == "var_pop" || a.Fn == "stddev_pop",
		sqrt:  a.Fn == "stddev" || a.Fn == "stddev_samp" || a.Fn == "stddev_pop",
		float: a.Args[0].Type().Kind == types.KindFloat64,
	}
}

func (s *varState) grow(n int) {
	s.n = growZero(s.n, n)
	s.k, s.s, s.ss = growZero(s.k, n), growZero(s.s, n), growZero(s.ss, n)
}

func (s *varState) update(g []int32, args []*Vector, n int) {
	v := args[0]
	for r, gi := range g {
		if v.isNull(r) {
			continue
		}
		var x float64
		if s.float {
			x = v.F[r]
		} else {
			x = float64(v.I[r])
		}
		if s.n[gi] == 0 {
			s.k[gi] = x
		}
		d := x - s.k[gi]
		s.n[gi]++
		s.s[gi] += d
		s.ss[gi] += d * d
	}
}

func (s *varState) result(g int) types.Value {
	n := s.n[g]
	if n == 0 || (!s.pop && n < 2) {
		return types.NullOf(types.Float64)
	}
	m2 := s.ss[g] - s.s[g]*s.s[g]/float64(n)
	m2 = math.Max(m2, 0)
	var v float64
	if s.pop {
		v = m2 / float64(n)
	} else {
		v = m2 / float64(n-1)
	}
	if s.sqrt {
		v = math.Sqrt(v)
	}
	return types.FloatValue(v)
}

// merge re-centres the other group's sums on this group's pivot.
func (s *varState) merge(target []int32, other aggState) {
	o := other.(*varState)
	for g, t := range target {
		if o.n[g] == 0 {
			continue
		}
		if s.n[t] == 0 {
			s.n[t], s.k[t], s.s[t], s.ss[t] = o.n[g], o.k[g], o.s[g], o.ss[g]
			continue
		}
		d := o.k[g] - s.k[t] // x − k_t = (x − k_o) + d
		on := float64(o.n[g])
		s.ss[t] += o.ss[g] + 2*d*o.s[g] + on*d*d
		s.s[t] += o.s[g] + on*d
		s.n[t] += o.n[g]
	}
}
