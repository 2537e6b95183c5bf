package exec

import (
	"math"

	"logq/expr"
	"logq/types"
)

// covarState computes COVAR_POP, COVAR_SAMP and CORR over the pairs where
// neither value is NULL. As varState, it keeps sums of deviations from a
// pivot pair (the first), which avoids the cancellation of the naive
// formulas: sums of dx, dy, dx·dy, dx², dy².
//
// As varState too, the sums are kept scaled by 2^-sc per group (sc ≥ 0,
// raised when a deviation passes varLimit): ZetaSQL accumulates in a long
// double, so the co-moment of finite values near 1e304 is ±inf for COVAR_*
// and CORR of values near 1e154 is still ±1, where FLOAT64 sums give NaN.
// A NaN or infinite input makes every result NaN, as ZetaSQL's does.
type covarState struct {
	fn                    string
	n                     []int64
	kx, ky                []float64
	sx, sy, sxy, sxx, syy []float64
	sc                    []int
}

func newCovarState(a expr.AggCall) aggState {
	if a.Args[0].Type().IsDecimal() {
		return newDecimalMomentsState(a) // op_agg_moments_decimal.go
	}
	return &covarState{fn: a.Fn}
}

func (s *covarState) grow(n int) {
	s.n = growZero(s.n, n)
	s.kx, s.ky = growZero(s.kx, n), growZero(s.ky, n)
	s.sx, s.sy, s.sxy = growZero(s.sx, n), growZero(s.sy, n), growZero(s.sxy, n)
	s.sxx, s.syy = growZero(s.sxx, n), growZero(s.syy, n)
	s.sc = growZero(s.sc, n)
}

// scaleTo raises group g's scale to sc, rescaling its sums.
func (s *covarState) scaleTo(g, sc int) {
	if sc <= s.sc[g] {
		return
	}
	d := s.sc[g] - sc
	s.sx[g], s.sy[g] = math.Ldexp(s.sx[g], d), math.Ldexp(s.sy[g], d)
	s.sxy[g], s.sxx[g], s.syy[g] = math.Ldexp(s.sxy[g], 2*d), math.Ldexp(s.sxx[g], 2*d), math.Ldexp(s.syy[g], 2*d)
	s.sc[g] = sc
}

// scaled returns dx and dy at group g's scale, raising it first when either
// would pass varLimit.
func (s *covarState) scaled(g int, dx, dy float64) (float64, float64) {
	s.scaleTo(g, max(deviationScale(dx), deviationScale(dy))) // op_agg_var.go
	return math.Ldexp(dx, -s.sc[g]), math.Ldexp(dy, -s.sc[g])
}

func (s *covarState) update(g []int32, args []*Vector, n int) {
	xs, ys := args[0], args[1]
	for r, gi := range g {
		if xs.isNull(r) || ys.isNull(r) {
			continue
		}
		x, y := xs.Value(r).Float(), ys.Value(r).Float()
		if s.n[gi] == 0 {
			s.kx[gi], s.ky[gi] = x, y
		}
		s.n[gi]++
		if math.IsInf(x, 0) || math.IsInf(y, 0) || math.IsNaN(x) || math.IsNaN(y) {
			s.sxy[gi], s.sxx[gi], s.syy[gi] = math.NaN(), math.NaN(), math.NaN()
			continue
		}
		dx, dy := x-s.kx[gi], y-s.ky[gi]
		if s.sc[gi] != 0 || math.Abs(dx) > varLimit || math.Abs(dy) > varLimit {
			dx, dy = s.scaled(int(gi), dx, dy)
		}
		s.sx[gi] += dx
		s.sy[gi] += dy
		s.sxy[gi] += dx * dy
		s.sxx[gi] += dx * dx
		s.syy[gi] += dy * dy
	}
}

func (s *covarState) result(g int) types.Value {
	n := float64(s.n[g])
	switch {
	case s.n[g] == 0, s.n[g] < 2 && s.fn != "covar_pop":
		return types.NullOf(types.Float64)
	}
	cxy := s.sxy[g] - s.sx[g]*(s.sy[g]/n)
	switch s.fn {
	case "covar_pop":
		return types.FloatValue(math.Ldexp(cxy/n, 2*s.sc[g]))
	case "covar_samp":
		return types.FloatValue(math.Ldexp(cxy/(n-1), 2*s.sc[g]))
	}
	// CORR is scale-free: the scaled sums give it directly.
	cxx := math.Max(s.sxx[g]-s.sx[g]*(s.sx[g]/n), 0)
	cyy := math.Max(s.syy[g]-s.sy[g]*(s.sy[g]/n), 0)
	// One square root of the product (4/√16 is 1, 4/(√2·√8) is not),
	// unless the product leaves FLOAT64's range. A constant side has no
	// correlation: 0/0, NaN.
	d := math.Sqrt(cxx * cyy)
	if math.IsInf(d, 0) || (d == 0 && cxx != 0 && cyy != 0) {
		d = math.Sqrt(cxx) * math.Sqrt(cyy)
	}
	return types.FloatValue(cxy / d)
}

// merge re-centres the other group's sums on this group's pivot pair, at
// the larger of the two scales.
func (s *covarState) merge(target []int32, other aggState) {
	o := other.(*covarState)
	for g, t := range target {
		if o.n[g] == 0 {
			continue
		}
		if s.n[t] == 0 {
			s.n[t], s.kx[t], s.ky[t], s.sc[t] = o.n[g], o.kx[g], o.ky[g], o.sc[g]
			s.sx[t], s.sy[t], s.sxy[t], s.sxx[t], s.syy[t] = o.sx[g], o.sy[g], o.sxy[g], o.sxx[g], o.syy[g]
			continue
		}
		s.scaleTo(int(t), o.sc[g])
		// the pivots' distance, at a scale that may rise once more
		dx, dy := s.scaled(int(t), o.kx[g]-s.kx[t], o.ky[g]-s.ky[t])
		k := o.sc[g] - s.sc[t]
		osx, osy := math.Ldexp(o.sx[g], k), math.Ldexp(o.sy[g], k)
		osxy, osxx, osyy := math.Ldexp(o.sxy[g], 2*k), math.Ldexp(o.sxx[g], 2*k), math.Ldexp(o.syy[g], 2*k)
		on := float64(o.n[g])
		s.sxy[t] += osxy + dx*osy + dy*osx + on*dx*dy
		s.sxx[t] += osxx + 2*dx*osx + on*dx*dx
		s.syy[t] += osyy + 2*dy*osy + on*dy*dy
		s.sx[t] += osx + on*dx
		s.sy[t] += osy + on*dy
		s.n[t] += o.n[g]
	}
}
