package exec

import (
	"math"
	"math/big"
	"math/bits"

	"logq/expr"
	"logq/types"
)

func newSumState(a expr.AggCall) aggState {
	if t := a.Args[0].Type(); t.IsDecimal() {
		return &decimalSumState{t: t, avg: a.Fn == "avg"}
	}
	if a.Args[0].Type().Kind == types.KindInterval {
		return &intervalSumState{avg: a.Fn == "avg"}
	}
	return &sumState{avg: a.Fn == "avg", float: a.Args[0].Type().Kind == types.KindFloat64}
}

// sumState is SUM or AVG. INT64 values are summed exactly in 128 bits (lo,
// with hi the carry word), as BigQuery does: only a final SUM outside INT64
// is an overflow error, and AVG divides the exact sum.
//
// A FLOAT64 SUM whose final value is past FLOAT64 from finite inputs alone
// is a floating point overflow error, as in ZetaSQL (special marks the
// groups that met an infinity or NaN, whose sum is what IEEE arithmetic
// gives). A partial sum past FLOAT64 is not: ZetaSQL adds in a wider
// float, so 1.7e308 + 1.7e307 - 1.7e308 is 1.7e307. A group whose partial
// sum leaves FLOAT64 goes on in a wide big.Float (wide).
type sumState struct {
	avg, float bool
	lo         []uint64
	hi         []int64
	f          []float64
	c          []int64
	special    []bool
	wide       []*big.Float
}

// wideBits is the wide sums' precision: a FLOAT64's exponents span about
// 2100 bits, so sums of them are (nearly always) exact.
const wideBits = 2200

func (s *sumState) grow(n int) {
	s.lo, s.hi, s.f, s.c = growZero(s.lo, n), growZero(s.hi, n), growZero(s.f, n), growZero(s.c, n)
	s.special = growZero(s.special, n)
	if s.float {
		s.wide = growZero(s.wide, n)
	}
}

// addFloat adds x to group g's FLOAT64 sum.
func (s *sumState) addFloat(g int32, x float64) {
	switch w := s.wide[g]; {
	case math.IsInf(x, 0) || math.IsNaN(x):
		s.special[g] = true
		if w != nil { // a finite wide sum vanishes beside an infinity or NaN
			s.f[g], s.wide[g] = 0, nil
		}
		s.f[g] += x
	case w != nil:
		w.Add(w, new(big.Float).SetFloat64(x))
	default:
		y := s.f[g] + x
		if math.IsInf(y, 0) && !s.special[g] {
			w := new(big.Float).SetPrec(wideBits).SetFloat64(s.f[g])
			s.wide[g] = w.Add(w, new(big.Float).SetFloat64(x))
			return
		}
		s.f[g] = y
	}
}

// floatSum is group g's FLOAT64 sum (±Inf when past FLOAT64).
func (s *sumState) floatSum(g int) float64 {
	if w := s.wide[g]; w != nil {
		f, _ := w.Float64()
		return f
	}
	return s.f[g]
}

// add128 adds x (sign-extended) to the 128-bit integer (hi, lo).
func add128(hi int64, lo uint64, xhi int64, xlo uint64) (int64, uint64) {
	lo, carry := bits.Add64(lo, xlo, 0)
	return hi + xhi + int64(carry), lo
}

func (s *sumState) update(g []int32, args []*Vector, n int) {
	v := args[0]
	if v.storage() == inFloats {
		for r, gi := range g {
			if !v.isNull(r) {
				x := v.F[r]
				if y := s.f[gi] + x; s.wide[gi] == nil && !math.IsInf(y, 0) && !math.IsNaN(y) {
					s.f[gi] = y // the common case, inline
				} else {
					s.addFloat(gi, x)
				}
				s.c[gi]++
			}
		}
		return
	}
	// Summed run by run of one group in registers (exact: 128-bit sums
	// add in any order), then into the group's.
	for i := 0; i < len(g); {
		gi := g[i]
		hi, lo, c := int64(0), uint64(0), int64(0)
		for ; i < len(g) && g[i] == gi; i++ {
			if v.isNull(i) {
				continue
			}
			x := v.I[i]
			hi, lo = add128(hi, lo, x>>63, uint64(x))
			c++
		}
		s.hi[gi], s.lo[gi] = add128(s.hi[gi], s.lo[gi], hi, lo)
		s.c[gi] += c
	}
}

// fits reports whether group g's integer sum is an INT64.
func (s *sumState) fits(g int) bool {
	return s.hi[g] == int64(s.lo[g])>>63
}

// sum128Float is group g's integer sum rounded to the nearest FLOAT64.
func (s *sumState) sum128Float(g int) float64 {
	if s.fits(g) {
		return float64(int64(s.lo[g]))
	}
	x := new(big.Int).SetInt64(s.hi[g])
	x.Lsh(x, 64).Add(x, new(big.Int).SetUint64(s.lo[g]))
	f, _ := new(big.Float).SetInt(x).Float64()
	return f
}

// resultErr is the overflow of a SUM of INT64 beyond INT64, or of a SUM of
// finite FLOAT64s beyond FLOAT64.
func (s *sumState) resultErr(g int) error {
	if s.float && !s.avg && s.c[g] > 0 && !s.special[g] && math.IsInf(s.floatSum(g), 0) {
		return &Error{Kind: KindEvaluation, Msg: "floating point overflow: SUM is outside FLOAT64"}
	}
	if s.avg || s.float || s.c[g] == 0 || s.fits(g) {
		return nil
	}
	return &Error{Kind: KindEvaluation, Msg: "integer overflow: SUM is outside INT64"}
}

