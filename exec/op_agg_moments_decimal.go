package exec

import (
	"math"
	"math/big"

	"logq/expr"
	"logq/types"
)

// decimalMomentsState computes the VAR/STDDEV family, COVAR_* and CORR of
// NUMERIC and BIGNUMERIC arguments exactly: the count and the sums of x,
// y, x·y, x² and y² over the scaled integers, so that n·Σxy − Σx·Σy (the
// co-moment times n²) has no rounding at all, and only the final quotient
// (and square root) is rounded to the FLOAT64 result. ZetaSQL's reference
// also aggregates decimals exactly; a FLOAT64 path would lose the 1 in
// 1e28 + 1.
type decimalMomentsState struct {
	fn    string
	pair  bool
	scale int // decimal digits of the scaled integers
	n     []int64
	sums  [][5]*big.Int // Σx, Σy, Σxy, Σx², Σy²
}

func newDecimalMomentsState(a expr.AggCall) *decimalMomentsState {
	s := &decimalMomentsState{fn: a.Fn, pair: len(a.Args) == 2, scale: 9}
	for _, x := range a.Args {
		if x.Type().Kind == types.KindBigNumeric {
			s.scale = 38
		}
	}
	return s
}

func (s *decimalMomentsState) grow(n int) {
	s.n = growZero(s.n, n)
	for len(s.sums) < n {
		var z [5]*big.Int
		for i := range z {
			z[i] = new(big.Int)
		}
		s.sums = append(s.sums, z)
	}
}

// scaledAt is v (NUMERIC or BIGNUMERIC) times 10^scale, exactly.
func (s *decimalMomentsState) scaledAt(v types.Value) *big.Int {
	x := new(big.Int).Set(v.Scaled())
	if v.T.Kind == types.KindNumeric && s.scale == 38 {
		x.Mul(x, new(big.Int).Exp(big.NewInt(10), big.NewInt(29), nil))
	}
	return x
}

func (s *decimalMomentsState) update(g []int32, args []*Vector, n int) {
	var t big.Int
	for r, gi := range g {
		x := args[0].Value(r)
		y := x
		if s.pair {
			y = args[1].Value(r)
		}
		if x.Null || y.Null {
			continue
		}
		xs, ys := s.scaledAt(x), s.scaledAt(y)
		sm := &s.sums[gi]
		s.n[gi]++
		sm[0].Add(sm[0], xs)
		sm[1].Add(sm[1], ys)
		sm[2].Add(sm[2], t.Mul(xs, ys))
		sm[3].Add(sm[3], t.Mul(xs, xs))
		sm[4].Add(sm[4], t.Mul(ys, ys))
	}
}

func (s *decimalMomentsState) merge(target []int32, other aggState) {
	o := other.(*decimalMomentsState)
	for g, t := range target {
		s.n[t] += o.n[g]
		for i := range s.sums[t] {
			s.sums[t][i].Add(s.sums[t][i], o.sums[g][i])
		}
	}
}

// comoment is n·Σab − Σa·Σb for sums a, b (indexes into Σx, Σy), and the
// pair's product sum index: n² times the population co-moment, scaled by
// 10^(2·scale).
func (s *decimalMomentsState) comoment(g, a, b, ab int) *big.Int {
	sm := s.sums[g]
	m := new(big.Int).Mul(big.NewInt(s.n[g]), sm[ab])
	return m.Sub(m, new(big.Int).Mul(sm[a], sm[b]))
}

func (s *decimalMomentsState) result(g int) types.Value {
	n := s.n[g]
	pop := s.fn == "var_pop" || s.fn == "stddev_pop" || s.fn == "covar_pop"
	if n == 0 || (!pop && n < 2) {
		return types.NullOf(types.Float64)
	}
	const prec = 256
	if s.fn == "corr" {
		num := new(big.Float).SetPrec(prec).SetInt(s.comoment(g, 0, 1, 2))
		d := new(big.Int).Mul(s.comoment(g, 0, 0, 3), s.comoment(g, 1, 1, 4))
		if d.Sign() == 0 {
			return types.FloatValue(math.NaN()) // a constant side: 0/0
		}
		den := new(big.Float).SetPrec(prec).SetInt(d)
		den.Sqrt(den)
		f, _ := num.Quo(num, den).Float64()
		return types.FloatValue(f)
	}
	var m *big.Int
	if s.pair {
		m = s.comoment(g, 0, 1, 2)
	} else {
		m = s.comoment(g, 0, 0, 3)
	}
	// divide by n² (population) or n(n−1) (sample), and by 10^(2·scale)
	div := new(big.Int).Mul(big.NewInt(n), big.NewInt(n))
	if !pop {
		div.SetInt64(n)
		div.Mul(div, big.NewInt(n-1))
	}
	div.Mul(div, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(2*s.scale)), nil))
	v := new(big.Float).SetPrec(prec).SetInt(m)
	v.Quo(v, new(big.Float).SetPrec(prec).SetInt(div))
	if s.fn == "stddev" || s.fn == "stddev_samp" || s.fn == "stddev_pop" {
		if v.Sign() < 0 {
			v.SetInt64(0)
		}
		v.Sqrt(v)
	}
	f, _ := v.Float64()
	return types.FloatValue(f)
}
