package exec

import (
	"context"
	"math"
	"runtime"
	"strings"
	"sync"

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
	o.finish()
	return nil
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
func (o *aggOp) finish() {
	if o.n == 0 && len(o.plan.Keys) == 0 {
		o.n = 1 // an aggregate without GROUP BY always yields one row
		for _, s := range o.states {
			s.grow(1)
		}
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
				v.set(k, s.result(int(g)), len(idx))
			}
			b.Cols = append(b.Cols, v)
		}
		o.out = append(o.out, b)
	}
	o.release()
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
	keys := make([]*Vector, len(o.plan.Keys))
	for i, k := range o.plan.Keys {
		v, err := o.ev.eval(k, b)
		if err != nil {
			return err
		}
		keys[i] = v
	}
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
			if a.Fn == "approx_quantiles" && i == 1 {
				continue
			}
			v, err := o.ev.eval(e, b)
			if err != nil {
				return err
			}
			args[i] = v
		}
		o.states[ai].update(o.gidx[:b.N], args, b.N)
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
func newBudgetedAggState(a planner.AggCall, mem *memBudget) aggState {
	st := newAggState(a)
	if bs, ok := st.(interface{ setBudget(*memBudget) }); ok {
		bs.setBudget(mem)
	}
	return st
}

func newAggState(a planner.AggCall) aggState {
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

// aggStates makes the state of each aggregate the planner registers, by
// name: the one place an aggregate's evaluation is chosen.
var aggStates = map[string]func(a planner.AggCall) aggState{
	// Exact; the binder writes it as COUNT(DISTINCT) already.
	"approx_count_distinct": func(planner.AggCall) aggState { return &distinctState{} },
	"count": func(a planner.AggCall) aggState {
		if a.Distinct {
			return &distinctState{}
		}
		return &countState{star: a.Star}
	},
	"countif":          func(planner.AggCall) aggState { return &countState{cond: true} },
	"sum":              newSumState,
	"avg":              newSumState,
	"min":              newExtremeState,
	"max":              newExtremeState,
	"any_value":        newExtremeState,
	"logical_and":      newLogicalState,
	"logical_or":       newLogicalState,
	"string_agg":       func(a planner.AggCall) aggState { return newListState(a) },
	"array_agg":        func(a planner.AggCall) aggState { return newListState(a) },
	"approx_top_count": func(a planner.AggCall) aggState { return newTopCountState(a) },
	"variance":         newVarAgg,
	"var_samp":         newVarAgg,
	"var_pop":          newVarAgg,
	"stddev":           newVarAgg,
	"stddev_samp":      newVarAgg,
	"stddev_pop":       newVarAgg,
	"approx_quantiles": func(a planner.AggCall) aggState {
		n := int(a.Args[1].(*planner.Const).V.I)
		ranks := a.Ranks
		if ranks == nil {
			for i := 0; i <= n; i++ {
				ranks = append(ranks, i)
			}
		}
		return &quantAgg{n: n, ranks: ranks, elem: *a.T.Elem}
	},
}

func newSumState(a planner.AggCall) aggState {
	return &sumState{avg: a.Fn == "avg", float: a.Args[0].Type().Kind == types.KindFloat64}
}
func newExtremeState(a planner.AggCall) aggState { return &extremeState{fn: a.Fn, t: a.T} }
func newLogicalState(a planner.AggCall) aggState {
	return &logicalState{and: a.Fn == "logical_and"}
}
func newVarAgg(a planner.AggCall) aggState { return newVarState(a) }

type countState struct {
	star, cond bool
	c          []int64
}

func (s *countState) grow(n int) { s.c = growZero(s.c, n) }
func (s *countState) update(g []int32, args []*Vector, n int) {
	switch {
	case s.star:
		for _, gi := range g {
			s.c[gi]++
		}
	case s.cond:
		v := args[0]
		for r, gi := range g {
			if v.I[r] != 0 && !v.isNull(r) {
				s.c[gi]++
			}
		}
	default:
		v := args[0]
		for r, gi := range g {
			if !v.isNull(r) {
				s.c[gi]++
			}
		}
	}
}
func (s *countState) result(g int) types.Value { return types.IntValue(s.c[g]) }

// distinctState is COUNT(DISTINCT x): a set of value keys per group. Every
// value it keeps is charged to the query's memory budget (mem, set by
// newAggOp), and a merge charges what it adds and releases what the merged
// partial held (op_aggpar.go).
type distinctState struct {
	sets []map[string]bool
	mem  *memBudget
	held int // values charged for
	err  error
}

// distinctWhat names COUNT(DISTINCT) in a memory-budget error.
const distinctWhat = "COUNT(DISTINCT)"

func (s *distinctState) setBudget(m *memBudget) { s.mem = m }
func (s *distinctState) failed() error          { return s.err }

func (s *distinctState) charge(n int) {
	if n == 0 || s.err != nil {
		return
	}
	s.held += n
	s.err = s.mem.charge(distinctWhat, n, 1)
}

func (s *distinctState) grow(n int) {
	for len(s.sets) < n {
		s.sets = append(s.sets, map[string]bool{})
	}
}
func (s *distinctState) update(g []int32, args []*Vector, n int) {
	added := 0
	var buf []byte
	for r, gi := range g {
		x := args[0].Value(r)
		if x.Null {
			continue
		}
		buf = appendKey(buf[:0], x)
		if !s.sets[gi][string(buf)] {
			s.sets[gi][string(buf)] = true
			added++
		}
	}
	s.charge(added)
}
func (s *distinctState) result(g int) types.Value { return types.IntValue(int64(len(s.sets[g]))) }

type sumState struct {
	avg, float bool
	i          []int64
	f          []float64
	c          []int64
	overflow   []bool
}

func (s *sumState) grow(n int) {
	s.i, s.f, s.c = growZero(s.i, n), growZero(s.f, n), growZero(s.c, n)
	s.overflow = growZero(s.overflow, n)
}
func (s *sumState) update(g []int32, args []*Vector, n int) {
	v := args[0]
	if v.storage() == inFloats {
		for r, gi := range g {
			if !v.isNull(r) {
				s.f[gi] += v.F[r]
				s.c[gi]++
			}
		}
		return
	}
	// Integers sum exactly; the float shadow sum is only needed (and kept
	// from then on) once a group overflows INT64.
	for r, gi := range g {
		if v.isNull(r) {
			continue
		}
		x := v.I[r]
		sum := s.i[gi] + x
		if (x > 0 && sum < s.i[gi]) || (x < 0 && sum > s.i[gi]) {
			if !s.overflow[gi] {
				s.f[gi] = float64(s.i[gi])
			}
			s.overflow[gi] = true
		}
		if s.overflow[gi] {
			s.f[gi] += float64(x)
		}
		s.i[gi] = sum
		s.c[gi]++
	}
}
func (s *sumState) result(g int) types.Value {
	switch {
	case s.c[g] == 0 && s.avg:
		return types.NullOf(types.Float64)
	case s.c[g] == 0:
		return types.NullOf(types.Int64)
	case s.avg && !s.float && !s.overflow[g]:
		return types.FloatValue(float64(s.i[g]) / float64(s.c[g]))
	case s.avg:
		return types.FloatValue(s.f[g] / float64(s.c[g]))
	case s.float:
		return types.FloatValue(s.f[g])
	}
	return types.IntValue(s.i[g])
}

// extremeState is MIN, MAX or ANY_VALUE. Integer-like inputs (the common
// case: times, counts, milliseconds) stay in ints; others are boxed.
type extremeState struct {
	fn   string
	t    types.Type
	ints []int64
	v    []types.Value
	set  []bool
}

func (s *extremeState) grow(n int) {
	for len(s.v) < n {
		s.v = append(s.v, types.Value{})
		s.ints = append(s.ints, 0)
		s.set = append(s.set, false)
	}
}

func (s *extremeState) intLike() bool {
	switch s.t.Kind {
	case types.KindInt64, types.KindTimestamp, types.KindDatetime, types.KindDate, types.KindBool:
		return s.fn != "any_value"
	}
	return false
}

func (s *extremeState) update(g []int32, args []*Vector, n int) {
	v := args[0]
	if s.intLike() && v.storage() == inInts && v.Lazy == nil {
		ints, set, x := s.ints, s.set, v.I
		switch {
		case s.fn == "min" && v.Null == nil:
			for r, gi := range g {
				if !set[gi] || x[r] < ints[gi] {
					ints[gi], set[gi] = x[r], true
				}
			}
		case s.fn == "max" && v.Null == nil:
			for r, gi := range g {
				if !set[gi] || x[r] > ints[gi] {
					ints[gi], set[gi] = x[r], true
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
		if !s.set[gi] {
			s.v[gi], s.set[gi] = v.Value(r), true
			continue
		}
		if s.fn == "any_value" {
			continue
		}
		x := v.Value(r)
		c, _ := types.Compare(x, s.v[gi])
		if (s.fn == "min" && c < 0) || (s.fn == "max" && c > 0) {
			s.v[gi] = x
		}
	}
}
func (s *extremeState) result(g int) types.Value {
	if !s.set[g] {
		return types.NullOf(s.t)
	}
	if s.intLike() {
		return types.Value{T: s.t, I: s.ints[g]}
	}
	return s.v[g]
}

type logicalState struct {
	and      bool
	val, set []bool
}

func (s *logicalState) grow(n int) { s.val, s.set = growZero(s.val, n), growZero(s.set, n) }
func (s *logicalState) update(g []int32, args []*Vector, n int) {
	v := args[0]
	for r, gi := range g {
		if v.isNull(r) {
			continue
		}
		b := v.I[r] != 0
		if !s.set[gi] {
			s.val[gi], s.set[gi] = b, true
		} else if s.and {
			s.val[gi] = s.val[gi] && b
		} else {
			s.val[gi] = s.val[gi] || b
		}
	}
}
func (s *logicalState) result(g int) types.Value {
	if !s.set[g] {
		return types.NullOf(types.Bool)
	}
	return types.BoolValue(s.val[g])
}

type quantAgg struct {
	n     int
	ranks []int
	elem  types.Type
	q     []quantileState
	done  []types.Value // results, when computed ahead by prepare
}

func (s *quantAgg) grow(n int) {
	for len(s.q) < n {
		s.q = append(s.q, quantileState{})
	}
}
func (s *quantAgg) update(g []int32, args []*Vector, n int) {
	v := args[0]
	switch v.storage() {
	case inFloats:
		for r, gi := range g {
			if !v.isNull(r) {
				s.q[gi].add(v.F[r])
			}
		}
	case inInts:
		for r, gi := range g {
			if !v.isNull(r) {
				s.q[gi].add(float64(v.I[r]))
			}
		}
	}
}

// prepare computes every group's quantiles on all cores: selection is the
// costly part of APPROX_QUANTILES and groups are independent.
func (s *quantAgg) prepare() {
	s.done = make([]types.Value, len(s.q))
	workers := min(runtime.GOMAXPROCS(0), len(s.q))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for g := w; g < len(s.q); g += workers {
				s.done[g] = s.compute(g)
			}
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
	vals := s.q[g].quantiles(s.n, s.ranks)
	if vals == nil {
		return types.NullOf(types.ArrayOf(s.elem))
	}
	// Positions not requested (when only some ranks are read) stay NULL; the
	// planner guarantees nothing reads them.
	out := make([]types.Value, s.n+1)
	for i := range out {
		out[i] = types.NullOf(s.elem)
	}
	for k, r := range s.ranks {
		if r < 0 || r > s.n {
			continue
		}
		x := vals[k]
		if s.elem.Kind == types.KindFloat64 {
			out[r] = types.FloatValue(x)
		} else {
			out[r] = types.Value{T: s.elem, I: int64(math.Round(x))}
		}
	}
	return types.ArrayValue(s.elem, out)
}

func growZero[T any](s []T, n int) []T {
	for len(s) < n {
		var z T
		s = append(s, z)
	}
	return s
}
