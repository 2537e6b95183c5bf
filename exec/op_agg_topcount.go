package exec

import (
	"sort"

	"logq/planner"
	"logq/types"
)

// topCountState is APPROX_TOP_COUNT(x, n), computed exactly: a count per
// distinct value (NULL is a value, as in BigQuery) and, at the end, the n
// values with the highest counts as ARRAY<STRUCT<value, count>>. Ties in
// count are broken by the value, ascending (NULL first), so the answer does
// not depend on the order rows arrive in or on parallel workers. A group
// with no rows gives NULL. Every distinct value kept is charged to the
// memory budget; a merge charges what it adds and releases the partial's.
type topCountState struct {
	n      int
	elem   types.Type // the STRUCT<value, count>
	counts []map[string]*topCount
	mem    *memBudget
	held   int
	err    error
}

type topCount struct {
	v types.Value
	c int64
}

func newTopCountState(a planner.AggCall) *topCountState {
	return &topCountState{n: int(a.Args[1].(*planner.Const).V.I), elem: *a.T.Elem}
}

func (s *topCountState) setBudget(m *memBudget) { s.mem = m }
func (s *topCountState) failed() error          { return s.err }

func (s *topCountState) charge(n int) {
	if n == 0 || s.err != nil {
		return
	}
	s.held += n
	s.err = s.mem.charge("APPROX_TOP_COUNT", n, 2)
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
		if tc := s.counts[gi][string(buf)]; tc != nil {
			tc.c++
			continue
		}
		s.counts[gi][string(buf)] = &topCount{v: x, c: 1}
		added++
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
		if a.c != b.c {
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
		out[i] = types.StructValue(s.elem, []types.Value{v, types.IntValue(tc.c)})
	}
	return types.ArrayValue(s.elem, out)
}