func (s *sumState) result(g int) types.Value {
	switch {
	case s.c[g] == 0 && s.avg:
		return types.NullOf(types.Float64)
	case s.c[g] == 0:
		return types.NullOf(types.Int64)
	case s.avg && s.float && s.wide[g] != nil:
		mean := new(big.Float).SetPrec(wideBits).Quo(s.wide[g], new(big.Float).SetInt64(s.c[g]))
		f, _ := mean.Float64()
		return types.FloatValue(f)
	case s.avg && s.float:
		return types.FloatValue(s.f[g] / float64(s.c[g]))
	case s.avg:
		return types.FloatValue(s.sum128Float(g) / float64(s.c[g]))
	case s.float:
		return types.FloatValue(s.floatSum(g))
	}
	return types.IntValue(int64(s.lo[g])) // resultOf reports a sum outside INT64
}

func (s *sumState) merge(target []int32, other aggState) {
	o := other.(*sumState)
	for g, t := range target {
		s.hi[t], s.lo[t] = add128(s.hi[t], s.lo[t], o.hi[g], o.lo[g])
		s.c[t] += o.c[g]
		if !s.float {
			continue
		}
		if w := o.wide[g]; w != nil && !s.special[t] { // the other's wide sum, added in full
			if s.wide[t] == nil {
				s.wide[t] = new(big.Float).SetPrec(wideBits).SetFloat64(s.f[t])
			}
			s.wide[t].Add(s.wide[t], w)
			continue
		}
		s.addFloat(t, o.floatSum(g)) // an infinity or NaN of the other's included
	}
}

// decimalSumState is SUM or AVG of NUMERIC or BIGNUMERIC: the exact sum of
// the scaled integers. Only a final SUM outside the type is an overflow
// error; AVG rounds the exact mean half away from zero.
type decimalSumState struct {
	t   types.Type
	avg bool
	sum []*big.Int
	c   []int64
}

func (s *decimalSumState) grow(n int) {
	for len(s.sum) < n {
		s.sum = append(s.sum, new(big.Int))
	}
	s.c = growZero(s.c, n)
}

func (s *decimalSumState) update(g []int32, args []*Vector, n int) {
	v := args[0]
	for r, gi := range g[:n] {
		if !v.isNull(r) {
			s.sum[gi].Add(s.sum[gi], v.Value(r).Scaled())
			s.c[gi]++
		}
	}
}

func (s *decimalSumState) value(g int) (types.Value, error) {
	if s.c[g] == 0 {
		return types.NullOf(s.t), nil
	}
	if s.avg {
		return types.DecimalValue(s.t, types.DivRound(s.sum[g], big.NewInt(s.c[g])))
	}
	return types.DecimalValue(s.t, s.sum[g])
}

func (s *decimalSumState) result(g int) types.Value {
	v, _ := s.value(g) // resultOf reports a sum outside the type
	return v
}

func (s *decimalSumState) resultErr(g int) error {
	if _, err := s.value(g); err != nil {
		return &Error{Kind: KindEvaluation, Msg: "numeric overflow: SUM is outside " + s.t.String(), Err: err}
	}
	return nil
}

func (s *decimalSumState) merge(target []int32, other aggState) {
	o := other.(*decimalSumState)
	for g, t := range target {
		s.sum[t].Add(s.sum[t], o.sum[g])
		s.c[t] += o.c[g]
	}
}

// intervalSumState is SUM or AVG of INTERVAL: each part summed on its own
// (the microseconds in 128 bits), as BigQuery sums them; a SUM whose parts
// leave an interval's range is an error, and AVG divides the sums as
// INTERVAL / INT64 does (types.IntervalDiv).
type intervalSumState struct {
	avg          bool
	months, days []int64
	lo           []uint64
	hi           []int64
	c            []int64
}

func (s *intervalSumState) grow(n int) {
	s.months, s.days, s.c = growZero(s.months, n), growZero(s.days, n), growZero(s.c, n)
	s.lo, s.hi = growZero(s.lo, n), growZero(s.hi, n)
}

func (s *intervalSumState) update(g []int32, args []*Vector, n int) {
	v := args[0]
	for r, gi := range g[:n] {
		if v.isNull(r) {
			continue
		}
		x := v.Value(r)
		s.months[gi] += int64(x.Months)
		s.days[gi] += int64(x.Days)
		s.hi[gi], s.lo[gi] = add128(s.hi[gi], s.lo[gi], x.I>>63, uint64(x.I))
		s.c[gi]++
	}
}

func (s *intervalSumState) value(g int) (types.Value, error) {
	if s.c[g] == 0 {
		return types.NullOf(types.Interval), nil
	}
	us := new(big.Int).SetInt64(s.hi[g])
	us.Lsh(us, 64).Add(us, new(big.Int).SetUint64(s.lo[g]))
	n := int64(1)
	if s.avg {
		n = s.c[g]
	}
	return types.IntervalDiv(s.months[g], s.days[g], us, n)
}

func (s *intervalSumState) result(g int) types.Value {
	v, _ := s.value(g) // resultOf reports a sum out of range
	return v
}

func (s *intervalSumState) resultErr(g int) error {
	if _, err := s.value(g); err != nil {
		fn := "SUM"
		if s.avg {
			fn = "AVG"
		}
		return &Error{Kind: KindEvaluation, Msg: "interval overflow in " + fn, Err: err}
	}
	return nil
}

func (s *intervalSumState) merge(target []int32, other aggState) {
	o := other.(*intervalSumState)
	for g, t := range target {
		s.months[t] += o.months[g]
		s.days[t] += o.days[g]
		s.hi[t], s.lo[t] = add128(s.hi[t], s.lo[t], o.hi[g], o.lo[g])
		s.c[t] += o.c[g]
	}
}
