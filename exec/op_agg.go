package exec

import (
	"context"
	"slices"
	"strings"

	"logq/expr"
	"logq/planner"
	"logq/types"
)

// aggOp is a hash aggregate. Groups are numbered in order of first
// appearance; a single INT64-like key (the usual time bucket) uses an integer
// map and remembers the last key, since rows arrive in time order.
type aggOp struct {
	in     Operator
	plan   *planner.Aggregate
	ev     *evaluator
	done   bool
	groups *grouper
	keys   *rowStore
	states []aggState
	n      int
	gidx   []int32
	out    []*Batch
	// setCols are, per grouping set, its constant key columns (NULL for a
	// key it does not group by, its number last), made once for setRows
	// rows; a batch reads its first N.
	setCols [][]*Vector
	setRows int
}

// aggState holds one aggregate's per-group state.
type aggState interface {
	grow(groups int)
	update(g []int32, args []*Vector, n int)
	result(g int) types.Value
	// merge folds group g of other into group target[g] of this state.
	merge(target []int32, other aggState)
}

func newAggOp(in Operator, p *planner.Aggregate, ev *evaluator) *aggOp {
	o := &aggOp{in: in, plan: p, ev: ev, groups: newGrouper()}
	var kt []types.Type
	for _, k := range p.Keys {
		kt = append(kt, k.Type())
	}
	o.keys = newRowStore(kt)
	for _, a := range p.Aggs {
		o.states = append(o.states, newBudgetedAggState(a, ev.mem))
	}
	return o
}

// failed returns the first error a state recorded (a memory-budget charge
// that update and merge, which return nothing, could not make).
func (o *aggOp) failed() error {
	for _, s := range o.states {
		if f, ok := s.(failing); ok {
			if err := f.failed(); err != nil {
				return err
			}
		}
	}
	return nil
}

// failing states record an error update or merge could not return.
type failing interface{ failed() error }

// checked states can fail at the result: SUM of INT64 past INT64.
type checked interface{ resultErr(g int) error }

// resultOf is group g's result of st, or the error it ends in.
func resultOf(st aggState, g int) (types.Value, error) {
	v := st.result(g)
	if c, ok := st.(checked); ok {
		if err := c.resultErr(g); err != nil {
			return types.Value{}, err
		}
	}
	return v, nil
}

func (o *aggOp) Close() {
	if o.in != nil {
		o.in.Close()
	}
}

func (o *aggOp) Next(ctx context.Context) (*Batch, error) {
	if !o.done {
		if err := o.consume(ctx); err != nil {
			return nil, err
		}
		o.done = true
	}
	if len(o.out) == 0 {
		return nil, nil
	}
	b := o.out[0]
	o.out = o.out[1:]
	return b, nil
}

func (o *aggOp) consume(ctx context.Context) error {
	if err := o.accumulate(ctx); err != nil {
		return err
	}
	return o.finish()
}

