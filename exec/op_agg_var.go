package exec

import (
	"math"

	"logq/expr"
	"logq/types"
)

// varState computes VARIANCE/VAR_SAMP, VAR_POP, STDDEV/STDDEV_SAMP and
// STDDEV_POP. Each group keeps its count and the sums of x−k and (x−k)² for
// a pivot k (its first value), which avoids the cancellation of the naive
// sum-of-squares formula when values are large and close together.
//
// The sums are kept scaled by 2^-sc (sc ≥ 0, per group, raised when a
// deviation passes 2^480): (x−k)² of finite values past 1e154 would
// otherwise be +inf, and STDDEV of 1e200 and −1e200 is a finite 1.4e200.
type varState struct {
	pop, sqrt bool
	float     bool
	n         []int64
	k, s, ss  []float64
	sc        []int
}

func newVarState(a expr.AggCall) *varState {
	return &varState{
		pop:   a.Fn == "var_pop" || a.Fn == "stddev_pop",
		sqrt:  a.Fn == "stddev" || a.Fn == "stddev_samp" || a.Fn == "stddev_pop",
		float: a.Args[0].Type().Kind == types.KindFloat64,
	}
}

func (s *varState) grow(n int) {
	s.n = growZero(s.n, n)
	s.k, s.s, s.ss = growZero(s.k, n), growZero(s.s, n), growZero(s.ss, n)
	s.sc = growZero(s.sc, n)
}

// varLimit bounds a scaled deviation: its square times any count (up to
// 2^63), and the square of a sum of them over the count, stay finite.
const varLimit = 0x1p480

// scaleTo raises group g's scale to sc, rescaling its sums.
func (s *varState) scaleTo(g, sc int) {
	if sc <= s.sc[g] {
		return
	}
	d := s.sc[g] - sc
	s.s[g] = math.Ldexp(s.s[g], d)
	s.ss[g] = math.Ldexp(s.ss[g], 2*d)
	s.sc[g] = sc
}

// scaled is d·2^-sc, raising group g's scale first when it would pass
// varLimit.
func (s *varState) scaled(g int, d float64) float64 {
	s.scaleTo(g, deviationScale(d))
	return math.Ldexp(d, -s.sc[g])
}

// deviationScale is the least scale at which a deviation d·2^-sc stays
// within varLimit (0 for a NaN or infinite d, which no scale helps).
func deviationScale(d float64) int {
	if math.Abs(d) <= varLimit || math.IsInf(d, 0) || math.IsNaN(d) {
		return 0
	}
	_, e := math.Frexp(d)
	return e - 480
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
		if s.sc[gi] != 0 || math.Abs(d) > varLimit {
			d = s.scaled(int(gi), d)
		}
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
	m2 := s.ss[g] - s.s[g]*(s.s[g]/float64(n)) // s² alone could overflow
	m2 = math.Max(m2, 0)
	var v float64
	if s.pop {
		v = m2 / float64(n)
	} else {
		v = m2 / float64(n-1)
	}
	if s.sqrt {
		return types.FloatValue(math.Ldexp(math.Sqrt(v), s.sc[g]))
	}
	return types.FloatValue(math.Ldexp(v, 2*s.sc[g]))
}

// merge re-centres the other group's sums on this group's pivot, at the
// larger of the two scales.
func (s *varState) merge(target []int32, other aggState) {
	o := other.(*varState)
	for g, t := range target {
		if o.n[g] == 0 {
			continue
		}
		if s.n[t] == 0 {
			s.n[t], s.k[t], s.s[t], s.ss[t], s.sc[t] = o.n[g], o.k[g], o.s[g], o.ss[g], o.sc[g]
			continue
		}
		s.scaleTo(int(t), o.sc[g])
		os, oss := math.Ldexp(o.s[g], o.sc[g]-s.sc[t]), math.Ldexp(o.ss[g], 2*(o.sc[g]-s.sc[t]))
		// x − k_t = (x − k_o) + d, with d scaled as the sums are; raising
		// the scale for d rescales this group's sums, not the other's
		sc := s.sc[t]
		d := s.scaled(int(t), o.k[g]-s.k[t])
		if s.sc[t] != sc {
			os, oss = math.Ldexp(os, sc-s.sc[t]), math.Ldexp(oss, 2*(sc-s.sc[t]))
		}
		on := float64(o.n[g])
		s.ss[t] += oss + 2*d*os + on*d*d
		s.s[t] += os + on*d
		s.n[t] += o.n[g]
	}
}
