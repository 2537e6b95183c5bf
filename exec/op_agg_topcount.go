package exec

import (
	"math"
	"sort"

	"logq/expr"
	"logq/types"
)

// topCountState is APPROX_TOP_COUNT(x, n) and APPROX_TOP_SUM(x, w, n),
// computed exactly: a count (or a sum of weights) per distinct value (NULL
// is a value, as in BigQuery) and, at the end, the n values with the
// highest counts (sums) as ARRAY<STRUCT<value, count|sum>>. Ties are broken
// by the value, ascending (NULL first), so the answer does not depend on
// the order rows arrive in or on parallel workers. A group with no rows
// gives NULL. Every distinct value kept is charged to the memory budget; a
// merge charges what it adds and releases the partial's.
//
// APPROX_TOP_SUM's sum has the weight's type; NULL weights add nothing, and
// a value whose weights are all NULL has a NULL sum, ranked last; a
// negative or NaN weight is an error, as BigQuery's docs say.
type topCountState struct {
	n      int
	sum    bool
	elem   types.Type // the STRUCT<value, count|sum>
	counts []map[string]*topCount
	mem    *memBudget
	held   int
	err    error
}

type topCount struct {
	v types.Value
	c int64
	s types.Value // APPROX_TOP_SUM: the sum so far (NULL before a weight)
}

func newTopCountState(a expr.AggCall) *topCountState {
	n := a.Args[len(a.Args)-1].(*expr.Const).V.I
	return &topCountState{n: int(n), sum: a.Fn == "approx_top_sum", elem: *a.T.Elem}
}

// addWeight adds weight w to tc's sum.
func (s *topCountState) addWeight(tc *topCount, w types.Value) {
	if w.Null || s.err != nil {
		return
	}
	switch {
	case w.T.Kind == types.KindFloat64 && (w.F < 0 || w.F != w.F),
		w.T.Kind == types.KindInt64 && w.I < 0,
		w.T.IsDecimal() && w.Scaled().Sign() < 0:
		s.err = &Error{Kind: KindEvaluation, Msg: "APPROX_TOP_SUM: a weight must not be negative or NaN, got " + w.String()}
		return
	}
	if tc.s.Null {
		tc.s = w
		return
	}
	var err error
	switch w.T.Kind {
	case types.KindFloat64:
		tc.s = types.FloatValue(tc.s.F + w.F)
	case types.KindInt64:
		if tc.s.I > math.MaxInt64-w.I {
			err = &Error{Kind: KindEvaluation, Msg: "integer overflow: APPROX_TOP_SUM is outside INT64"}
		}
		tc.s = types.IntValue(tc.s.I + w.I)
	default:
		if tc.s, err = types.DecimalArith(w.T, "+", tc.s, w); err != nil {
			err = &Error{Kind: KindEvaluation, Msg: "numeric overflow: APPROX_TOP_SUM is outside " + w.T.String(), Err: err}
		}
	}
	if err != nil {
		s.err = err
	}
}

func (s *topCountState) setBudget(m *memBudget) { s.mem = m }
func (s *topCountState) failed() error          { return s.err }

func (s *topCountState) charge(n int) {
	if n == 0 || s.err != nil {
		return
	}
	s.held += n
	s.err = s.mem.charge("APPROX_TOP_COUNT", n, 2) // or _SUM
}

func (s *topCountState) grow(n int) {
	for len(s.counts) < n {
		s.counts = append(s.counts, map[string]*topCount{})
	}
}

func (s *topCountState) update(g []int32, args []*Vector, n int) {
	v := args[0]
	added := 0
	var buf []byte
	for r, gi := range g {
		x := v.Value(r)
		buf = appendKey(buf[:0], x)
		tc := s.counts[gi][string(buf)]
		if tc != nil {
			tc.c++
		} else {
			tc = &topCount{v: x, c: 1, s: types.NullOf(s.elem.Fields[1].Type)}
			s.counts[gi][string(buf)] = tc
			added++
		}
		if s.sum {
			s.addWeight(tc, args[1].Value(r))
		}
	}
	s.charge(added)
}

func (s *topCountState) merge(target []int32, other aggState) {
	o := other.(*topCountState)
	added := 0
	for g, t := range target {
		for k, tc := range o.counts[g] {
			if mine := s.counts[t][k]; mine != nil {
				mine.c += tc.c
				if s.sum {
					s.addWeight(mine, tc.s)
				}
				continue
			}
			s.counts[t][k] = tc
			added++
		}
		o.counts[g] = nil
	}
	s.charge(added)
	o.mem.release(o.held, 2)
	o.held = 0
}

func (s *topCountState) result(g int) types.Value {
	m := s.counts[g]
	if len(m) == 0 {
		return types.NullOf(types.ArrayOf(s.elem))
	}
	all := make([]*topCount, 0, len(m))
	for _, tc := range m {
		all = append(all, tc)
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if s.sum {
			if a.s.Null != b.s.Null {
				return b.s.Null
			}
			if c, _ := types.Compare(a.s, b.s); c != 0 && !a.s.Null {
				return c > 0
			}
		} else if a.c != b.c {
			return a.c > b.c
		}
		if a.v.Null || b.v.Null {
			return a.v.Null && !b.v.Null
		}
		c, _ := types.Compare(a.v, b.v)
		return c < 0
	})
	if len(all) > s.n {
		all = all[:s.n]
	}
	out := make([]types.Value, len(all))
	for i, tc := range all {
		v := tc.v
		if v.Null {
			v = types.NullOf(s.elem.Fields[0].Type)
		}
		n := types.IntValue(tc.c)
		if s.sum {
			n = tc.s
		}
		out[i] = types.StructValue(s.elem, []types.Value{v, n})
	}
	return types.ArrayValue(s.elem, out)
}
