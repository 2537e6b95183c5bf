package exec

import (
	"math"
	"strings"

	"logq/expr"
	"logq/types"
)

// havingState computes agg(x HAVING MAX|MIN y): each group keeps the
// arguments of the rows whose y equals the best y met so far (a better y
// drops them), and the aggregate runs over the rows kept once all have
// arrived (replayRows). A NULL y never matches, as SQL equality has it;
// a NaN y is the group's MAX and MIN (BigQuery's rule) and equals nothing,
// so it leaves the group no rows. Kept rows are charged to the query's
// memory budget; parallel partial states merge their kept rows.
type havingState struct {
	call  expr.AggCall // without HAVING: what runs over the rows kept
	max   bool
	best  []types.Value // a NULL best: no row yet
	nan   []bool        // a NaN was met: no row can match
	rows  [][][]types.Value
	inner aggState // built by the first result
	mem   *memBudget
	err   error
}

func newHavingState(a expr.AggCall) *havingState {
	s := &havingState{max: a.Having > 0}
	a.Having = 0
	a.Args = a.Args[:len(a.Args)-1]
	s.call = a
	return s
}

func (s *havingState) setBudget(m *memBudget) { s.mem = m }

func (s *havingState) failed() error { return s.err }

func (s *havingState) grow(n int) {
	for len(s.best) < n {
		s.best = append(s.best, types.Value{Null: true})
		s.nan = append(s.nan, false)
		s.rows = append(s.rows, nil)
	}
}

func (s *havingState) update(g []int32, args []*Vector, n int) {
	y := args[len(args)-1]
	for r, gi := range g[:n] {
		if y.isNull(r) || s.err != nil || !s.place(gi, y.Value(r)) {
			continue
		}
		row := make([]types.Value, len(args)-1) // only for a row kept
		for i, a := range args[:len(args)-1] {
			row[i] = a.Value(r)
		}
		s.keep(gi, [][]types.Value{row})
	}
}

// place reports whether rows whose having value is y join group g's kept
// rows, first dropping those a better y replaces.
func (s *havingState) place(g int32, y types.Value) bool {
	if s.nan[g] {
		return false
	}
	if y.T.Kind == types.KindFloat64 && math.IsNaN(y.F) {
		s.nan[g], s.rows[g] = true, nil
		return false
	}
	if !s.best[g].Null {
		c, _ := types.Compare(y, s.best[g])
		if c == 0 {
			return true
		}
		if s.max != (c > 0) {
			return false // worse
		}
	}
	s.best[g], s.rows[g] = y, nil
	return true
}

func (s *havingState) keep(g int32, rows [][]types.Value) {
	s.rows[g] = append(s.rows[g], rows...)
	if s.mem != nil && len(rows) > 0 {
		s.err = s.mem.charge(strings.ToUpper(s.call.Fn)+"(… HAVING)", len(rows), len(rows[0]))
	}
}

func (s *havingState) merge(target []int32, other aggState) {
	o := other.(*havingState)
	for g, t := range target {
		switch {
		case o.nan[g]:
			s.nan[t], s.rows[t] = true, nil
		case !o.best[g].Null && s.place(t, o.best[g]):
			s.keep(t, o.rows[g])
		}
	}
	if s.err == nil {
		s.err = o.err
	}
}

func (s *havingState) result(g int) types.Value {
	if s.inner == nil {
		s.inner = replayRows(s.call, s.rows)
	}
	return s.inner.result(g)
}

func (s *havingState) resultErr(g int) error { return innerErr(s.inner, g) }
