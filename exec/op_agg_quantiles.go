package exec

import (
	"math"
	"runtime"
	"slices"
	"sync"

	"logq/expr"
	"logq/types"
)

// quantAgg is APPROX_QUANTILES(x, n): per group, a quantileState
// (quantile.go). When the plan reads only some ranks (AggCall.Ranks), only
// they are computed and the array holds only them.
type quantAgg struct {
	n       int
	ranks   []int
	compact bool // the array holds ranks alone
	respect bool // RESPECT NULLS: NULLs are values, ranked first
	elem    types.Type
	q       []quantileState
	strs    [][]string      // the values of STRING and BYTES, per group
	boxed   [][]types.Value // the values of INTERVAL, per group
	mem     *memBudget      // the strings kept are charged here
	err     error
	done    []types.Value // results, when computed ahead by prepare
	// only, when set, holds per group the kept partial's group that alone
	// gave it values (local_partials.go): their quantiles are the group's.
	// known marks those whose quantiles were computed before the merge,
	// which then copies none of the group's values.
	only  []*sharedQuantiles
	known []bool
}

func newQuantAgg(a expr.AggCall) aggState {
	n := int(a.Args[1].(*expr.Const).V.I)
	ranks := a.Ranks
	if ranks == nil {
		for i := 0; i <= n; i++ {
			ranks = append(ranks, i)
		}
	}
	return &quantAgg{n: n, ranks: ranks, compact: a.Ranks != nil, respect: a.RespectNulls, elem: *a.T.Elem}
}

func (s *quantAgg) setBudget(m *memBudget) { s.mem = m }
func (s *quantAgg) failed() error          { return s.err }

func (s *quantAgg) grow(n int) {
	for len(s.q) < n {
		s.q = append(s.q, quantileState{})
		s.strs = append(s.strs, nil)
		s.boxed = append(s.boxed, nil)
	}
}

// byBytes reports whether the values are ordered by their bytes (strings,
// decimals).
func (s *quantAgg) byBytes() bool { return s.elem.InS() }

// byValue reports whether the values are kept whole and ordered by
// types.Compare: INTERVALs, whose order is their length (a month is 30 days,
// as ZetaSQL compares them), not their parts', and every type under RESPECT
// NULLS (rare: kept whole, NULLs with them).
func (s *quantAgg) byValue() bool { return s.respect || s.elem.Kind == types.KindInterval }

func (s *quantAgg) update(g []int32, args []*Vector, n int) {
	v := args[0]
	if s.byValue() {
		kept := 0
		for r, gi := range g {
			if s.respect || !v.isNull(r) {
				s.boxed[gi] = append(s.boxed[gi], v.Value(r))
				kept++
			}
		}
		if err := s.mem.charge("APPROX_QUANTILES", kept, 1); err != nil && s.err == nil {
			s.err = err
		}
		return
	}
	if s.byBytes() {
		kept := 0
		for r, gi := range g {
			if !v.isNull(r) {
				s.strs[gi] = append(s.strs[gi], v.Value(r).S)
				kept++
			}
		}
		if err := s.mem.charge("APPROX_QUANTILES", kept, 1); err != nil && s.err == nil {
			s.err = err
		}
		return
	}
	switch v.storage() {
	case inFloats:
		for r, gi := range g {
			if !v.isNull(r) {
				s.q[gi].add(v.F[r])
			}
		}
	case inInts:
		// Run by run of one group (rows grouped by a time bucket come in
		// long runs): appended together while the group keeps exact values.
		for i := 0; i < len(g); {
			gi, j := g[i], i+1
			for j < len(g) && g[j] == gi {
				j++
			}
			q := &s.q[gi]
			if !q.appendInts(v.I[i:j], v.Null, i) {
				for r := i; r < j; r++ {
					if !v.isNull(r) {
						q.add(float64(v.I[r]))
					}
				}
			}
			i = j
		}
	}
}

// parallelQuantileValues is the least number of values, over all groups,
// worth selecting on more than one core: under it starting the goroutines
// costs more than they save. invocation-stats over the last hour holds ~2k
// values at 1M events (faster on one core) and ~15k at 10M (11% slower on
// one core than on two, which 1 << 15 had chosen).
var parallelQuantileValues = 1 << 12 // a variable for the package's tests (main_test.go)

