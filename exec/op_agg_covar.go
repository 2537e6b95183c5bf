package exec

import (
	"math"

	"logq/planner"
	"logq/types"
)

// covarState computes COVAR_POP, COVAR_SAMP and CORR over the pairs where
// neither value is NULL. As varState, it keeps sums of deviations from a
// pivot pair (the first), which avoids the cancellation of the naive
// formulas: sums of dx, dy, dx·dy, dx², dy².
type covarState struct {
	fn                    string
	n                     []int64
	kx, ky                []float64
	sx, sy, sxy, sxx, syy []float64
}

func newCovarState(a planner.AggCall) aggState { return &covarState{fn: a.Fn} }

func (s *covarState) grow(n int) {
	s.n = growZero(s.n, n)
	s.kx, s.ky = growZero(s.kx, n), growZero(s.ky, n)
	s.sx, s.sy, s.sxy = growZero(s.sx, n), growZero(s.sy, n), growZero(s.sxy, n)
	s.sxx, s.syy = growZero(s.sxx, n), growZero(s.syy, n)
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
		dx, dy := x-s.kx[gi], y-s.ky[gi]
		s.n[gi]++
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
	cxy := s.sxy[g] - s.sx[g]*s.sy[g]/n
	switch s.fn {
	case "covar_pop":
		return types.FloatValue(cxy / n)
	case "covar_samp":
		return types.FloatValue(cxy / (n - 1))
	}
	cxx := math.Max(s.sxx[g]-s.sx[g]*s.sx[g]/n, 0)
	cyy := math.Max(s.syy[g]-s.sy[g]*s.sy[g]/n, 0)
	// One square root of the product (4/√16 is 1, 4/(√2·√8) is not),
	// unless the product leaves FLOAT64's range. A constant side has no
	// correlation: 0/0, NaN.
	d := math.Sqrt(cxx * cyy)
	if math.IsInf(d, 0) || (d == 0 && cxx != 0 && cyy != 0) {
		d = math.Sqrt(cxx) * math.Sqrt(cyy)
	}
	return types.FloatValue(cxy / d)
}

// merge re-centres the other group's sums on this group's pivot pair.
func (s *covarState) merge(target []int32, other aggState) {
	o := other.(*covarState)
	for g, t := range target {
		if o.n[g] == 0 {
			continue
		}
		if s.n[t] == 0 {
			s.n[t], s.kx[t], s.ky[t] = o.n[g], o.kx[g], o.ky[g]
			s.sx[t], s.sy[t], s.sxy[t], s.sxx[t], s.syy[t] = o.sx[g], o.sy[g], o.sxy[g], o.sxx[g], o.syy[g]
			continue
		}
		dx, dy := o.kx[g]-s.kx[t], o.ky[g]-s.ky[t]
		on := float64(o.n[g])
		s.sxy[t] += o.sxy[g] + dx*o.sy[g] + dy*o.sx[g] + on*dx*dy
		s.sxx[t] += o.sxx[g] + 2*dx*o.sx[g] + on*dx*dx
		s.syy[t] += o.syy[g] + 2*dy*o.sy[g] + on*dy*dy
		s.sx[t] += o.sx[g] + on*dx
		s.sy[t] += o.sy[g] + on*dy
		s.n[t] += o.n[g]
	}
}
