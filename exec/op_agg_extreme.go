package exec

import (
	"math"

	"logq/expr"
	"logq/types"
)

func newExtremeState(a expr.AggCall) aggState {
	s := &extremeState{fn: a.Fn, t: a.T, byKey: len(a.Args) == 2 && a.Having == 0}
	s.isInt = s.intLike()
	return s
}

// extremeState is MIN, MAX or ANY_VALUE. Integer-like inputs (the common
// case: times, counts, milliseconds) stay in ints; others are boxed.
//
// byKey: MIN or MAX of a collated STRING, whose second argument is its
// collation key (expr/collation.go): the value kept is the one of
// the least (greatest) key.
type extremeState struct {
	fn    string
	t     types.Type
	isInt bool // intLike: the values are kept in ints, else in v
	ints  []int64
	v     []types.Value
	set   []bool
	byKey bool
	keys  []types.Value
}

func (s *extremeState) grow(n int) {
	for len(s.set) < n {
		s.set = append(s.set, false)
		if s.isInt {
			s.ints = append(s.ints, 0)
			continue
		}
		s.v = append(s.v, types.Value{})
		if s.byKey {
			s.keys = append(s.keys, types.Value{})
		}
	}
}

func (s *extremeState) intLike() bool {
	if s.byKey {
		return false
	}
	switch s.t.Kind {
	case types.KindInt64, types.KindTimestamp, types.KindDatetime, types.KindDate, types.KindBool:
		return s.fn != "any_value"
	}
	return false
}

func (s *extremeState) update(g []int32, args []*Vector, n int) {
	v := args[0]
	if s.isInt {
		v = dense(v, len(g)) // its values in ints
		ints, set, x := s.ints, s.set, v.I
		switch {
		// Without NULLs, run by run of one group: its extreme in a
		// register, then against the group's.
		case s.fn == "min" && v.Null == nil:
			for i := 0; i < len(g); {
				gi, m := g[i], x[i]
				for i++; i < len(g) && g[i] == gi; i++ {
					m = min(m, x[i])
				}
				if !set[gi] || m < ints[gi] {
					ints[gi], set[gi] = m, true
				}
			}
		case s.fn == "max" && v.Null == nil:
			for i := 0; i < len(g); {
				gi, m := g[i], x[i]
				for i++; i < len(g) && g[i] == gi; i++ {
					m = max(m, x[i])
				}
				if !set[gi] || m > ints[gi] {
					ints[gi], set[gi] = m, true
				}
			}
		default:
			for r, gi := range g {
				if v.isNull(r) {
					continue
				}
				if !set[gi] || (s.fn == "min" && x[r] < ints[gi]) || (s.fn == "max" && x[r] > ints[gi]) {
					ints[gi], set[gi] = x[r], true
				}
			}
		}
		return
	}
	for r, gi := range g {
		if v.isNull(r) {
			continue
		}
		if s.byKey {
			s.keep(int(gi), v.Value(r), args[1].Value(r))
			continue
		}
		if !s.set[gi] {
			s.v[gi], s.set[gi] = v.Value(r), true
			continue
		}
		if s.fn == "any_value" {
			continue
		}
		if x := v.Value(r); s.beats(x, s.v[gi]) {
			s.v[gi] = x
		}
	}
}

// keep makes x (of collation key k) group g's value when its key beats the
// kept one's.
func (s *extremeState) keep(g int, x, k types.Value) {
	if s.set[g] {
		c, _ := types.Compare(k, s.keys[g])
		if (s.fn == "min" && c >= 0) || (s.fn == "max" && c <= 0) {
			return
		}
	}
	s.v[g], s.keys[g], s.set[g] = x, k, true
}

// beats reports whether x replaces cur as the group's MIN or MAX. A NaN
// is both: BigQuery's MIN and MAX are NaN when any input is (NaN orders
// below every number, so MIN finds it by comparing; MAX must keep it).
func (s *extremeState) beats(x, cur types.Value) bool {
	if s.fn == "max" && x.T.Kind == types.KindFloat64 {
		if math.IsNaN(cur.F) {
			return false
		}
		if math.IsNaN(x.F) {
			return true
		}
	}
	c, _ := types.Compare(x, cur)
	return (s.fn == "min" && c < 0) || (s.fn == "max" && c > 0)
}

func (s *extremeState) result(g int) types.Value {
	if !s.set[g] {
		return types.NullOf(s.t)
	}
	if s.isInt {
		return types.Value{T: s.t, I: s.ints[g]}
	}
	return s.v[g]
}

func (s *extremeState) merge(target []int32, other aggState) {
	o := other.(*extremeState)
	if s.isInt {
		for g, t := range target {
			if o.set[g] && (!s.set[t] || (s.fn == "min" && o.ints[g] < s.ints[t]) || (s.fn == "max" && o.ints[g] > s.ints[t])) {
				s.ints[t], s.set[t] = o.ints[g], true
			}
		}
		return
	}
	for g, t := range target {
		if !o.set[g] {
			continue
		}
		if s.byKey {
			s.keep(int(t), o.v[g], o.keys[g])
			continue
		}
		if !s.set[t] {
			s.v[t], s.set[t] = o.v[g], true
			continue
		}
		if s.fn == "any_value" {
			continue
		}
		if s.beats(o.v[g], s.v[t]) {
			s.v[t] = o.v[g]
		}
	}
}
