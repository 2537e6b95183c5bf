package exec

import (
	"strings"

	"logq/planner"
	"logq/types"
)

// listState keeps every non-NULL value of a group, for STRING_AGG and
// ARRAY_AGG. Without an ORDER BY inside the call (not supported, refused by
// the parser) the order of the values is unspecified, as in BigQuery.
type listState struct {
	array bool
	delim string // STRING_AGG; NULL delimiter: nullDelim
	nullD bool
	elem  types.Type
	vals  [][]types.Value
	seen  []bool // ARRAY_AGG: the group had a row (NULL elements fail)
	err   error
}

func newListState(a planner.AggCall) *listState {
	s := &listState{array: a.Fn == "array_agg", delim: ","}
	if s.array {
		s.elem = *a.T.Elem
	}
	if len(a.Args) == 2 {
		k := a.Args[1].(*planner.Const)
		s.delim, s.nullD = k.V.S, k.V.Null
	}
	return s
}

func (s *listState) grow(n int) {
	s.vals = growZero(s.vals, n)
	s.seen = growZero(s.seen, n)
}

func (s *listState) update(g []int32, args []*Vector, n int) {
	v := args[0]
	for r, gi := range g {
		x := v.Value(r)
		s.seen[gi] = true
		if x.Null {
			if s.array && s.err == nil {
				s.err = &Error{Kind: KindEvaluation, Msg: "ARRAY_AGG: an array cannot contain NULL (filter the NULLs out with WHERE)"}
			}
			continue
		}
		s.vals[gi] = append(s.vals[gi], x)
	}
}

func (s *listState) failed() error { return s.err }

func (s *listState) result(g int) types.Value {
	vals := s.vals[g]
	if s.array {
		if !s.seen[g] {
			return types.NullOf(types.ArrayOf(s.elem))
		}
		return types.ArrayValue(s.elem, vals)
	}
	if len(vals) == 0 || s.nullD {
		return types.NullOf(types.String)
	}
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = v.S
	}
	return types.StringValue(strings.Join(parts, s.delim))
}

func (s *listState) merge(target []int32, other aggState) {
	o := other.(*listState)
	for g, t := range target {
		s.vals[t] = append(s.vals[t], o.vals[g]...)
		s.seen[t] = s.seen[t] || o.seen[g]
	}
	if s.err == nil {
		s.err = o.err
	}
}