// prepare computes every group's quantiles on all cores: selection is the
// costly part of APPROX_QUANTILES and groups are independent.
func (s *quantAgg) prepare() {
	s.done = make([]types.Value, len(s.q))
	workers := min(runtime.GOMAXPROCS(0), len(s.q))
	if workers > 1 {
		values := 0
		for g := range s.q {
			if s.q[g].digest != nil {
				values += exactQuantileLimit
			}
			values += len(s.q[g].vals)
		}
		for g := range s.strs {
			values += len(s.strs[g]) + len(s.boxed[g])
		}
		if values < parallelQuantileValues {
			workers = 1
		}
	}
	share := func(w int) { // worker w's groups
		for g := w; g < len(s.q); g += workers {
			s.done[g] = s.compute(g)
		}
	}
	if workers == 1 {
		share(0)
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			share(w)
		}(w)
	}
	wg.Wait()
}

func (s *quantAgg) result(g int) types.Value {
	if s.done != nil {
		return s.done[g]
	}
	return s.compute(g)
}

func (s *quantAgg) compute(g int) types.Value {
	if s.byValue() {
		return s.computeValues(g)
	}
	if s.byBytes() {
		return s.computeStrings(g)
	}
	vals := s.quantiles(g)
	if vals == nil {
		return types.NullOf(types.ArrayOf(s.elem))
	}
	out := s.array()
	for k, x := range vals {
		at := k
		if !s.compact {
			at = s.ranks[k]
		}
		if s.elem.Kind == types.KindFloat64 {
			out[at] = types.FloatValue(x)
		} else {
			out[at] = types.Value{T: s.elem, I: int64(math.Round(x))}
		}
	}
	return types.ArrayValue(s.elem, out)
}

// quantiles returns group g's quantiles at s.ranks: those computed before
// of the same values, when g's are one kept partial's group's.
func (s *quantAgg) quantiles(g int) []float64 {
	var sh *sharedQuantiles
	if g < len(s.only) {
		sh = s.only[g]
	}
	if sh != nil {
		if a := sh.answer.Load(); a != nil { // never nil when known[g]
			return *a
		}
	}
	vals := s.q[g].quantiles(s.n, s.ranks, s.elem.Kind == types.KindFloat64)
	if sh != nil && vals != nil {
		sh.answer.Store(&vals)
	}
	return vals
}

// array is a group's result array to fill: the ranks read, or all n+1.
func (s *quantAgg) array() []types.Value {
	if s.compact {
		return make([]types.Value, len(s.ranks))
	}
	return make([]types.Value, s.n+1)
}

// computeStrings is compute over strings: exact, at exactRank, by bytes.
func (s *quantAgg) computeStrings(g int) types.Value {
	vals := s.strs[g]
	if len(vals) == 0 {
		return types.NullOf(types.ArrayOf(s.elem))
	}
	slices.Sort(vals)
	return s.exactArray(len(vals), func(r int) types.Value { return types.Value{T: s.elem, S: vals[r]} })
}

// computeValues is compute over values kept whole: exact, at exactRank, in
// ORDER BY's order with NULLs (RESPECT NULLS) first (values that compare
// equal keep their arrival order: which of them a rank gives is
// unspecified, as in BigQuery).
func (s *quantAgg) computeValues(g int) types.Value {
	vals := s.boxed[g]
	if len(vals) == 0 {
		return types.NullOf(types.ArrayOf(s.elem))
	}
	slices.SortStableFunc(vals, func(a, b types.Value) int { return orderCompare(a, b, false, true) })
	return s.exactArray(len(vals), func(r int) types.Value { return vals[r] })
}

// exactArray is a group's result array from its N values sorted: at each
// rank read, value(r) of the r-th (from 0) at exactRank.
func (s *quantAgg) exactArray(N int, value func(r int) types.Value) types.Value {
	out := s.array()
	for k, i := range s.ranks {
		at := k
		if !s.compact {
			at = i
		}
		out[at] = value(exactRank(i, s.n, N))
	}
	return types.ArrayValue(s.elem, out)
}

// reserve makes room in each group's exact list for sizes[g] more values.
func (s *quantAgg) reserve(sizes []int) {
	for g, n := range sizes {
		if q := &s.q[g]; q.digest == nil && n > 0 && len(q.vals)+n <= exactQuantileLimit {
			q.takeList()
			q.vals = slices.Grow(q.vals, n)
		}
	}
}

func (s *quantAgg) merge(target []int32, other aggState) {
	o := other.(*quantAgg)
	for g, t := range target {
		if int(t) < len(s.known) && s.known[t] {
			continue // its quantiles are known: see only
		}
		s.q[t].merge(&o.q[g])
		s.strs[t] = append(s.strs[t], o.strs[g]...)
		s.boxed[t] = append(s.boxed[t], o.boxed[g]...)
	}
}
