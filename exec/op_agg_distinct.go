package exec

import (
	"strings"

	"logq/expr"
	"logq/types"
)

// distinctArgs computes an aggregate with DISTINCT other than COUNT
// (SUM, AVG, MIN, MAX, ARRAY_AGG, STRING_AGG): each group keeps the
// arguments of the first row of each distinct value of the first argument,
// and the aggregate itself is computed over those rows once all have
// arrived. Parallel partial aggregates merge their distinct rows, never
// their results, so a value two workers met counts once. Each distinct value
// is charged to the query's memory budget. (COUNT(DISTINCT) keeps only the
// set: distinctState.)
type distinctArgs struct {
	call  expr.AggCall // without DISTINCT: what runs over the rows kept
	seen  []map[string]bool
	rows  [][][]types.Value // by group: the kept rows' arguments
	inner aggState          // built by the first result
	mem   *memBudget
	err   error
	buf   []byte
}

func newDistinctArgs(a expr.AggCall) *distinctArgs {
	a.Distinct = false
	return &distinctArgs{call: a}
}

func (s *distinctArgs) setBudget(m *memBudget) { s.mem = m }

func (s *distinctArgs) failed() error { return s.err }

func (s *distinctArgs) grow(n int) {
	for len(s.seen) < n {
		s.seen = append(s.seen, map[string]bool{})
		s.rows = append(s.rows, nil)
	}
}

func (s *distinctArgs) update(g []int32, args []*Vector, n int) {
	for r, gi := range g[:n] {
		if !s.first(gi, args[0].Value(r)) {
			continue
		}
		row := make([]types.Value, len(args))
		for i, a := range args {
			row[i] = a.Value(r)
		}
		s.keep(gi, row)
	}
}

// first reports whether v is the first of its value in group g (and marks
// it seen); a duplicate's row is never built.
func (s *distinctArgs) first(g int32, v types.Value) bool {
	if s.err != nil {
		return false
	}
	s.buf = appendKey(s.buf[:0], v)
	if s.seen[g][string(s.buf)] {
		return false
	}
	s.seen[g][string(s.buf)] = true
	return true
}

// keep adds the row of a first value to group g, charged to the budget.
func (s *distinctArgs) keep(g int32, row []types.Value) {
	s.rows[g] = append(s.rows[g], row)
	if s.mem != nil {
		s.err = s.mem.charge(strings.ToUpper(s.call.Fn)+"(DISTINCT)", 1, len(row))
	}
}

func (s *distinctArgs) merge(target []int32, other aggState) {
	o := other.(*distinctArgs)
	for g, t := range target {
		for _, row := range o.rows[g] {
			if s.first(t, row[0]) {
				s.keep(t, row)
			}
		}
	}
	if s.err == nil {
		s.err = o.err
	}
}

func (s *distinctArgs) result(g int) types.Value {
	if s.inner == nil {
		s.inner = replayRows(s.call, s.rows)
	}
	return s.inner.result(g)
}

// replayRows is the state of call fed, group by group, the argument rows
// kept for each group (by DISTINCT or HAVING MAX/MIN).
func replayRows(call expr.AggCall, groups [][][]types.Value) aggState {
	st := newAggState(call)
	st.grow(len(groups))
	for gi, rows := range groups {
		if len(rows) == 0 {
			continue
		}
		args := make([]*Vector, len(call.Args))
		for i, a := range call.Args {
			args[i] = newVector(a.Type(), len(rows))
			for r, row := range rows {
				args[i].set(r, row[i], len(rows))
			}
		}
		g := make([]int32, len(rows))
		for r := range g {
			g[r] = int32(gi)
		}
		st.update(g, args, len(rows))
	}
	return st
}

func (s *distinctArgs) resultErr(g int) error { return innerErr(s.inner, g) }

// innerErr is the error of group g of a state that wraps another (DISTINCT
// arguments, HAVING MAX/MIN): the inner state's failure (BIT_AND of BYTES
// of unequal lengths), else its per-group error.
func innerErr(inner aggState, g int) error {
	if f, ok := inner.(failing); ok {
		if err := f.failed(); err != nil {
			return err
		}
	}
	if c, ok := inner.(checked); ok {
		return c.resultErr(g)
	}
	return nil
}