// accumulate reads the whole input into the group states.
func (o *aggOp) accumulate(ctx context.Context) error {
	for {
		b, err := o.in.Next(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		if err := o.add(b); err != nil {
			return err
		}
	}
	return nil
}

// finish turns the group states into output batches.
func (o *aggOp) finish() error {
	if o.n == 0 && len(o.plan.Keys) == 0 {
		o.n = 1 // an aggregate without GROUP BY always yields one row
		for _, s := range o.states {
			s.grow(1)
		}
	}
	if o.n == 0 {
		o.emptyGroupingSet()
	}
	for _, s := range o.states {
		if q, ok := s.(*quantAgg); ok && o.n > 1 {
			q.prepare()
		}
	}
	for start := 0; start < o.n; start += BatchSize {
		end := min(start+BatchSize, o.n)
		idx := make([]int32, 0, end-start)
		for g := start; g < end; g++ {
			idx = append(idx, int32(g))
		}
		b := &Batch{N: len(idx)}
		if len(o.plan.Keys) > 0 {
			b.Cols = o.keys.batch(idx).Cols
		}
		for ai, s := range o.states {
			v := newVector(o.plan.Aggs[ai].T, len(idx))
			for k, g := range idx {
				x, err := resultOf(s, int(g))
				if err != nil {
					return err
				}
				v.set(k, x, len(idx))
			}
			b.Cols = append(b.Cols, v)
		}
		o.out = append(o.out, b)
	}
	o.release()
	return nil
}

// release hands reusable per-group storage back once results are built.
func (o *aggOp) release() {
	for _, s := range o.states {
		if q, ok := s.(*quantAgg); ok {
			for i := range q.q {
				q.q[i].release()
			}
		}
	}
}

func (o *aggOp) add(b *Batch) error {
	sets := o.plan.Sets
	n := len(o.plan.Keys)
	if sets != nil {
		n-- // the last key is the set's number, not evaluated
	}
	keys := make([]*Vector, n)
	for i, k := range o.plan.Keys[:n] {
		v, err := o.ev.eval(k, b)
		if err != nil {
			return err
		}
		keys[i] = v
	}
	if sets == nil {
		return o.addGrouped(b, keys)
	}
	// GROUPING SETS: the rows once per set, with the keys the set does not
	// group by NULL, and the set's number as the last key.
	consts := o.groupingCols(b.N)
	setKeys := make([]*Vector, n+1)
	for si, set := range sets {
		copy(setKeys, consts[si])
		for k := range keys {
			if set[k] {
				setKeys[k] = keys[k]
			}
		}
		if err := o.addGrouped(b, setKeys); err != nil {
			return err
		}
	}
	return nil
}

// groupingCols returns the grouping sets' constant key columns for at least
// rows rows.
func (o *aggOp) groupingCols(rows int) [][]*Vector {
	if rows <= o.setRows {
		return o.setCols
	}
	o.setRows = max(rows, BatchSize)
	nk := len(o.plan.Keys) - 1
	o.setCols = make([][]*Vector, len(o.plan.Sets))
	for si, set := range o.plan.Sets {
		cols := make([]*Vector, nk+1)
		for k, in := range set {
			if !in {
				cols[k] = constVector(types.NullOf(o.plan.Keys[k].Type()), o.setRows)
			}
		}
		cols[nk] = constVector(types.IntValue(int64(si)), o.setRows)
		o.setCols[si] = cols
	}
	return o.setCols
}

// emptyGroupingSet gives each grouping set that groups by nothing its one
// row when there was no input (GROUP BY ROLLUP(x) of no rows is one row).
func (o *aggOp) emptyGroupingSet() {
	for si, set := range o.plan.Sets {
		if slices.Contains(set, true) {
			continue
		}
		o.keys.appendRows(&Batch{N: 1, Cols: o.groupingCols(1)[si]}, []int32{0})
		o.n++
		for _, s := range o.states {
			s.grow(o.n)
		}
	}
}

// addGrouped adds batch b's rows, grouped by the key vectors keys.
func (o *aggOp) addGrouped(b *Batch, keys []*Vector) error {
	var newRows []int32
	before := o.n
	if len(keys) == 0 {
		o.gidx = grow(o.gidx, b.N)
		clear(o.gidx)
		o.n = 1
	} else {
		o.gidx, newRows = o.groups.assign(keys, b.N, o.gidx, nil)
		o.n = o.groups.n
	}
	if len(newRows) > 0 {
		o.keys.appendRows(&Batch{N: b.N, Cols: keys}, newRows)
		if err := o.ev.mem.charge("GROUP BY or DISTINCT", len(newRows), len(keys)+len(o.states)); err != nil {
			return err
		}
	}
	if o.n > before || before == 0 {
		for _, s := range o.states {
			s.grow(o.n)
		}
	}
	for ai, a := range o.plan.Aggs {
		args := make([]*Vector, len(a.Args))
		for i, e := range a.Args {
			v, err := o.ev.eval(e, b)
			if err != nil {
				return err
			}
			args[i] = v
		}
		g, n := o.gidx[:b.N], b.N
		if a.Filtered {
			args, g, n = filterAggRows(args, g)
		}
		o.states[ai].update(g, args, n)
		if f, ok := o.states[ai].(failing); ok {
			if err := f.failed(); err != nil {
				return err
			}
		}
		if _, ok := o.states[ai].(*listState); ok {
			if err := o.ev.mem.charge(strings.ToUpper(a.Fn), b.N, 1+len(a.Order)); err != nil {
				return err
			}
		}
	}
	return nil
}

// newBudgetedAggState is newAggState with the query's memory budget given
// to the states that charge it (COUNT(DISTINCT), the list aggregates).
func newBudgetedAggState(a expr.AggCall, mem *memBudget) aggState {
	st := newAggState(a)
	if bs, ok := st.(interface{ setBudget(*memBudget) }); ok {
		bs.setBudget(mem)
	}
	return st
}

func newAggState(a expr.AggCall) aggState {
	if a.Filtered { // its rows are filtered before they reach it (filterAggRows)
		a.Filtered, a.Args = false, a.Args[:len(a.Args)-1]
	}
	if a.Having != 0 {
		return newHavingState(a) // op_agg_having.go
	}
	if a.Distinct && a.Fn != "count" {
		return newDistinctArgs(a) // op_agg_distinct.go
	}
	mk := aggStates[a.Fn]
	if mk == nil {
		// The binder only makes calls of planner.AggregateNames, each of
		// which has a state (TestEveryFunctionIsDefinedAndTested).
		panic("exec: no state for aggregate " + a.Fn)
	}
	return mk(a)
}

// aggStates makes the state of each aggregate the planner registers
// (expr.Agg), by name: the one place an aggregate's evaluation is
// chosen. Each state family is one file (op_agg_*.go) holding its update,
// its result and its merge (of parallel partial states, op_aggpar.go); the
// registry test checks that this table and the planner's name the same
// aggregates.
var aggStates = map[string]func(a expr.AggCall) aggState{
	// Exact: the distinct values, counted.
	"approx_count_distinct": func(expr.AggCall) aggState { return &distinctState{} },
	"count": func(a expr.AggCall) aggState {
		if a.Distinct {
			return &distinctState{}
		}
		return &countState{star: a.Star}
	},
	"countif":          func(expr.AggCall) aggState { return &countState{cond: true} },
	"sum":              newSumState,
	"avg":              newSumState,
	"min":              newExtremeState,
	"max":              newExtremeState,
	"any_value":        newExtremeState,
	"logical_and":      newBitState,
	"logical_or":       newBitState,
	"string_agg":       func(a expr.AggCall) aggState { return newListState(a) },
	"array_agg":        func(a expr.AggCall) aggState { return newListState(a) },
	"approx_top_count": func(a expr.AggCall) aggState { return newTopCountState(a) },
	"approx_top_sum":   func(a expr.AggCall) aggState { return newTopCountState(a) },
	"variance":         newVarAgg,
	"var_samp":         newVarAgg,
	"var_pop":          newVarAgg,
	"stddev":           newVarAgg,
	"stddev_samp":      newVarAgg,
	"stddev_pop":       newVarAgg,
	"approx_quantiles": newQuantAgg,
	"covar_pop":        newCovarState,
	"covar_samp":       newCovarState,
	"corr":             newCovarState,
	"bit_and":          newBitState,
	"bit_or":           newBitState,
	"bit_xor":          newBitState,
	"array_concat_agg": newConcatState,
	// HLL++ sketches.
	"hll_count.init":          newHLLState,
	"hll_count.merge":         newHLLState,
	"hll_count.merge_partial": newHLLState,
	// KLL quantiles sketches.
	"kll_quantiles.init_int64":          newKLLState,
	"kll_quantiles.init_float64":        newKLLState,
	"kll_quantiles.merge_partial":       newKLLState,
	"kll_quantiles.merge_int64":         newKLLState,
	"kll_quantiles.merge_float64":       newKLLState,
	"kll_quantiles.merge_point_int64":   newKLLState,
	"kll_quantiles.merge_point_float64": newKLLState,
}

func newVarAgg(a expr.AggCall) aggState {
	if a.Args[0].Type().IsDecimal() {
		return newDecimalMomentsState(a) // op_agg_moments_decimal.go
	}
	return newVarState(a)
}

func growZero[T any](s []T, n int) []T {
	for len(s) < n {
		var z T
		s = append(s, z)
	}
	return s
}

// filterAggRows keeps, of an aggregate's argument rows and their groups g,
// those whose filter (agg(x WHERE cond), the last argument) is TRUE, and
// drops the filter.
func filterAggRows(args []*Vector, g []int32) ([]*Vector, []int32, int) {
	cond := args[len(args)-1]
	args = args[:len(args)-1]
	var keep []int32
	for r := range g {
		if cond.I[r] != 0 && !cond.isNull(r) {
			keep = append(keep, int32(r))
		}
	}
	if len(keep) == len(g) {
		return args, g, len(g)
	}
	out := make([]*Vector, len(args))
	for i, a := range args {
		if a != nil { // APPROX_QUANTILES' count is not evaluated
			out[i] = gather(a, keep, nil)
		}
	}
	kg := make([]int32, len(keep))
	for i, r := range keep {
		kg[i] = g[r]
	}
	return out, kg, len(keep)
}
