package exec

import (
	"sort"
	"strings"

	"logq/expr"
	"logq/types"
)

// listState keeps every value of a group, for STRING_AGG and ARRAY_AGG,
// with its ORDER BY keys when the call has them (planner/bind_aggmods.go).
// Without ORDER BY the order of the values is unspecified, as in BigQuery
// (it is the order rows arrive in, which parallel workers change). With
// ORDER BY the values are sorted by their keys, ties in arrival order within
// a worker; LIMIT then keeps the first n.
type listState struct {
	array  bool
	delim  string     // STRING_AGG; NULL delimiter: nullDelim
	text   types.Type // STRING_AGG's result: STRING or BYTES
	nullD  bool
	elem   types.Type
	order  []expr.AggOrder
	limit  int64 // < 0: none
	ignore bool  // IGNORE NULLS
	nv     int   // arguments before the ORDER BY keys
	vals   [][]listItem
	err    error
}

type listItem struct {
	v    types.Value
	keys []types.Value
}

func newListState(a expr.AggCall) *listState {
	s := &listState{array: a.Fn == "array_agg", delim: ",", order: a.Order, limit: -1, ignore: a.IgnoreNulls}
	s.nv = len(a.Args) - len(a.Order)
	if a.HasLimit {
		s.limit = a.Limit
	}
	if s.array {
		s.elem = *a.T.Elem
	} else {
		s.text = a.T
	}
	if s.nv == 2 {
		k := a.Args[1].(*expr.Const)
		s.delim, s.nullD = k.V.S, k.V.Null
	}
	return s
}

func (s *listState) grow(n int) {
	s.vals = growZero(s.vals, n)
}

func (s *listState) update(g []int32, args []*Vector, n int) {
	v := args[0]
	keyVecs := args[s.nv:]
	for r, gi := range g {
		x := v.Value(r)
		if x.Null && (!s.array || s.ignore) {
			continue // STRING_AGG skips NULLs; ARRAY_AGG keeps them (see nullInResult)
		}
		it := listItem{v: x}
		if len(keyVecs) > 0 {
			it.keys = make([]types.Value, len(keyVecs))
			for i, kv := range keyVecs {
				it.keys[i] = kv.Value(r)
			}
		}
		s.vals[gi] = append(s.vals[gi], it)
	}
}

func (s *listState) failed() error { return s.err }

// less orders two values by their ORDER BY keys.
func (s *listState) less(a, b []types.Value) bool {
	for i, o := range s.order {
		if c := orderCompare(a[i], b[i], o.Desc, o.NullsFirst); c != 0 {
			return c < 0
		}
	}
	return false
}

// final returns a group's values in order, limited.
func (s *listState) final(g int) []types.Value {
	items := s.vals[g]
	if len(s.order) > 0 {
		sort.SliceStable(items, func(i, j int) bool { return s.less(items[i].keys, items[j].keys) })
	}
	if s.limit >= 0 && int64(len(items)) > s.limit {
		items = items[:s.limit]
	}
	out := make([]types.Value, len(items))
	for i, it := range items {
		out[i] = it.v
	}
	return out
}

func (s *listState) result(g int) types.Value {
	vals := s.final(g)
	if s.array {
		if len(vals) == 0 { // no row, none left by IGNORE NULLS, or LIMIT 0
			return types.NullOf(types.ArrayOf(s.elem))
		}
		return types.ArrayValue(s.elem, vals)
	}
	if len(vals) == 0 || s.nullD {
		return types.NullOf(s.text)
	}
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = v.S
	}
	return types.Value{T: s.text, S: strings.Join(parts, s.delim)}
}

func (s *listState) merge(target []int32, other aggState) {
	o := other.(*listState)
	for g, t := range target {
		s.vals[t] = append(s.vals[t], o.vals[g]...)
	}
	if s.err == nil {
		s.err = o.err
	}
}
